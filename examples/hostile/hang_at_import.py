"""Hostile: never finishes importing.

The grader must give up at the import timeout, kill the worker, report every check as an error
("timeout: importing the submission"), score 0, and still exit 0 with valid output.
"""
import time

while True:
    time.sleep(0.01)
