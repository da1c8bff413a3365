# bug: the backward never checks grad_out's shape (a (B*T, d) or (T, d+1) gradient goes through or fails inside NumPy with another error)
# fails: backward_errors
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    ids = _ids(token_ids, vocab_size)
    t = _sequence(ids, context_length)
    d = grad_out.shape[-1]
    g_tok = np.zeros((vocab_size, d), dtype=np.float32)
    np.add.at(g_tok, ids.reshape(-1), grad_out.reshape(-1, d)[: ids.size])
    g_pos = np.zeros((context_length, d), dtype=np.float32)
    g_pos[:t] = grad_out.reshape(-1, t, d).sum(axis=0)
    return g_tok, g_pos
