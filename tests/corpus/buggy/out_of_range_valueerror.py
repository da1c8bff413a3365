# bug: an id out of range raises ValueError instead of IndexError (wrong exception)
# fails: out_of_range_ids, backward_errors
def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("token ids must be integers")
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise ValueError("token id out of range")
    return ids
