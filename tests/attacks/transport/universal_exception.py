"""Hostile (an exception that lies about its type): one class deriving from TypeError,
ValueError and IndexError, raised for every bad input without deciding which error it is. The
grader rebuilds it with the same builtin bases, so it passed every error check (45 points of
error clauses with the bundled solution's checks, types chosen by nobody).

Expected: each error check fails ("which is a IndexError but also a TypeError ..."); the values
are still right (dot passes).
"""
import math

import numpy as np


class Oops(TypeError, ValueError, IndexError):
    pass


def _size(x):
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
        raise Oops(f"bad size {x!r}")
    return int(x)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return (_size(vocab_size) + _size(context_length)) * _size(d_model)


def dot(u, v):
    if len(u) != len(v):
        raise Oops("lengths differ")
    return math.fsum(float(a) * float(b) for a, b in zip(u, v))


def cosine_similarity(u, v):
    if len(u) != len(v) or not np.any(u) or not np.any(v):
        raise Oops("bad vectors")
    return dot(u, v) / math.sqrt(dot(u, u) * dot(v, v))
