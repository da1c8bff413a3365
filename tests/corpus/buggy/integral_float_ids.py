# bug: float ids that are whole numbers (3.0) are accepted as ints; others are refused
# fails: non_integer_ids, backward_errors
_correct_ids = _ids


def _ids(token_ids, rows):
    ids = np.asarray(token_ids)
    if ids.dtype.kind == "f" and np.all(np.isfinite(ids)) and np.all(ids == np.round(ids)):
        ids = ids.astype(np.int64)
    return _correct_ids(ids, rows)
