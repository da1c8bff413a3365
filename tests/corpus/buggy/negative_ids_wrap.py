# bug: only the upper bound is checked, so id -1 wraps around to the last row
# fails: out_of_range_ids, backward_errors
def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("token ids must be integers")
    if ids.size and ids.max() >= rows:
        raise IndexError("token id out of range")
    return ids
