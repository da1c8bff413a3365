"""Hostile (forged score through a broken check): a check that breaks on its own (an exception
that is neither a violation nor the submission's) is the grader's bug and earns its points. This
file breaks the checks on purpose with values no check expects: an int too large for a float
(dot, norm, cosine_similarity: ``float()`` raises OverflowError in the grader), a 1-d result where
rows are due (rope: ``@`` of two NumPy scalars raises TypeError), and the token count, right the
first time it is asked for at the spec's sizes and 10**400 after (the share check divides it:
OverflowError).

Expected: each of those checks fails (the check does not break on the reference, so the value
is wrong); the error checks it answers properly (VEC-ERR-01) still pass.
"""
import numpy as np

HUGE = 10 ** 400          # 401 digits: crosses the protocol as a plain int
_asked = {}


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("u and v have different lengths")
    return HUGE


def norm(v):
    return HUGE


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("u and v have different lengths")
    if not np.any(u) or not np.any(v):
        raise ValueError("cosine of a zero vector")
    return HUGE


def rope(x, positions):
    return np.zeros(1)


def token_embedding_params(vocab_size, d_model):
    key = (vocab_size, d_model)
    _asked[key] = _asked.get(key, 0) + 1
    return vocab_size * d_model if _asked[key] == 1 else HUGE


def embedding_params(vocab_size, context_length, d_model):
    return (vocab_size + context_length) * d_model
