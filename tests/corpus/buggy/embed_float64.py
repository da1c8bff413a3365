# bug: embed returns float64
# fails: embed_keeps_float32
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    return token_table[ids].astype(np.float64) + position_table[:t]
