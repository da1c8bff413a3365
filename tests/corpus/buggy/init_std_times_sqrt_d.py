# bug: init_table scales by sqrt(d_model) instead of 1/sqrt(d_model)
# fails: init_mean_and_std
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return (rng.standard_normal(shape) * np.sqrt(shape[1])).astype(np.float32)
