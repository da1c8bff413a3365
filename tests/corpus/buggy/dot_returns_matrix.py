# bug: dot returns the (1, 1) matrix u[None] @ v[:, None] instead of a number
# fails: dot_product
def dot(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    return np.asarray(u)[None, :] @ np.asarray(v)[:, None]
