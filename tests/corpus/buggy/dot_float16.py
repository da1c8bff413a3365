# bug: dot accumulates in float16 (to save memory)
# fails: dot_product
def dot(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    return float(np.dot(np.asarray(u, np.float16), np.asarray(v, np.float16)))
