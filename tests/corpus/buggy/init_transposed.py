# bug: init_table returns a (d_model, num_rows) table
# fails: init_shape_and_dtype
def init_table(num_rows, d_model, rng):
    shape = (_size(d_model), _size(num_rows))
    return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
