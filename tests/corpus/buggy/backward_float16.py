# bug: the token gradient is accumulated in float16 (to save memory) and returned as float32
# fails: token_gradient_scatter_add
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float16)
    np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d).astype(np.float16))
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = grad_out.reshape(-1, t, d).sum(axis=0)
    return g_tok.astype(np.float32), g_pos
