# bug: draws from NumPy's global random state instead of the rng argument
# fails: init_reproducible_from_rng
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return (np.random.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)
