# bug: a float size is truncated instead of being a TypeError
# fails: param_count_errors, init_size_errors
def _size(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer)):
        raise TypeError("sizes must be numbers")
    if value < 1:
        raise ValueError("sizes must be at least 1")
    return int(value)
