# bug: the backward adds each sequence with a fancy-index += (repeated ids within one sequence keep only the last; across sequences they add)
# fails: token_gradient_scatter_add
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    for row, g in zip(ids.reshape(-1, t), grad_out.reshape(-1, t, d)):
        g_tok[row] += g
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = grad_out.reshape(-1, t, d).sum(axis=0)
    return g_tok, g_pos
