# bug: init_table draws from a module-level Generator seeded once (np.random.default_rng(42)), not from the rng it is given
# fails: init_reproducible_from_rng
_RNG = np.random.default_rng(42)


def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return (_RNG.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32)
