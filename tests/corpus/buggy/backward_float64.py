# bug: the gradients are float64
# fails: gradient_shapes
_correct_backward = embed_backward


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    g_tok, g_pos = _correct_backward(token_ids, grad_out, vocab_size, context_length)
    return g_tok.astype(np.float64), g_pos.astype(np.float64)
