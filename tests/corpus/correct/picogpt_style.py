"""Correct, picoGPT style (jaymody/picoGPT's gpt2.py): small functions over NumPy arrays named
as in GPT-2's checkpoint (wte, wpe), the embedding written as picoGPT writes it,
wte[inputs] + wpe[range(len(inputs))], applied to each sequence of a batch; the backward is
the transpose of the same indexing (np.add.at)."""

import numpy as np


def _n(x):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"expected an int, got {x!r}")
    if x < 1:
        raise ValueError(f"expected a positive int, got {x}")
    return int(x)


def token_embedding_params(vocab_size, d_model):
    return _n(vocab_size) * _n(d_model)


def position_embedding_params(context_length, d_model):
    return _n(context_length) * _n(d_model)


def embedding_params(vocab_size, context_length, d_model):
    n_vocab, n_ctx, n_embd = _n(vocab_size), _n(context_length), _n(d_model)
    return n_vocab * n_embd + n_ctx * n_embd     # wte + wpe (lm_head is separate: untied)


def init_table(num_rows, d_model, rng):
    n, n_embd = _n(num_rows), _n(d_model)
    return (rng.standard_normal((n, n_embd)) * n_embd ** -0.5).astype(np.float32)


def _inputs(inputs, n_vocab):
    inputs = np.asarray(inputs)
    if inputs.dtype.kind not in "iu":
        raise TypeError("inputs must be integer token ids")
    if inputs.size and (inputs.min() < 0 or inputs.max() >= n_vocab):
        raise IndexError("token id out of range of wte")
    return inputs


def lookup(table, token_ids):
    return table[_inputs(token_ids, table.shape[0])]


def _embed_one(inputs, wte, wpe):
    return wte[inputs] + wpe[range(len(inputs))]


def embed(token_ids, token_table, position_table):
    wte, wpe = token_table, position_table
    if wte.shape[1] != wpe.shape[1]:
        raise ValueError("wte and wpe have different n_embd")
    inputs = _inputs(token_ids, wte.shape[0])
    if inputs.ndim not in (1, 2):
        raise ValueError("inputs must be (n_seq,) or (batch, n_seq)")
    if inputs.shape[-1] > wpe.shape[0]:
        raise ValueError("n_seq is longer than n_ctx")
    if inputs.ndim == 1:
        return _embed_one(inputs, wte, wpe)
    out = np.empty(inputs.shape + (wte.shape[1],), dtype=np.result_type(wte, wpe))
    for b, seq in enumerate(inputs):
        out[b] = _embed_one(seq, wte, wpe)
    return out


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    inputs = _inputs(token_ids, vocab_size)
    if inputs.ndim not in (1, 2):
        raise ValueError("inputs must be (n_seq,) or (batch, n_seq)")
    n_seq = inputs.shape[-1]
    if n_seq > context_length:
        raise ValueError("n_seq is longer than n_ctx")
    if grad_out.ndim != inputs.ndim + 1 or grad_out.shape[:-1] != inputs.shape:
        raise ValueError("grad_out must have shape inputs.shape + (n_embd,)")
    n_embd = grad_out.shape[-1]
    dwte = np.zeros((vocab_size, n_embd), dtype=np.float32)
    dwpe = np.zeros((context_length, n_embd), dtype=np.float32)
    np.add.at(dwte, inputs.reshape(-1), grad_out.reshape(-1, n_embd))
    dwpe[:n_seq] = grad_out.reshape(-1, n_seq, n_embd).sum(axis=0)
    return dwte, dwpe


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("length mismatch")
    return float(np.asarray(u) @ np.asarray(v))


def norm(v):
    return float(np.sqrt(dot(v, v)))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("length mismatch")
    a, b = norm(u), norm(v)
    if a == 0 or b == 0:
        raise ValueError("zero vector")
    return dot(u, v) / (a * b)
