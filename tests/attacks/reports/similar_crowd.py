"""Hostile (report size): a correct submission (tests/corpus/correct/numpy_naive.py, which the
test reads) handed in by 300 students (the test names them with 45 characters; a solution passed around
a large class, or one short obvious answer that many write alike).

Identical files are always flagged (similar_to), each pair both ways: every row of the batch
named its 299 others, so scores.csv's flags column held 90,000 flags (6.1 MB) and
summary.html's table of students 9.5 MB, past the 5 MB every output must stay under, and
both grow with the square of the class.

Expected: a row lists its 10 most similar others, then one `similar_to_more` flag counting
the rest ("and 290 more alike" on the summary page, in the teacher's language);
similarity.html shows the pairs up to its own cap; every output under 5 MB.
"""
