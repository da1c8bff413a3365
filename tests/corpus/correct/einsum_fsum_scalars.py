"""Correct, "scalar" style: sizes validated with operator.index (so NumPy integers pass and
floats do not), lookup through a fancy index with a 2-D index array, embed with np.einsum-free
broadcasting, vectors accumulated with math.fsum in float64 and returned as NumPy scalars
(np.float64, np.int64 counts), errors raised as subclasses of the required ones with Dutch
messages."""

import math
import operator

import numpy as np


class OngeldigeId(IndexError):
    """Een token-id buiten het vocabulaire."""


class VerkeerdeVorm(ValueError):
    """Vormen die niet bij elkaar passen."""


def _size(value):
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("een grootte moet een geheel getal zijn, geen bool")
    n = operator.index(value)          # TypeError for floats, strings, None
    if n < 1:
        raise ValueError(f"een grootte moet minstens 1 zijn, niet {n}")
    return n


def token_embedding_params(vocab_size, d_model):
    return np.int64(_size(vocab_size)) * np.int64(_size(d_model))


def position_embedding_params(context_length, d_model):
    return np.int64(_size(context_length) * _size(d_model))


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    rows, d = _size(num_rows), _size(d_model)
    # float64 draws, scaled in float64, cast once at the end
    return (rng.standard_normal((rows, d), dtype=np.float64) * (1.0 / math.sqrt(d))).astype(
        np.float32)


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"token-ids moeten gehele getallen zijn, niet {ids.dtype}")
    if ids.size:
        lo, hi = ids.min(), ids.max()
        if lo < 0 or hi >= rows:
            raise OngeldigeId(f"token-id {lo if lo < 0 else hi} ligt buiten 0..{rows - 1}")
    return ids


def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    flat = table[ids.reshape(1, -1)]          # a 2-D index, then back to ids' shape
    return flat.reshape(ids.shape + (table.shape[1],))


def _sequence(ids, context):
    if ids.ndim not in (1, 2):
        raise VerkeerdeVorm("token-ids moeten (T,) of (B, T) zijn")
    if ids.shape[-1] > context:
        raise VerkeerdeVorm(f"reeks van {ids.shape[-1]} is langer dan de context {context}")
    return ids.shape[-1]


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise VerkeerdeVorm("d_model verschilt tussen de tabellen")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    return np.einsum("...td,td->...td", token_table[ids], np.ones_like(position_table[:t])) \
        + position_table[:t]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    if grad_out.shape != ids.shape + grad_out.shape[-1:] or grad_out.ndim != ids.ndim + 1:
        raise VerkeerdeVorm("grad_out moet de vorm token_ids.shape + (d_model,) hebben")
    d = grad_out.shape[-1]
    flat = ids.reshape(-1)
    rows = grad_out.reshape(-1, d)
    # one np.bincount per column, summed in float64, cast at the end
    g_tok = np.stack([np.bincount(flat, weights=rows[:, j], minlength=vocab_size)
                      for j in range(d)], axis=1).astype(np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = np.einsum("btd->td", grad_out.reshape(-1, t, d))
    return g_tok, g_pos


def dot(u, v):
    if len(u) != len(v):
        raise VerkeerdeVorm(f"vectoren van lengte {len(u)} en {len(v)}")
    return np.float64(math.fsum(float(a) * float(b) for a, b in zip(u, v)))


def norm(v):
    return np.float64(math.sqrt(math.fsum(float(x) * float(x) for x in v)))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise VerkeerdeVorm(f"vectoren van lengte {len(u)} en {len(v)}")
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise VerkeerdeVorm("de cosinus van een nulvector bestaat niet")
    return dot(u, v) / (nu * nv)
