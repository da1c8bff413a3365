"""Hostile (names): take another student's feedback file and report row.

Handed in as " bob.py" (a leading space) in the folder where bob hands in "bob.py" (the test
copies it there; a name with a zero-width space or a trailing space does the same). The
feedback file's name was the submission's with its spaces stripped: this file, sorted first,
took "bob.py.md" (bob's went to "bob.py-2.md"), and summary.txt and summary.html showed two
rows both reading "bob.py". norm() is wrong (0.0), so its feedback differs from bob's.

Expected: each submission has its own feedback file, bob's is "bob.py.md" whatever else is
handed in, no two names read the same in any report (" bob.py" reads "\\x20bob.py"), and the
CSV's `feedback` column names each row's file.
"""


def norm(v):
    return 0.0
