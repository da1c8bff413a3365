# bug: init_table makes its own np.random.default_rng(0) and ignores the rng it is given
# fails: init_reproducible_from_rng
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    own = np.random.default_rng(0)
    return (own.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)
