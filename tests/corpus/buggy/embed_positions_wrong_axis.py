# bug: embed lines the positions up with the first axis of the ids (right for (T,), wrong for (B, T))
# fails: embed_adds_position_rows
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    rows = token_table[ids]
    if ids.ndim == 2:
        return rows + position_table[:ids.shape[0]][:, None, :]
    return rows + position_table[:t]
