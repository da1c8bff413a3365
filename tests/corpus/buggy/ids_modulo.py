# bug: ids at or past the vocabulary wrap around modulo its size (negative ids are refused)
# fails: out_of_range_ids, backward_errors
def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("token ids must be integers")
    if ids.size and ids.min() < 0:
        raise IndexError("token id out of range")
    return ids % rows
