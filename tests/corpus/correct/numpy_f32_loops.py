"""Correct, mixed style: ids validated through int() on each element (lists and tuples of
ints allowed), the lookup builds its output row by row with np.stack of copies, embed with
np.broadcast_to, the position gradient by a loop over the batch, vectors in float32 with
np.float32 scalars returned (np.vdot), the cosine via np.linalg.norm in the input dtype."""

import numpy as np


def _size(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("integer size required")
    if value < 1:
        raise ValueError("size must be >= 1")
    return int(value)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    rows, d = _size(num_rows), _size(d_model)
    std = np.float32(d) ** np.float32(-0.5)
    return rng.standard_normal(rows * d, dtype=np.float32).reshape(rows, d) * std


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype == object or ids.dtype.kind not in "iu":
        raise TypeError("ids must be integers")
    for i in ids.reshape(-1).tolist():
        if not 0 <= i < rows:
            raise IndexError(f"id {i} is not in [0, {rows})")
    return ids


def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    if ids.size == 0:
        return table[ids]
    rows = np.stack([table[i].copy() for i in ids.reshape(-1).tolist()])
    return rows.reshape(ids.shape + table.shape[1:])


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2) or ids.shape[-1] > len(position_table):
        raise ValueError("bad ids shape for this context")
    if token_table.shape[-1] != position_table.shape[-1]:
        raise ValueError("tables disagree on d_model")
    pos = np.broadcast_to(position_table[: ids.shape[-1]], ids.shape + token_table.shape[1:])
    return lookup(token_table, ids) + pos


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
        raise ValueError("bad ids shape for this context")
    if np.ndim(grad_out) != ids.ndim + 1 or np.shape(grad_out)[:-1] != ids.shape:
        raise ValueError("grad_out does not match ids")
    d, t = grad_out.shape[-1], ids.shape[-1]
    g_tok = np.zeros((vocab_size, d), np.float32)
    np.add.at(g_tok, ids, grad_out)
    g_pos = np.zeros((context_length, d), np.float32)
    for row in grad_out.reshape(-1, t, d):
        g_pos[:t] += row
    return g_tok, g_pos


def dot(u, v):
    if np.shape(u) != np.shape(v):
        raise ValueError("different lengths")
    return np.vdot(u, v)


def norm(v):
    return np.linalg.norm(v)


def cosine_similarity(u, v):
    if np.shape(u) != np.shape(v):
        raise ValueError("different lengths")
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("zero vector")
    return np.vdot(u, v) / (nu * nv)
