"""Hostile (names): a file name that reads like another student's once Unicode normalises it.

Handed in as "café.py" written with a plain e and a combining acute accent (NFD, as macOS
writes names) in the folder where a classmate hands in "café.py" with the one character é
(NFC), and as "ｃａｆé.py" in full-width letters (the test copies it there). Each had a feedback
file of its own, but every row of scores.csv, summary.txt and summary.html read "café.py"
twice (or a look-alike): which score is whose only the CSV's feedback column told.

Expected: names that are equal once normalised (NFKC) and with case set aside are shown with
their characters beyond ASCII as escapes (caf\\u00e9.py, cafe\\u0301.py, \\uff43...), in every
report and feedback file; each has its own row and file; a name that collides with none
(zoë.py) is shown as it is. norm() is wrong (0.0), so its feedback differs from the
classmate's.
"""


def norm(v):
    return 0.0
