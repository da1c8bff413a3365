# bug: lookup returns float64 rows for a float32 table
# fails: lookup_shape_and_dtype
def lookup(table, token_ids):
    return table[_ids(token_ids, table.shape[0])].astype(np.float64)
