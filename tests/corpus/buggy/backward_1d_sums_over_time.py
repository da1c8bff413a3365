# bug: the position gradient is grad_out.sum(axis=0) whatever the ids' shape, so for (T,) ids it sums over time
# fails: position_gradient_batch_sum
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d))
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = grad_out.sum(axis=0)
    return g_tok, g_pos
