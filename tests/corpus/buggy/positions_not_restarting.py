# bug: embed numbers positions across the whole batch (0..B*T-1) instead of restarting at 0 in each row
# fails: embed_adds_position_rows
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    _sequence(ids, position_table.shape[0])
    positions = np.arange(ids.size).reshape(ids.shape) % position_table.shape[0]
    return token_table[ids] + position_table[positions]
