# bug: embed range-checks the ids against the position table's rows instead of the token table's
# fails: embed_adds_position_rows, embed_shapes, embed_keeps_float32, embed_not_permutation_equivariant, forward_pass_at_real_size
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, position_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    return token_table[ids] + position_table[:t]
