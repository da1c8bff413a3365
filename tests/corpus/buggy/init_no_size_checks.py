# bug: init_table checks none of its sizes (rng.standard_normal happens to refuse 2.5 and -5, but returns an empty table for 0)
# fails: init_size_errors
def init_table(num_rows, d_model, rng):
    return (rng.standard_normal((num_rows, d_model)) / np.sqrt(d_model)).astype(np.float32)
