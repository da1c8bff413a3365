"""Hostile (batch reports): a submission folder named like a file of `--report-dir`.

The test hands this file in as `summary/embedding.py` and again as `similarity/embedding.py`,
beside an honest student, and runs `andrea-grade batch` with `--feedback-format html` and
one folder for `--feedback-dir` and `--report-dir` (nothing forbids it; the summary then links
each feedback file beside it). A plain folder name is its own feedback stem, so student
`summary` got `summary.html` and student `similarity` `similarity.html`.

What it did: the class summary, written after the feedback files, replaced student `summary`'s
feedback, and the CSV's `feedback` column named `summary.html` as that student's file: a
teacher handing back the files the CSV names sends one student every student's name, score,
problem and copy flags, and the other one the code of every flagged pair (similarity.html);
neither student's own feedback exists.

Expected: no feedback file takes the name of a report file (`summary.html`, `summary.txt`,
`scores.png`, `similarity.html`): such a name gets the hashed form (`summary~...html`), and
each student's file holds that student's feedback. norm() is correct.
"""
import numpy as np


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
