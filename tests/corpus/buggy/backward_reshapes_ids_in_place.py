# bug: the backward flattens the caller's ids in place (ids.shape = -1 on the array it was given)
# fails: backward_inputs_not_mutated
_correct_backward = embed_backward


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    g_tok, g_pos = _correct_backward(token_ids, grad_out, vocab_size, context_length)
    if isinstance(token_ids, np.ndarray):
        token_ids.shape = (-1,)
    return g_tok, g_pos
