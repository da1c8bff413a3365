"""Hostile (or just unlucky): does not parse.

The grader must report every check as an error with the line of the SyntaxError, score 0.
"""
import numpy as np


def lookup(table, token_ids)
    return table[token_ids]
