# bug: the position gradient sums over the time axis instead of the batch axis (its rows 0..B-1 are filled, past T when B > T)
# fails: position_gradient_batch_sum, position_gradient_zero_past_t
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d))
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    if grad_out.ndim == 3:
        s = grad_out.sum(axis=1)
        g_pos[:min(len(s), context_length)] = s[:context_length]
    else:
        g_pos[:t] = grad_out
    return g_tok, g_pos
