# bug: float32 draws divided by np.sqrt(d) (a NumPy float64 scalar) come back as float64
# fails: init_shape_and_dtype
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return rng.standard_normal(shape, dtype=np.float32) / np.sqrt(shape[1])
