# bug: the backward sorts the caller's ids in place (a mutation, and the rows no longer match)
# fails: token_gradient_scatter_add, backward_inputs_not_mutated
_correct_backward = embed_backward


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    token_ids.sort(axis=-1)
    return _correct_backward(token_ids, grad_out, vocab_size, context_length)
