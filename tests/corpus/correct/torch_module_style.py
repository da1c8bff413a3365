"""Correct, PyTorch-module style without torch: a small Module base class with parameters(),
an Embedding layer holding `weight`, a PositionalEmbedding, a wrapper module combining them;
the contract functions are module-level wrappers that build a layer around the tables they
are given. Type hints with `from __future__ import annotations`, NDArray, Final, __all__."""
from __future__ import annotations

import math
from typing import Final, Iterator, Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["token_embedding_params", "position_embedding_params", "embedding_params",
           "init_table", "lookup", "embed", "embed_backward", "dot", "norm",
           "cosine_similarity"]

VOCAB_SIZE: Final[int] = 8449
D_MODEL: Final[int] = 768
CONTEXT: Final[int] = 1024
FloatArray = NDArray[np.float32]


def _as_size(x: object, what: str) -> int:
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} must be an int, not bool")
    if not isinstance(x, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {type(x).__name__}")
    if x < 1:
        raise ValueError(f"{what} must be positive, got {x}")
    return int(x)


class Module:
    training: bool = True

    def parameters(self) -> Iterator[np.ndarray]:
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                yield value
            elif isinstance(value, Module):
                yield from value.parameters()

    def num_parameters(self) -> int:
        return sum(p.size for p in self.parameters())

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v.shape}" for k, v in vars(self).items()
                          if isinstance(v, np.ndarray))
        return f"{type(self).__name__}({inner})"


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int,
                 rng: np.random.Generator | None = None,
                 weight: np.ndarray | None = None) -> None:
        self.num_embeddings = _as_size(num_embeddings, "num_embeddings")
        self.embedding_dim = _as_size(embedding_dim, "embedding_dim")
        if weight is None:
            if rng is None:
                rng = np.random.default_rng()
            weight = self.reset_parameters(rng)
        self.weight = weight

    @classmethod
    def from_pretrained(cls, weight: np.ndarray) -> "Embedding":
        return cls(weight.shape[0], weight.shape[1], weight=weight)

    def reset_parameters(self, rng: np.random.Generator) -> FloatArray:
        std = 1.0 / math.sqrt(self.embedding_dim)
        w = rng.normal(loc=0.0, scale=std, size=(self.num_embeddings, self.embedding_dim))
        return w.astype(np.float32)

    @staticmethod
    def _check_ids(ids: ArrayLike, rows: int) -> np.ndarray:
        idx = np.asarray(ids)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"token ids must be integers, got dtype {idx.dtype}")
        if idx.size:
            lo, hi = int(idx.min()), int(idx.max())
            if lo < 0 or hi >= rows:
                raise IndexError(f"token id out of range [0, {rows}): {lo if lo < 0 else hi}")
        return idx

    def forward(self, ids: ArrayLike) -> np.ndarray:
        idx = self._check_ids(ids, self.num_embeddings)
        return self.weight[idx]

    def backward(self, ids: ArrayLike, grad: np.ndarray) -> FloatArray:
        idx = self._check_ids(ids, self.num_embeddings)
        dW = np.zeros((self.num_embeddings, grad.shape[-1]), dtype=np.float32)
        np.add.at(dW, idx.ravel(), grad.reshape(-1, grad.shape[-1]))
        return dW


class TokenAndPosition(Module):
    def __init__(self, wte: Embedding, wpe: Embedding) -> None:
        if wte.embedding_dim != wpe.embedding_dim:
            raise ValueError("token and position tables need the same d_model")
        self.wte = wte
        self.wpe = wpe

    def _length(self, idx: np.ndarray) -> int:
        if idx.ndim not in (1, 2):
            raise ValueError(f"expected ids of shape (T,) or (B, T), got {idx.shape}")
        T = idx.shape[-1]
        if T > self.wpe.num_embeddings:
            raise ValueError(f"sequence of length {T} > block size {self.wpe.num_embeddings}")
        return T

    def forward(self, ids: ArrayLike) -> np.ndarray:
        idx = Embedding._check_ids(ids, self.wte.num_embeddings)
        T = self._length(idx)
        pos = np.arange(T)
        tok_emb = self.wte(idx)          # (B, T, C) or (T, C)
        pos_emb = self.wpe(pos)          # (T, C)
        return tok_emb + pos_emb

    def backward(self, ids: ArrayLike, grad_out: np.ndarray) -> Tuple[FloatArray, FloatArray]:
        idx = Embedding._check_ids(ids, self.wte.num_embeddings)
        T = self._length(idx)
        if grad_out.shape[:-1] != idx.shape or grad_out.ndim != idx.ndim + 1:
            raise ValueError(f"grad_out has shape {grad_out.shape}, ids {idx.shape}")
        d_wte = self.wte.backward(idx, grad_out)
        d_wpe = np.zeros((self.wpe.num_embeddings, grad_out.shape[-1]), dtype=np.float32)
        d_wpe[:T] = grad_out.reshape(-1, T, grad_out.shape[-1]).sum(axis=0)
        return d_wte, d_wpe


# ---------------------------------------------------------------- the assignment's API
def token_embedding_params(vocab_size: int, d_model: int) -> int:
    return _as_size(vocab_size, "vocab_size") * _as_size(d_model, "d_model")


def position_embedding_params(context_length: int, d_model: int) -> int:
    return _as_size(context_length, "context_length") * _as_size(d_model, "d_model")


def embedding_params(vocab_size: int, context_length: int, d_model: int) -> int:
    return (token_embedding_params(vocab_size, d_model)
            + position_embedding_params(context_length, d_model))


def init_table(num_rows: int, d_model: int, rng: np.random.Generator) -> FloatArray:
    return Embedding(num_rows, d_model, rng=rng).weight


def lookup(table: np.ndarray, token_ids: ArrayLike) -> np.ndarray:
    return Embedding.from_pretrained(table)(token_ids)


def embed(token_ids: ArrayLike, token_table: np.ndarray, position_table: np.ndarray) -> np.ndarray:
    layer = TokenAndPosition(Embedding.from_pretrained(token_table),
                             Embedding.from_pretrained(position_table))
    return layer(token_ids)


def embed_backward(token_ids: ArrayLike, grad_out: np.ndarray, vocab_size: int,
                   context_length: int) -> Tuple[FloatArray, FloatArray]:
    V, T = _as_size(vocab_size, "vocab_size"), _as_size(context_length, "context_length")
    d = grad_out.shape[-1]
    layer = TokenAndPosition(Embedding(V, d, weight=np.empty((0, d), np.float32)),
                             Embedding(T, d, weight=np.empty((0, d), np.float32)))
    return layer.backward(token_ids, grad_out)


def dot(u: np.ndarray, v: np.ndarray) -> float:
    if u.shape != v.shape:
        raise ValueError(f"shapes {u.shape} and {v.shape} differ")
    return float(u @ v)


def norm(v: np.ndarray) -> float:
    return math.sqrt(dot(v, v))


def cosine_similarity(u: np.ndarray, v: np.ndarray) -> float:
    nu, nv = norm(u), norm(v)
    if u.shape != v.shape:
        raise ValueError("vectors must have the same length")
    if nu == 0.0 or nv == 0.0:
        raise ValueError("cosine similarity of a zero vector is undefined")
    return dot(u, v) / (nu * nv)


if __name__ == "__main__":
    rng = np.random.default_rng(42)
    layer = TokenAndPosition(Embedding(VOCAB_SIZE, D_MODEL, rng), Embedding(CONTEXT, D_MODEL, rng))
    print(layer, layer.num_parameters())
    x = layer(np.array([[256, 1842, 7301]]))
    print(x.shape, x.dtype)
