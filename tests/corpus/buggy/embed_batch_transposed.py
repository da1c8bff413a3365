# bug: embed returns (T, B, d_model) for (B, T) ids (batch and time axes swapped)
# fails: embed_adds_position_rows, embed_shapes
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    x = token_table[ids] + position_table[:t]
    return np.swapaxes(x, 0, 1) if x.ndim == 3 else x
