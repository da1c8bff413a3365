# bug: sequence b of a batch takes its positions from row b onwards (position_table[b:b+T])
# fails: embed_adds_position_rows
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    x = token_table[ids]
    if ids.ndim == 1:
        return x + position_table[:t]
    for b in range(ids.shape[0]):
        pos = position_table[b:b + t]
        x[b, :len(pos)] += pos
    return x
