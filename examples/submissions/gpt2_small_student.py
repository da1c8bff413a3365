"""A correct submission to spec/gpt2-small.yaml, written the way nanoGPT does it: every table
drawn from N(0, 0.02²) whatever d_model, ids checked up front, the backward as np.add.at.

Under the GPT-2 spec it conforms; under ANDREA's spec (std 1/sqrt(d_model)) it does not, and
neither does ANDREA's reference under GPT-2's: the suite follows the spec file
(tests/specfile/test_gpt2_drives_suite.py).
"""

import numbers

import numpy as np

INIT_STD = 0.02  # GPT-2: torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)


def _size(name, n):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
    return int(n)


def token_embedding_params(vocab_size, d_model):
    return _size("vocab_size", vocab_size) * _size("d_model", d_model)


def position_embedding_params(context_length, d_model):
    return _size("context_length", context_length) * _size("d_model", d_model)


def embedding_params(vocab_size, context_length, d_model):
    # wte and wpe; lm_head shares wte's weights (tied), so it adds nothing.
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    shape = (_size("num_rows", num_rows), _size("d_model", d_model))
    return (INIT_STD * rng.standard_normal(shape)).astype(np.float32)


def _ids(token_ids, num_rows):
    idx = np.asarray(token_ids)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"token ids must be integers, got {idx.dtype}")
    bad = (idx < 0) | (idx >= num_rows)
    if bad.any():
        raise IndexError(f"token id {int(idx[bad].flat[0])} not in [0, {num_rows})")
    return idx


def lookup(table, token_ids):
    return np.take(table, _ids(token_ids, table.shape[0]), axis=0)


def _check_sequence(idx, context_length):
    if idx.ndim not in (1, 2):
        raise ValueError(f"ids must be (T,) or (B, T), got {idx.shape}")
    if idx.shape[-1] > context_length:
        raise ValueError(f"sequence of {idx.shape[-1]} is longer than the block size "
                         f"{context_length}")


def embed(token_ids, token_table, position_table):
    wte, wpe = np.asarray(token_table), np.asarray(position_table)
    if wte.shape[1] != wpe.shape[1]:
        raise ValueError("wte and wpe must have the same n_embd")
    idx = _ids(token_ids, wte.shape[0])
    _check_sequence(idx, wpe.shape[0])
    t = idx.shape[-1]
    return wte[idx] + wpe[:t]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    vocab_size = _size("vocab_size", vocab_size)
    context_length = _size("context_length", context_length)
    idx = _ids(token_ids, vocab_size)
    _check_sequence(idx, context_length)
    grad_out = np.asarray(grad_out)
    if grad_out.shape[:-1] != idx.shape or grad_out.ndim != idx.ndim + 1:
        raise ValueError(f"grad_out has shape {grad_out.shape}, ids {idx.shape}")
    d = grad_out.shape[-1]
    g = grad_out.reshape(-1, idx.shape[-1], d).astype(np.float64)
    grad_wte = np.zeros((vocab_size, d))
    np.add.at(grad_wte, idx.reshape(-1), g.reshape(-1, d))
    grad_wpe = np.zeros((context_length, d))
    grad_wpe[: idx.shape[-1]] = g.sum(axis=0)
    return grad_wte.astype(np.float32), grad_wpe.astype(np.float32)


def _vectors(*vs):
    out = [np.asarray(v, dtype=np.float64) for v in vs]
    if any(v.ndim != 1 for v in out):
        raise ValueError("vectors must be 1-D")
    if len({v.shape for v in out}) > 1:
        raise ValueError("vectors must have the same length")
    return out


def dot(u, v):
    u, v = _vectors(u, v)
    return float(np.dot(u, v))


def norm(v):
    (v,) = _vectors(v)
    return float(np.linalg.norm(v))


def cosine_similarity(u, v):
    u, v = _vectors(u, v)
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("cosine similarity of a zero vector is undefined")
    return float(np.clip(np.dot(u / nu, v / nv), -1.0, 1.0))
