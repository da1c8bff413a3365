"""The two position encodings the course compares with ANDREA's learned table.

* sinusoidal (Vaswani et al. 2017): fixed, never trained, bounded in [-1, 1], defined for any
  position through the formula;
* RoPE (rotary position embedding): rotates each (even, odd) pair of a query or key vector by an
  angle proportional to the position; norm-preserving, no parameters, and q . k depends only on
  the offset between the two positions.
"""

from __future__ import annotations

import numpy as np

from andrea_runtime import validate


def _positions(positions) -> np.ndarray:
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu":
        raise TypeError(f"positions must be integers, got dtype {pos.dtype}")
    if pos.ndim != 1:
        raise ValueError(f"positions must be 1-D, got shape {pos.shape}")
    if pos.size and pos.min() < 0:
        raise ValueError("positions must be >= 0")
    return pos.astype(np.float64)


def _even(d_model: int) -> int:
    d_model = validate.size("d_model", d_model)
    if d_model % 2:
        raise ValueError(f"d_model must be even for sin/cos pairs, got {d_model}")
    return d_model


def _angles(pos: np.ndarray, d_model: int, base: float) -> np.ndarray:
    """theta[p, i] = p / base**(2i / d_model), shape (len(pos), d_model // 2), float64."""
    inv_freq = base ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    return np.outer(pos, inv_freq)


def sinusoidal_encoding(positions, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2i] = sin(p / base^(2i/d)), PE[p, 2i+1] = cos(p / base^(2i/d)); float32 (len, d)."""
    d_model = _even(d_model)
    ang = _angles(_positions(positions), d_model, base)
    out = np.empty((ang.shape[0], d_model), dtype=np.float32)
    out[:, 0::2] = np.sin(ang)
    out[:, 1::2] = np.cos(ang)
    return out


def rope(x, positions, base: float = 10000.0) -> np.ndarray:
    """Rotate x (..., T, d) pairwise by position: (x0, x1) -> (x0 cos - x1 sin, x0 sin + x1 cos)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        raise TypeError(f"x must hold floats, got dtype {x.dtype}")
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, d_model), got {x.shape}")
    pos = _positions(positions)
    if pos.shape[0] != x.shape[-2]:
        raise ValueError(f"positions has {pos.shape[0]} entries but x has T = {x.shape[-2]}")
    ang = _angles(pos, _even(x.shape[-1]), base)
    cos, sin = np.cos(ang), np.sin(ang)
    x0, x1 = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    out = np.empty(x.shape, dtype=x.dtype)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out
