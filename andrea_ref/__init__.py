"""andrea_ref: the NumPy reference implementation of the ANDREA-120M embedding contract.

It implements every function of the submission contract (``contract:`` in
spec/andrea-120m.yaml; sizes are arguments, never constants here), including the optional
sinusoidal and RoPE encodings the course compares against, and passes the whole conformance
suite: ``andrea-conform andrea_ref``.
"""

from .embedding import (embed, embed_backward, embedding_params, init_table,
                        lookup, position_embedding_params, token_embedding_params)
from .positions import rope, sinusoidal_encoding
from .vectors import cosine_similarity, dot, norm

__all__ = [
    "token_embedding_params", "position_embedding_params", "embedding_params",
    "init_table", "lookup", "embed", "embed_backward", "dot", "norm", "cosine_similarity",
    "sinusoidal_encoding", "rope",
]
