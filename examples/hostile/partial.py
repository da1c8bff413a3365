"""A partial submission: the three parameter counts, dot and norm, nothing else.

Not hostile, just unfinished: the groups it implements score, and every check of a function
it lacks reports "function X is missing" with a hint.
"""
import numpy as np


def token_embedding_params(vocab_size, d_model):
    return vocab_size * d_model


def position_embedding_params(context_length, d_model):
    return context_length * d_model


def embedding_params(vocab_size, context_length, d_model):
    return (vocab_size + context_length) * d_model


def dot(u, v):
    return float(np.dot(u, v))


def norm(v):
    return float(np.linalg.norm(v))
