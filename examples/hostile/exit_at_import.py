"""Hostile: kills its own process while being imported (os._exit(0): no exception, no output).

The grader must report every check as an error ("crash: importing the submission"), score 0,
and still exit 0 with valid output.
"""
import os

os._exit(0)
