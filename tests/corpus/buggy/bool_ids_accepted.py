# bug: boolean ids are accepted as 0 and 1
# fails: non_integer_ids
def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if not (ids.dtype == np.bool_ or np.issubdtype(ids.dtype, np.integer)):
        raise TypeError("token ids must be integers")
    ids = ids.astype(np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= rows):
        raise IndexError("token id out of range")
    return ids
