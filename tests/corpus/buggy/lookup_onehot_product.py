# bug: the lookup is a one-hot matrix product (arithmetic: -0.0 becomes 0.0, NaN and inf spread)
# fails: lookup_selects_row
def lookup(table, token_ids):
    ids = _ids(token_ids, table.shape[0])
    onehot = np.zeros((ids.size, table.shape[0]), dtype=table.dtype)
    onehot[np.arange(ids.size), ids.reshape(-1)] = 1
    with np.errstate(all="ignore"):
        return (onehot @ table).reshape(ids.shape + (table.shape[1],))
