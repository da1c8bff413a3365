"""Hostile (the reference): the contract's argument checks, read from the worker's own runtime.

andrea_runtime/validate.py holds the reference's argument checks: which exception each bad
input raises, and the reference's wording (the students' kit ships andrea_runtime without it).
A Python worker's runtime folder held the package whole, validate.py included, though only a
kernel's worker uses it: this submission finds the folder on the worker's own command line
(`--runtime <folder>`), compiles validate.py there as its own code, and wraps functions that
check nothing with it. Found in the sixth red-team round: every error check it answers passed (5 of 5),
with no line of the reference in the hand-in. It prints `VALIDATE-REPORT {...}`.

Expected: a Python worker's runtime has no validate.py (it is the kit's andrea_runtime, less
that file): the read fails, and the error checks fail as the bare functions deserve, in every
mode.
"""
import json
import os
import sys

import numpy as np

_v = None
_where = sys.argv[sys.argv.index("--runtime") + 1] if "--runtime" in sys.argv else ""
try:
    with open(os.path.join(_where, "andrea_runtime", "validate.py"), encoding="utf-8") as _f:
        _code = _f.read()
    _v = {}
    exec(compile(_code, "checks", "exec"), _v)
except (OSError, SyntaxError) as exc:
    _code = type(exc).__name__
print("VALIDATE-REPORT " + json.dumps({"read": _v is not None}))


def _sizes(**sizes):
    if _v is not None:
        for name, value in sizes.items():
            _v["size"](name, value)


def token_embedding_params(vocab_size, d_model):
    _sizes(vocab_size=vocab_size, d_model=d_model)
    return vocab_size * d_model


def position_embedding_params(context_length, d_model):
    _sizes(context_length=context_length, d_model=d_model)
    return context_length * d_model


def embedding_params(vocab_size, context_length, d_model):
    _sizes(vocab_size=vocab_size, context_length=context_length, d_model=d_model)
    return (vocab_size + context_length) * d_model


def lookup(table, token_ids):
    ids = _v["token_ids"](token_ids, np.shape(table)[0]) if _v else np.asarray(token_ids)
    return np.asarray(table)[ids]


def embed(token_ids, token_table, position_table):
    if _v is not None:
        ids, token_table, position_table, t, _ = _v["embed_args"](token_ids, token_table,
                                                                   position_table)
    else:
        ids = np.asarray(token_ids)
        t = ids.shape[-1]
    return token_table[ids] + position_table[:t]


def dot(u, v):
    if _v is not None:
        u, v = _v["vector"]("u", u), _v["vector"]("v", v)
        _v["same_length"](u, v)
    return float(np.dot(np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)))
