# bug: embed unpacks B, T = ids.shape, so (T,) ids raise ValueError
# fails: spec_sizes_accepted, embed_adds_position_rows, embed_shapes, embed_keeps_float32, embed_not_permutation_equivariant, forward_pass_at_real_size
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    B, T = ids.shape
    if T > position_table.shape[0]:
        raise ValueError("sequence longer than the context")
    return token_table[ids] + position_table[:T]
