# bug: the backward sorts the caller's ids in place (a mutation, and the rows no longer match)
# fails: inputs_not_mutated, token_gradient_scatter_add
_correct_backward = embed_backward


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    token_ids.sort(axis=-1)
    return _correct_backward(token_ids, grad_out, vocab_size, context_length)
