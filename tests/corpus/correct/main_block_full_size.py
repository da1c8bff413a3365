"""Correct, script style: constants of the model at the top, the full-size tables built at
import (as the assignment's demo does), a __main__ block with argparse, prints and a
matplotlib figure, and the contract functions in between; the backward counts with
np.bincount per column and builds the position gradient with np.add.reduce."""
import argparse
import math
import sys

import numpy as np

V = 8449
D_MODEL = 768
T_MAX = 1024

RNG = np.random.default_rng(2024)


def _size(x):
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"expected an int, got {x!r}")
    if x < 1:
        raise ValueError(f"expected a positive int, got {x!r}")
    return int(x)


def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
    return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return (_size(vocab_size) + _size(context_length)) * _size(d_model)


def init_table(num_rows, d_model, rng):
    rows, cols = _size(num_rows), _size(d_model)
    return rng.normal(0, 1 / math.sqrt(cols), (rows, cols)).astype("float32")


TOKEN_TABLE = init_table(V, D_MODEL, RNG)
POSITION_TABLE = init_table(T_MAX, D_MODEL, RNG)
print(f"token table {TOKEN_TABLE.shape}, position table {POSITION_TABLE.shape}")
print(f"{embedding_params(V, T_MAX, D_MODEL):,} embedding parameters")


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype == bool or ids.dtype.kind not in "iu":
        raise TypeError("token ids must be integers")
    if ((ids < 0) | (ids >= rows)).any():
        raise IndexError("token id out of range")
    return ids


def lookup(table, token_ids):
    return table[_ids(token_ids, len(table))]


def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, len(token_table))
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("tables have different d_model")
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    T = ids.shape[-1]
    if T > len(position_table):
        raise ValueError("sequence too long")
    return token_table[ids] + position_table[np.arange(T)]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    T = ids.shape[-1]
    if T > context_length:
        raise ValueError("sequence too long")
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out has the wrong shape")
    d = grad_out.shape[-1]
    flat_ids = ids.reshape(-1)
    flat_g = grad_out.reshape(-1, d).astype(np.float64)
    g_tok = np.stack([np.bincount(flat_ids, weights=flat_g[:, j], minlength=vocab_size)
                      for j in range(d)], axis=1).astype(np.float32)
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:T] = np.add.reduce(grad_out.reshape(-1, T, d), axis=0)
    return g_tok, g_pos


def dot(u, v):
    if u.shape != v.shape:
        raise ValueError("shape mismatch")
    return float(sum(float(a) * float(b) for a, b in zip(u, v)))


def norm(v):
    return math.sqrt(dot(v, v))


def cosine_similarity(u, v):
    if u.shape != v.shape:
        raise ValueError("shape mismatch")
    if not np.any(u) or not np.any(v):
        raise ValueError("zero vector")
    return dot(u, v) / (norm(u) * norm(v))


def main(argv=None):
    p = argparse.ArgumentParser(description="embedding demo")
    p.add_argument("--plot", action="store_true")
    p.add_argument("ids", nargs="*", type=int, default=[256, 1842, 7301])
    args = p.parse_args(argv)
    x = embed(np.array(args.ids), TOKEN_TABLE, POSITION_TABLE)
    print(x.shape, x.dtype, float(x.std()))
    print("cos(cat, dog) =", cosine_similarity(TOKEN_TABLE[args.ids[0]], TOKEN_TABLE[args.ids[1]]))
    if args.plot:
        import matplotlib.pyplot as plt
        plt.hist(TOKEN_TABLE.ravel(), bins=100)
        plt.title("init")
        plt.show()
    return 0


if __name__ == "__main__":
    sys.exit(main())
