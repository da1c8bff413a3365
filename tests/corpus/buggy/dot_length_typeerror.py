# bug: vectors of different lengths raise TypeError instead of ValueError
# fails: vector_errors
def dot(u, v):
    if len(u) != len(v):
        raise TypeError("vectors of different length")
    return float(np.dot(u, v))


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise TypeError("vectors of different length")
    nu, nv = np.sqrt(np.dot(u, u)), np.sqrt(np.dot(v, v))
    if nu == 0 or nv == 0:
        raise ValueError("the cosine of a zero vector is undefined")
    return float(np.dot(u, v) / (nu * nv))
