"""Hostile: makes every comparison succeed in its own process, then returns wrong answers.

It replaces np.array_equal, np.allclose, np.isclose and np.testing's asserts, and returns an
ndarray subclass whose __eq__ is always True and whose bytes are empty. None of it may reach
the grader: results cross as plain arrays and are compared in the grader's process, so the
lookup and embed checks fail.
"""
import numpy as np

np.array_equal = lambda *a, **k: True
np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: np.ones(np.shape(a[0]), dtype=bool)
np.testing.assert_array_equal = lambda *a, **k: None
np.testing.assert_allclose = lambda *a, **k: None


class Always(np.ndarray):
    """An array that equals everything."""

    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool).view(np.ndarray)

    def __ne__(self, other):
        return np.zeros(self.shape, dtype=bool).view(np.ndarray)

    def tobytes(self, *a, **k):
        return b""


def lookup(table, token_ids):
    out = np.zeros(np.shape(token_ids) + (np.shape(table)[1],), dtype=np.asarray(table).dtype)
    return out.view(Always)


def embed(token_ids, token_table, position_table):
    out = np.zeros(np.shape(token_ids) + (np.shape(token_table)[1],), dtype=np.float32)
    return out.view(Always)
