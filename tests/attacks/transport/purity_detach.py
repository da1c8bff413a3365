"""Hostile (a defeat device, tests/grade/test_attacks_transport.py): overwrite the arguments in the
worker's own address space after giving their pages private memory with the same bytes (mmap
MAP_FIXED|MAP_PRIVATE|MAP_ANONYMOUS, exactly what RegionView.release does), so the grader's shared
call region never sees the write.

No patching of the worker: its own word says "unchanged" because for region arrays it compares
each array with itself. In an ordinary in-process call the caller reads the same virtual
addresses, so this function DOES zero the caller's arrays; under grading it leaves the grader's
arrays as they were, as code that copies its arguments only when it is graded does. Expected of
the grader: the verdict describes what the call did to the grader's data (EMB-PURE-01 passes)
and the staff see a grader_tamper flag (`native`: ctypes, mmap) with file and line
(docs/grading.md, "Defeat devices and tamper flags").
"""

import ctypes
import mmap as _mm

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
PAGE = _mm.PAGESIZE
DETACHED = []


def _detach(v):
    """Private pages with the same bytes under v's memory (same virtual addresses)."""
    addr = v.__array_interface__["data"][0]
    lo = addr // PAGE * PAGE
    hi = -(-(addr + v.nbytes) // PAGE) * PAGE
    saved = ctypes.string_at(lo, hi - lo)
    got = _libc.mmap(lo, hi - lo, 3, 0x02 | 0x20 | 0x10, -1, 0)
    if got != lo:
        raise OSError("remap failed")
    ctypes.memmove(lo, saved, hi - lo)
    DETACHED.append(hi - lo)


def _scribble(*values):
    for v in values:
        if isinstance(v, np.ndarray) and v.flags.writeable and v.size:
            _detach(v)
            v[...] = 0


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
    out = table[_ids(token_ids, table.shape[0])]
    _scribble(table, token_ids)
    return out


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
    out = token_table[ids] + position_table[:t]
    _scribble(token_ids, token_table, position_table)
    return out


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
    _scribble(token_ids, grad_out)
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
