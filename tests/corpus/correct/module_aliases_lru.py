"""Correct, object style with module-level aliases: one EmbeddingLayer instance whose bound
methods are the contract functions; parameter counts memoised with functools.lru_cache (typed,
so 2 and 2.0 are different keys); init drawn in float32 straight from the generator and scaled
by a float32 factor; ids converted from any iterable (generators included)."""
import functools
import math
import numbers

import numpy as np


@functools.lru_cache(maxsize=None, typed=True)
def _count(*sizes):
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"size {s!r} is not an integer")
        if s < 1:
            raise ValueError(f"size {s!r} is below 1")
    return math.prod(int(s) for s in sizes)


class EmbeddingLayer:
    def token_embedding_params(self, vocab_size, d_model):
        return _count(vocab_size, d_model)

    def position_embedding_params(self, context_length, d_model):
        return _count(context_length, d_model)

    def embedding_params(self, vocab_size, context_length, d_model):
        return self.token_embedding_params(vocab_size, d_model) + \
            self.position_embedding_params(context_length, d_model)

    def init_table(self, num_rows, d_model, rng):
        _count(num_rows, d_model)
        x = rng.standard_normal((int(num_rows), int(d_model)), dtype=np.float32)
        x *= np.float32(1.0 / math.sqrt(d_model))
        return x

    @staticmethod
    def _ids(token_ids, rows):
        if not isinstance(token_ids, np.ndarray) and not isinstance(token_ids, (list, tuple)):
            token_ids = list(token_ids)
        ids = np.array(token_ids)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"token ids must be integers, not {ids.dtype}")
        bad = (ids < 0) | (ids >= rows)
        if bad.any():
            raise IndexError(f"token id {ids[bad].flat[0]} is outside 0..{rows - 1}")
        return ids

    def lookup(self, table, token_ids):
        return table[self._ids(token_ids, table.shape[0])]

    def embed(self, token_ids, token_table, position_table):
        if token_table.shape[-1] != position_table.shape[-1]:
            raise ValueError("the two tables have different d_model")
        ids = self._ids(token_ids, token_table.shape[0])
        if ids.ndim not in (1, 2):
            raise ValueError("ids must be (T,) or (B, T)")
        T = ids.shape[-1]
        if T > position_table.shape[0]:
            raise ValueError(f"T = {T} is longer than the context {position_table.shape[0]}")
        return self.lookup(token_table, ids) + self.lookup(position_table, np.arange(T))

    def embed_backward(self, token_ids, grad_out, vocab_size, context_length):
        ids = self._ids(token_ids, vocab_size)
        if ids.ndim not in (1, 2):
            raise ValueError("ids must be (T,) or (B, T)")
        T = ids.shape[-1]
        if T > context_length:
            raise ValueError("T longer than the context")
        grad_out = np.asarray(grad_out)
        if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1:
            raise ValueError(f"grad_out has shape {grad_out.shape}, ids {ids.shape}")
        d = grad_out.shape[-1]
        gt = np.zeros((vocab_size, d), np.float32)
        np.add.at(gt, ids, grad_out)
        gp = np.zeros((context_length, d), np.float32)
        gp[:T] = grad_out.reshape(-1, T, d).sum(0)
        return gt, gp

    def dot(self, u, v):
        if len(u) != len(v):
            raise ValueError("lengths differ")
        return float(sum(float(a) * float(b) for a, b in zip(u, v)))

    def norm(self, v):
        return math.sqrt(self.dot(v, v))

    def cosine_similarity(self, u, v):
        if len(u) != len(v):
            raise ValueError("lengths differ")
        nu, nv = self.norm(u), self.norm(v)
        if nu == 0.0 or nv == 0.0:
            raise ValueError("zero vector")
        return self.dot(u, v) / nu / nv


_layer = EmbeddingLayer()
token_embedding_params = _layer.token_embedding_params
position_embedding_params = _layer.position_embedding_params
embedding_params = _layer.embedding_params
init_table = _layer.init_table
lookup = _layer.lookup
embed = _layer.embed
embed_backward = _layer.embed_backward
dot = _layer.dot
norm = _layer.norm
cosine_similarity = _layer.cosine_similarity
