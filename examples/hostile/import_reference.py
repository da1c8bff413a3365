"""Hostile: hands in the reference implementation.

The worker's import guard must refuse it: every check is an error ("forbidden: the submission
imports andrea_ref"), score 0, with or without bubblewrap.
"""
from andrea_ref import *  # noqa: F401,F403
