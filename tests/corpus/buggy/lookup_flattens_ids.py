# bug: lookup flattens the ids and forgets to restore their shape ((B, T) ids give (B*T, d_model))
# fails: lookup_shape_and_dtype
def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    return table[ids.reshape(-1)]
