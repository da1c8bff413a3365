# bug: uniform entries with the right std, not normal ones
# fails: init_normal_and_independent
def init_table(num_rows, d_model, rng):
    shape = (_size(num_rows), _size(d_model))
    half_width = np.sqrt(3.0 / shape[1])
    return rng.uniform(-half_width, half_width, size=shape).astype(np.float32)
