# bug: embed adds the positions into the caller's token table in place
# fails: inputs_not_mutated
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    t = _sequence(ids, position_table.shape[0])
    out = token_table[ids]
    out += position_table[:t]
    token_table[ids] = out
    return out
