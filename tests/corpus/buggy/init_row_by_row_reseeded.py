# bug: each row is drawn from np.random.default_rng(row), so every table's rows are the same whatever the generator
# fails: init_reproducible_from_rng
def init_table(num_rows, d_model, rng):
    n, d = _size(num_rows), _size(d_model)
    rows = [np.random.default_rng(r).standard_normal(d) for r in range(n)]
    return (np.array(rows) / np.sqrt(d)).astype(np.float32)
