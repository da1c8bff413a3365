# bug: embed adds the token rows into the position table's own rows (in place) and returns them
# fails: inputs_not_mutated
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    if ids.ndim == 1:
        out = position_table[:t]
        out += token_table[ids]
        return out
    return token_table[ids] + position_table[:t]
