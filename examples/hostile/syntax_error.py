"""Hostile (or just unlucky): does not parse."""
import numpy as np


def lookup(table, token_ids)
    return table[token_ids]
