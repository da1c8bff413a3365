# bug: the ids go through float16 (a "memory saving" cast), so ids above 2048 are rounded to a neighbour
# fails: spec_sizes_accepted
def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    return table[ids.astype(np.float16).astype(np.int64).clip(0, table.shape[0] - 1)]
