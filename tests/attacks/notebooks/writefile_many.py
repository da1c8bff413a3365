"""Hostile (the grader's reading of notebooks): a notebook whose %%writefile cells write
40,000 modules (`notebook(n)`: the test writes it, 4.6 MB; each cell is
``%%writefile m17.py`` and one line).

Since a notebook's ``%%writefile NAME.py`` cells are the modules they write (a Colab idiom),
each became a file of the submission: 40,001 files from one notebook, past the 2,000 files and
folders a submission may hold (a folder of that many is refused at once), each written by the
grader into the worker's scratch folder, read by the tamper scan and copy detection (45,000 cells: 40 s of wall
time for a grade whose import then timed out).

Expected: the modules a notebook writes count against the caps of a submission (2,000 files,
5 MiB): refused at once with a line naming the cap, like a folder of too many files; a batch
goes on. A notebook that writes a few modules is graded as before.
"""
import json


def notebook(n: int = 40_000) -> str:
    """A notebook defining lookup(), then `n` cells each writing a module of its own."""
    def cell(source: str) -> dict:
        return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                "source": source}

    cells = [cell("def lookup(table, ids):\n    return table[ids]\n")]
    cells += [cell(f"%%writefile m{i}.py\nX = {i}\n") for i in range(n)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      separators=(",", ":"))
