# bug: the table is drawn from a truncated normal (redrawn beyond 2 std, as in some transformer codebases), not N(0, 1/d_model)
# fails: init_mean_and_std, init_normal_and_independent
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    z = rng.standard_normal(shape)
    bad = np.abs(z) > 2
    while bad.any():
        z[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(z) > 2
    return (z / np.sqrt(shape[1])).astype(np.float32)
