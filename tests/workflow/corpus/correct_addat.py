"""Independent correct submission (flag corpus): np.add.at, einsum, validation up front."""
import numpy as np


def _positive_int(label, n):
    if type(n) is bool or not isinstance(n, (int, np.integer)):
        raise TypeError(label + " should be an integer")
    if n < 1:
        raise ValueError(label + " should be >= 1")
    return int(n)


def token_embedding_params(vocab_size, d_model):
    V, D = _positive_int("vocab_size", vocab_size), _positive_int("d_model", d_model)
    return V * D


def position_embedding_params(context_length, d_model):
    C, D = _positive_int("context_length", context_length), _positive_int("d_model", d_model)
    return C * D


def embedding_params(vocab_size, context_length, d_model):
    total = token_embedding_params(vocab_size, d_model)
    total += position_embedding_params(context_length, d_model)
    return total


def init_table(num_rows, d_model, rng):
    shape = (_positive_int("num_rows", num_rows), _positive_int("d_model", d_model))
    z = rng.standard_normal(shape)
    return (z * d_model ** -0.5).astype(np.float32)


def _valid_ids(ids, n_rows):
    arr = np.asarray(ids)
    if arr.dtype.kind not in "iu":
        raise TypeError("ids need an integer dtype, not " + str(arr.dtype))
    bad = (arr < 0) | (arr >= n_rows)
    if bad.any():
        raise IndexError("id outside [0, %d)" % n_rows)
    return arr


def lookup(table, token_ids):
    idx = _valid_ids(token_ids, table.shape[0])
    return np.take(table, idx.astype(np.intp), axis=0)


def embed(token_ids, token_table, position_table):
    idx = _valid_ids(token_ids, token_table.shape[0])
    if token_table.shape[-1] != position_table.shape[-1]:
        raise ValueError("d_model of the two tables differs")
    if idx.ndim not in (1, 2):
        raise ValueError("ids must have shape (T,) or (B, T)")
    seq = idx.shape[-1]
    if seq > position_table.shape[0]:
        raise ValueError("too many positions for the position table")
    tok = np.take(token_table, idx.astype(np.intp), axis=0).astype(np.float32)
    return tok + position_table[:seq].astype(np.float32)


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    idx = _valid_ids(token_ids, vocab_size)
    if idx.ndim not in (1, 2):
        raise ValueError("ids must have shape (T,) or (B, T)")
    seq = idx.shape[-1]
    if seq > context_length:
        raise ValueError("sequence is longer than the context")
    g = np.asarray(grad_out)
    if g.ndim != idx.ndim + 1 or g.shape[:-1] != idx.shape:
        raise ValueError("grad_out does not match the ids")
    width = g.shape[-1]
    flat_ids = idx.reshape(-1)
    flat_g = g.reshape(-1, width).astype(np.float64)
    d_tok = np.zeros((vocab_size, width), dtype=np.float64)
    np.add.at(d_tok, flat_ids, flat_g)
    d_pos = np.zeros((context_length, width), dtype=np.float64)
    d_pos[:seq] = g.reshape(-1, seq, width).astype(np.float64).sum(axis=0)
    return d_tok.astype(np.float32), d_pos.astype(np.float32)


def dot(u, v):
    a, b = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("vectors differ in length")
    return float(np.einsum("i,i->", a, b))


def norm(v):
    a = np.asarray(v, dtype=np.float64)
    return float(np.sqrt(np.einsum("i,i->", a, a)))


def cosine_similarity(u, v):
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("cosine of a zero vector")
    c = dot(u, v) / (nu * nv)
    return float(min(1.0, max(-1.0, c)))
