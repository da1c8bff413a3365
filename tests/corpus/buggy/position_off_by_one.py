# bug: embed adds position rows 1..T instead of 0..T-1 (position_table[1:T+1])
# fails: embed_adds_position_rows, embed_shapes, embed_not_permutation_equivariant, forward_pass_at_real_size, spec_sizes_accepted
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    return token_table[ids] + position_table[1:t + 1]
