# bug: dot and the cosine check the lengths with assert (AssertionError, not ValueError)
# fails: vector_errors
def dot(u, v):
    assert len(u) == len(v), "vectors of different length"
    return float(np.dot(u, v))


def cosine_similarity(u, v):
    assert len(u) == len(v), "vectors of different length"
    nu, nv = np.sqrt(np.dot(u, u)), np.sqrt(np.dot(v, v))
    if nu == 0 or nv == 0:
        raise ValueError("the cosine of a zero vector is undefined")
    return float(np.dot(u, v) / (nu * nv))
