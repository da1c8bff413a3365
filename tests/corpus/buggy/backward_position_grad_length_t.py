# bug: the position gradient has T rows (the sequence) instead of context_length rows
# fails: position_gradient_batch_sum, position_gradient_zero_past_t, gradient_shapes
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    if grad_out.ndim != ids.ndim + 1 or grad_out.shape[:-1] != ids.shape:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d))
    return g_tok, grad_out.reshape(-1, t, d).sum(axis=0).astype(np.float32)
