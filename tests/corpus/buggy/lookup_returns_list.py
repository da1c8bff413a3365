# bug: lookup returns a nested Python list (table[ids].tolist()) instead of an array
# fails: lookup_shape_and_dtype
def lookup(table, token_ids):
    return table[_ids(token_ids, table.shape[0])].tolist()
