"""Correct, CS231n layers style: forward/backward functions with a cache, and a layer class
(Embedding, with W and its gradient dW) built on them, as in the course assignments'
layers.py; the contract functions call the layer. Tokens are counted with np.add.at (the
assignment's warning about dW[x] += dout for repeated indices), positions are a second
Embedding over arange(T)."""

import math

import numpy as np


def _check_size(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be positive, got {value}")
    return int(value)


def word_embedding_forward(x, W):
    """Inputs: x (N, T) or (T,) integer indices into W (V, D). Returns out, cache."""
    x = np.asarray(x)
    if x.dtype == np.bool_ or not np.issubdtype(x.dtype, np.integer):
        raise TypeError("word indices must be integers")
    V = W.shape[0]
    if x.size and (x.min() < 0 or x.max() >= V):
        raise IndexError(f"word index out of range [0, {V})")
    out = W[x]
    cache = (x, V)
    return out, cache


def word_embedding_backward(dout, cache):
    """Returns dW (V, D): the upstream gradient summed into the rows that were used."""
    x, V = cache
    dW = np.zeros((V, dout.shape[-1]), dtype=np.float32)
    np.add.at(dW, x.reshape(-1), dout.reshape(-1, dout.shape[-1]))
    return dW


class Embedding:
    """A lookup layer: forward(x) -> W[x]; backward(dout) -> dx is None, dW is kept."""

    def __init__(self, W):
        self.W = W
        self.cache = None
        self.dW = None

    def forward(self, x):
        out, self.cache = word_embedding_forward(x, self.W)
        return out

    def backward(self, dout):
        self.dW = word_embedding_backward(dout, self.cache)
        return None


def token_embedding_params(vocab_size, d_model):
    return _check_size(vocab_size, "vocab_size") * _check_size(d_model, "d_model")


def position_embedding_params(context_length, d_model):
    return _check_size(context_length, "context_length") * _check_size(d_model, "d_model")


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(
        context_length, d_model)


def init_table(num_rows, d_model, rng):
    n, d = _check_size(num_rows, "num_rows"), _check_size(d_model, "d_model")
    W = rng.standard_normal((n, d))
    W /= math.sqrt(d)
    return W.astype(np.float32)


def lookup(table, token_ids):
    return Embedding(table).forward(token_ids)


def _positions(x, context_length):
    x = np.asarray(x)
    if x.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (N, T)")
    T = x.shape[-1]
    if T > context_length:
        raise ValueError(f"sequence of {T} tokens is longer than the context ({context_length})")
    return T


def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("token and position tables have different D")
    words = Embedding(token_table).forward(token_ids)
    T = _positions(token_ids, position_table.shape[0])
    return words + Embedding(position_table).forward(np.arange(T))


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    x = np.asarray(token_ids)
    words = Embedding(np.zeros((vocab_size, 1), dtype=np.float32))
    words.forward(x)                       # range and type checks, and the cache
    T = _positions(x, context_length)
    if grad_out.shape != x.shape + grad_out.shape[-1:] or grad_out.ndim != x.ndim + 1:
        raise ValueError("dout must have shape x.shape + (D,)")
    words.backward(grad_out)
    pos = Embedding(np.zeros((context_length, 1), dtype=np.float32))
    pos.forward(np.broadcast_to(np.arange(T), x.shape))
    pos.backward(grad_out)
    return words.dW, pos.dW


def dot(u, v):
    if len(u) != len(v):
        raise ValueError("u and v must have the same length")
    return float(np.dot(u, v))


def norm(v):
    return math.sqrt(dot(v, v))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("u and v must have the same length")
    nu, nv = norm(u), norm(v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("cosine similarity of a zero vector")
    return dot(u, v) / (nu * nv)
