# bug: the table is float64
# fails: init_shape_and_dtype
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return rng.standard_normal(shape) / np.sqrt(shape[1])
