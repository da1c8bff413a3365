# bug: for (B, T) ids embed adds the positions to the first sequence of the batch only
# fails: embed_adds_position_rows
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    out = token_table[ids]
    if ids.ndim == 2:
        out[0] += position_table[:t]
        return out
    return out + position_table[:t]
