# bug: init_table uses GPT-2's std 0.02 instead of 1/sqrt(d_model)
# fails: init_mean_and_std
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    return (0.02 * rng.standard_normal(shape)).astype(np.float32)
