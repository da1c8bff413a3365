# bug: the dot product skips the last coordinate
# fails: dot_product
def dot(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    return float(np.dot(u[:-1], v[:-1]))
