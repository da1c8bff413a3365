# bug: float ids are rounded to integers instead of being rejected
# fails: non_integer_ids, backward_errors
_correct_ids = _ids


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind == "f":
        ids = ids.astype(np.int64)
    return _correct_ids(ids, rows)
