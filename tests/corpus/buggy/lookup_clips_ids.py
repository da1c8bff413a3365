# bug: out-of-range ids are clipped to the nearest row (np.take mode='clip') instead of raising
# fails: out_of_range_ids, backward_errors
def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError("token ids must be integers")
    return np.clip(ids, 0, rows - 1)
