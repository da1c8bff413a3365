"""Correct, object style: an EmbeddingLayer class holds the logic; the contract functions are
thin wrappers. Vectors go through np.linalg.norm and np.vdot; the cosine is clipped."""

import operator

import numpy as np


class EmbeddingLayer:
    @staticmethod
    def size(value):
        if isinstance(value, (bool, np.bool_)):
            raise TypeError("a size is an integer, not a bool")
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError("a size is an integer") from None
        if value <= 0:
            raise ValueError("a size is at least 1")
        return value

    def __init__(self, token_table=None, position_table=None):
        self.token_table, self.position_table = token_table, position_table

    @staticmethod
    def ids(token_ids, rows):
        ids = np.asarray(token_ids)
        if ids.dtype.kind not in ("i", "u"):
            raise TypeError("token ids must be integers")
        if ids.size and not (0 <= int(ids.min()) and int(ids.max()) < rows):
            raise IndexError("token id out of range")
        return ids

    def forward(self, token_ids):
        tok, pos = self.token_table, self.position_table
        if tok.shape[1] != pos.shape[1]:
            raise ValueError("d_model differs")
        ids = self.ids(token_ids, tok.shape[0])
        if ids.ndim not in (1, 2):
            raise ValueError("ids must be (T,) or (B, T)")
        if ids.shape[-1] > pos.shape[0]:
            raise ValueError("longer than the context")
        out = tok[ids]
        out += pos[: ids.shape[-1]]
        return out

    @classmethod
    def backward(cls, token_ids, grad_out, vocab_size, context_length):
        ids = cls.ids(token_ids, vocab_size)
        if ids.ndim not in (1, 2) or ids.shape[-1] > context_length:
            raise ValueError("ids must be (T,) or (B, T) with T <= context")
        grad_out = np.asarray(grad_out)
        if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
            raise ValueError("grad_out shape")
        d = grad_out.shape[-1]
        onehot_counts = np.zeros((vocab_size, d), dtype=np.float64)
        for i, row in zip(ids.reshape(-1), grad_out.reshape(-1, d)):
            onehot_counts[i] += row
        b = grad_out.reshape(-1, ids.shape[-1], d)
        g_pos = np.zeros((context_length, d), dtype=np.float32)
        g_pos[: ids.shape[-1]] = b.sum(axis=0, dtype=np.float64)
        return onehot_counts.astype(np.float32), g_pos


def token_embedding_params(vocab_size, d_model):
    return EmbeddingLayer.size(vocab_size) * EmbeddingLayer.size(d_model)


def position_embedding_params(context_length, d_model):
    return EmbeddingLayer.size(context_length) * EmbeddingLayer.size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    d = EmbeddingLayer.size(d_model)
    return EmbeddingLayer.size(vocab_size) * d + EmbeddingLayer.size(context_length) * d


def init_table(num_rows, d_model, rng):
    rows, d = EmbeddingLayer.size(num_rows), EmbeddingLayer.size(d_model)
    return rng.standard_normal((rows, d), dtype=np.float32) * np.float32(1 / np.sqrt(d))


def lookup(table, token_ids):
    ids = EmbeddingLayer.ids(token_ids, table.shape[0])
    return table[ids]


def embed(token_ids, token_table, position_table):
    return EmbeddingLayer(token_table, position_table).forward(token_ids)


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    return EmbeddingLayer.backward(token_ids, grad_out, vocab_size, context_length)


def dot(u, v):
    if np.shape(u) != np.shape(v):
        raise ValueError("vectors of different length")
    return float(np.vdot(u, v))


def norm(v):
    return float(np.linalg.norm(v))


def cosine_similarity(u, v):
    if np.shape(u) != np.shape(v):
        raise ValueError("vectors of different length")
    nu, nv = norm(u), norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("undefined for a zero vector")
    return float(np.clip(dot(u, v) / (nu * nv), -1.0, 1.0))
