# bug: init_table standardises every row by its own mean and std (a 1-column row is 0 / 0 = NaN, and the rows are no longer independent normal draws)
# fails: init_shape_and_dtype, init_normal_and_independent
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    x = rng.standard_normal(shape)
    with np.errstate(all="ignore"):
        x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)
    return (x / np.sqrt(shape[1])).astype(np.float32)
