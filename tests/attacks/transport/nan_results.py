"""Hostile (NaN-boxing): every value it returns is NaN (the counts, the tables, the lookup, the
embedding, the gradients, dot, norm and cosine), with the right shapes and dtypes.

NaN compares unequal to everything, itself included, so a check that fails when two results
are *equal* passes on NaN: embed_not_permutation_equivariant asked whether embed(ids[perm])
equals embed(ids)[perm] and, on all-NaN outputs, found them different, earning the clause's
points for an embed that computes nothing.

Expected: every value check fails (a NaN is never within a tolerance, nor bit for bit the
expected value), and so does embed_not_permutation_equivariant (NaN rows permuted are the
same NaN rows). Only the shape, dtype and purity checks may pass.
"""
import numpy as np
NAN = float("nan")

def token_embedding_params(vocab_size, d_model): return NAN
def position_embedding_params(context_length, d_model): return NAN
def embedding_params(vocab_size, context_length, d_model): return NAN
def init_table(rows, cols, rng, dtype=np.float32):
    return np.full((rows, cols), np.nan, dtype=dtype)
def lookup(table, token_ids):
    ids = np.asarray(token_ids)
    return np.full(ids.shape + (table.shape[1],), np.nan, dtype=table.dtype)
def embed(token_ids, token_table, position_table):
    ids = np.asarray(token_ids)
    return np.full(ids.shape + (token_table.shape[1],), np.nan, dtype=np.float32)
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    d = np.asarray(grad_out).shape[-1]
    return np.full((vocab_size, d), np.nan, np.float32), np.full((context_length, d), np.nan, np.float32)
def dot(u, v): return NAN
def norm(v): return NAN
def cosine_similarity(u, v): return NAN
