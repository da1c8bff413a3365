"""A partial submission: parameter counts, dot and norm only."""
import numbers

import numpy as np


def _size(name, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer")
    if v < 1:
        raise ValueError(f"{name} must be >= 1")
    return int(v)


def token_embedding_params(vocab_size, d_model):
    return _size("vocab_size", vocab_size) * _size("d_model", d_model)


def position_embedding_params(context_length, d_model):
    return _size("context_length", context_length) * _size("d_model", d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(context_length, d_model)


def dot(u, v):
    u, v = np.asarray(u), np.asarray(v)
    if u.shape != v.shape:
        raise ValueError("lengths differ")
    return float(np.dot(u, v))


def norm(v):
    return float(np.linalg.norm(np.asarray(v)))
