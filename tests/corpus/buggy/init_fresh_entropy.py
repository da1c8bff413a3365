# bug: init_table draws from a fresh unseeded generator, not from the rng it is given (not reproducible)
# fails: init_reproducible_from_rng
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return (np.random.default_rng().standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)
