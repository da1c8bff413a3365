# bug: embed takes T from the first axis of the ids, so (B, T) ids get position b on row b
# fails: embed_adds_position_rows, embed_shapes
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    _sequence(ids, position_table.shape[0])
    t = ids.shape[0]
    pos = position_table[:t]
    if ids.ndim == 2:
        pos = pos[:, None, :]
    return token_table[ids] + pos
