"""Dot product, norm and cosine similarity: the algebra of "vectors as arrows".

    u . v = |u| |v| cos(theta)

Results are Python floats. Lengths must match; the cosine of a zero vector is undefined and
raises ValueError rather than returning nan.
"""

from __future__ import annotations

import math

import numpy as np

from andrea_runtime import validate


def dot(u, v) -> float:
    """u_0 v_0 + u_1 v_1 + ... (unnormalised similarity)."""
    u, v = validate.vector("u", u), validate.vector("v", v)
    validate.same_length(u, v)
    return float(np.dot(u, v))


def _norm(v: np.ndarray) -> float:
    # Scale by the largest entry first, so squares neither overflow nor underflow.
    m = float(np.max(np.abs(v))) if v.size else 0.0
    if m == 0.0 or not np.isfinite(m):
        return m
    s = v / m
    return m * float(np.sqrt(np.dot(s, s)))


def norm(v) -> float:
    """Euclidean length sqrt(v_0^2 + v_1^2 + ...), computed without overflow or underflow."""
    return _norm(validate.vector("v", v))


def cosine_similarity(u, v) -> float:
    """cos(theta) = u . v / (|u| |v|), in [-1, 1]; ValueError for a zero vector."""
    u, v = validate.vector("u", u), validate.vector("v", v)
    validate.same_length(u, v)
    nu, nv = _norm(u), _norm(v)
    if nu == 0 or nv == 0:
        which = "u" if nu == 0 else "v"
        raise ValueError(f"cosine_similarity is undefined for a zero vector ({which} is all zeros)")
    # Normalise first so the product cannot overflow; clip the last bit of roundoff.
    c = float(np.dot(u / nu, v / nv))
    if math.isnan(c):  # NaN or inf in the input: say so rather than clip it to -1
        return c
    return min(1.0, max(-1.0, c))
