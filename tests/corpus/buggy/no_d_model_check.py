# bug: embed does not compare the tables' d_model (a one-column position table broadcasts)
# fails: d_model_mismatch
def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    return token_table[ids] + position_table[:t]
