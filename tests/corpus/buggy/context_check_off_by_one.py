# bug: a sequence of exactly context_length ids is refused (T >= context instead of T > context)
# fails: spec_sizes_accepted, embed_adds_position_rows, embed_shapes, embed_keeps_float32, embed_not_permutation_equivariant, forward_pass_at_real_size, token_gradient_scatter_add, token_gradient_zero_rows, position_gradient_batch_sum, position_gradient_zero_past_t, gradient_shapes
def _sequence(ids, context):
    if ids.ndim not in (1, 2):
        raise ValueError("token ids must be (T,) or (B, T)")
    if ids.shape[-1] >= context:
        raise ValueError("sequence longer than the context")
    return ids.shape[-1]
