# bug: init_table caches the first table drawn for a shape, so later calls ignore the generator
# fails: init_reproducible_from_rng
_tables = {}


def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    if shape not in _tables:
        _tables[shape] = (rng.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)
    return _tables[shape].copy()
