"""Hostile (values that lie about themselves): returns an ndarray subclass whose __eq__,
__array__, __array_interface__-free copies and tolist() claim to be the right answer while its
data are zeros; an int subclass whose __eq__ is always true and __index__/__int__/__repr__ lie;
a float subclass whose __float__ and __eq__ lie; and a list subclass whose __len__ lies.

Expected: the grader compares the values the worker sent as plain data (bytes of the array,
the number's own value), so every lie fails its check under its clause.
"""
import numpy as np


class Liar(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(other), dtype=bool)

    def __ne__(self, other):
        return np.zeros(np.shape(other), dtype=bool)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._truth if dtype is None else self._truth.astype(dtype))

    def tolist(self):
        return self._truth.tolist()

    def __array_finalize__(self, obj):
        self._truth = getattr(obj, "_truth", None)


class LyingInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

    def __index__(self):
        return 6488832

    def __int__(self):
        return 6488832

    def __repr__(self):
        return "6488832"

    __str__ = __repr__


class LyingFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__

    def __float__(self):
        return 1.0

    def __repr__(self):
        return "1.0"


def lookup(table, token_ids):
    truth = np.asarray(table)[np.asarray(token_ids)]
    out = np.zeros_like(truth).view(Liar)
    out._truth = truth
    return out


def token_embedding_params(vocab_size, d_model):
    return LyingInt(7)


def norm(v):
    return LyingFloat(-3.0)


def dot(u, v):
    class L(list):
        def __len__(self):
            return 1
    return L([float(np.dot(u, v)) + 1.0, 2.0])
