"""andrea_gpu: the ANDREA-120M embedding contract computed by CUDA kernels.

Same contract as andrea_ref (the spec's ``contract:``), numpy arrays in and out:

* lookup, embed, embed_backward and cosine_similarity run the kernels of ``kernels/*.cu``;
* token_embedding_params, position_embedding_params, embedding_params, init_table, dot and
  norm have no kernel worth launching and are andrea_ref's;
* nearest_tokens(query, table, k) is the course's "which tokens are nearest" tool: cosine
  similarity of query rows against the whole table and the top k, on the device.

The kernels run on a CUDA device through CuPy when one exists, else on the CPU executor
(``andrea_gpu.executor``), which runs the same sources and also catches out-of-bounds
accesses and missing barriers. ``ANDREA_GPU_BACKEND=cuda|cpu`` forces a backend; the choice
is made at each call, so the variable can be changed at run time. See docs/gpu.md.
"""

from __future__ import annotations

from andrea_ref import (dot, embedding_params, init_table, norm, position_embedding_params,
                        token_embedding_params)

from .backend import backend_name, cuda_available, get_backend, kernel_source
from .ops import Engine

_ENGINES: dict[str, Engine] = {}


def engine(backend: str | None = None) -> Engine:
    """andrea_gpu's kernels bound to `backend` (default: the one in force, see backend_name)."""
    be = get_backend(backend)
    if be.name not in _ENGINES:
        _ENGINES[be.name] = Engine(be, kernel_source("embedding.cu"), "embedding.cu",
                                   cosine_source=kernel_source("cosine.cu"))
    return _ENGINES[be.name]


def lookup(table, token_ids):
    """Row i of `table` for each id i, bit for bit: shape ids.shape + (d_model,), table's dtype."""
    return engine().lookup(table, token_ids)


def embed(token_ids, token_table, position_table):
    """token_table[ids[..., t]] + position_table[t]: (T,) or (B, T) ids -> (..., T, d_model)."""
    return engine().embed(token_ids, token_table, position_table)


def embed_backward(token_ids, grad_out, vocab_size, context_length, deterministic=True):
    """(grad_token_table, grad_position_table) of `embed`.

    deterministic=True (default): sorted ids + segmented sum, bit-identical from run to run;
    False: the atomicAdd scatter (faster with many repeats on a GPU, last bits may vary).
    """
    return engine().embed_backward(token_ids, grad_out, vocab_size, context_length,
                                   deterministic=deterministic)


def cosine_similarity(u, v):
    """cos(theta) = u . v / (|u| |v|), in [-1, 1]; ValueError for a zero vector."""
    return engine().cosine_similarity(u, v)


def nearest_tokens(query, table, k=10):
    """Indices and cosine scores of the k table rows nearest each query row, best first."""
    return engine().nearest_tokens(query, table, k)


__all__ = [
    "token_embedding_params", "position_embedding_params", "embedding_params", "init_table",
    "lookup", "embed", "embed_backward", "dot", "norm", "cosine_similarity", "nearest_tokens",
    "backend_name", "cuda_available", "engine", "get_backend", "kernel_source",
]
