# bug: embed_backward returns (grad_position_table, grad_token_table), the pair in the wrong order
# fails: token_gradient_scatter_add, token_gradient_zero_rows, position_gradient_batch_sum, position_gradient_zero_past_t, gradient_shapes
_correct_backward = embed_backward


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    g_tok, g_pos = _correct_backward(token_ids, grad_out, vocab_size, context_length)
    return g_pos, g_tok
