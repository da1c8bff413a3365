# -*- coding: utf-8 -*-
# Gemaakt op Windows — tabs, CRLF, BOM. Één bestand.
"""Correct, NumPy style, the course's formulas as written: fancy indexing for the lookup,
np.add.at for the backward, and the naive cosine dot / (norm * norm) in the vectors' own
dtype (float32 arithmetic for float32 vectors), without clipping to [-1, 1]."""

import numpy as np


def _size(value):
	if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
		raise TypeError("sizes must be integers")
	if value < 1:
		raise ValueError("sizes must be at least 1")
	return int(value)


def token_embedding_params(vocab_size, d_model):
	return _size(vocab_size) * _size(d_model)


def position_embedding_params(context_length, d_model):
	return _size(context_length) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
	return (_size(vocab_size) + _size(context_length)) * _size(d_model)


def init_table(num_rows, d_model, rng):
	shape = (_size(num_rows), _size(d_model))
	return (rng.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)


def _ids(token_ids, rows):
	ids = np.asarray(token_ids)
	if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
		raise TypeError("token ids must be integers")
	if ids.size and (ids.min() < 0 or ids.max() >= rows):
		raise IndexError("token id out of range")
	return ids


def lookup(table, token_ids):
	return table[_ids(token_ids, table.shape[0])]


def _sequence(ids, context):
	if ids.ndim not in (1, 2):
		raise ValueError("token ids must be (T,) or (B, T)")
	if ids.shape[-1] > context:
		raise ValueError("sequence longer than the context")
	return ids.shape[-1]


def embed(token_ids, token_table, position_table):
	if token_table.shape[1] != position_table.shape[1]:
		raise ValueError("d_model differs between the tables")
	ids = _ids(token_ids, token_table.shape[0])
	t = _sequence(ids, position_table.shape[0])
	return token_table[ids] + position_table[:t]


def embed_backward(token_ids, grad_out, vocab_size, context_length):
	ids = _ids(token_ids, vocab_size)
	t = _sequence(ids, context_length)
	if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
		raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
	d = grad_out.shape[-1]
	g_tok = np.zeros((vocab_size, d), dtype=np.float32)
	np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d))
	g_pos = np.zeros((context_length, d), dtype=np.float32)
	g_pos[:t] = grad_out.reshape(-1, t, d).sum(axis=0)
	return g_tok, g_pos


def dot(u, v):
	if len(u) != len(v):
		raise ValueError("vectors of different length")
	return float(np.dot(u, v))


def norm(v):
	return float(np.sqrt(np.dot(v, v)))


def cosine_similarity(u, v):
	if len(u) != len(v):
		raise ValueError("vectors of different length")
	nu, nv = np.sqrt(np.dot(u, u)), np.sqrt(np.dot(v, v))
	if nu == 0 or nv == 0:
		raise ValueError("the cosine of a zero vector is undefined")
	return float(np.dot(u, v) / (nu * nv))
