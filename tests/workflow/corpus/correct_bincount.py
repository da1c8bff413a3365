"""Independent correct submission (flag corpus): written like a notebook, bincount backward."""
import math
import numpy as np

def check_count(x, what):
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)): raise TypeError(what)
    if x < 1: raise ValueError(what)
    return int(x)

token_embedding_params = lambda V, d: check_count(V, "V") * check_count(d, "d")
position_embedding_params = lambda T, d: check_count(T, "T") * check_count(d, "d")

def embedding_params(vocab_size, context_length, d_model):
    return sum([token_embedding_params(vocab_size, d_model),
                position_embedding_params(context_length, d_model)])

def init_table(num_rows, d_model, rng):
    n, d = check_count(num_rows, "rows"), check_count(d_model, "d_model")
    W = rng.normal(loc=0.0, scale=1 / math.sqrt(d), size=n * d)
    return W.reshape(n, d).astype("float32")

def ids_ok(ids, V):
    ids = np.asarray(ids)
    if not np.issubdtype(ids.dtype, np.integer): raise TypeError("integer ids please")
    if ids.size and not (0 <= ids.min() and ids.max() < V): raise IndexError("bad id")
    return ids

def lookup(table, token_ids):
    ids = ids_ok(token_ids, len(table))
    return table[ids.reshape(-1)].reshape(*ids.shape, table.shape[1])

def embed(token_ids, token_table, position_table):
    ids = ids_ok(token_ids, len(token_table))
    if ids.ndim < 1 or ids.ndim > 2: raise ValueError("shape")
    if token_table.shape[1] != position_table.shape[1]: raise ValueError("d_model")
    T = ids.shape[-1]
    if T > len(position_table): raise ValueError("context")
    out = lookup(token_table, ids).astype(np.float32)
    out += position_table[:T].astype(np.float32)
    return out

def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = ids_ok(token_ids, vocab_size)
    if ids.ndim not in (1, 2): raise ValueError("shape")
    T = ids.shape[-1]
    if T > context_length: raise ValueError("context")
    if grad_out.shape[:-1] != ids.shape or grad_out.ndim != ids.ndim + 1: raise ValueError("grad")
    d = grad_out.shape[-1]
    G = grad_out.reshape(-1, d).astype(np.float64)
    flat = ids.reshape(-1)
    g_tok = np.stack([np.bincount(flat, weights=G[:, j], minlength=vocab_size) for j in range(d)], 1) if d else np.zeros((vocab_size, 0))
    g_pos = np.zeros((context_length, d))
    g_pos[:T] = grad_out.reshape(-1, T, d).astype(np.float64).sum(0)
    return g_tok.astype(np.float32).reshape(vocab_size, d), g_pos.astype(np.float32)

def dot(u, v):
    if len(u) != len(v): raise ValueError("length")
    return math.fsum(float(a) * float(b) for a, b in zip(u, v))

def norm(v):
    return math.sqrt(math.fsum(float(a) * float(a) for a in v))

def cosine_similarity(u, v):
    if norm(u) == 0 or norm(v) == 0: raise ValueError("zero vector")
    return max(-1.0, min(1.0, dot(u, v) / (norm(u) * norm(v))))
