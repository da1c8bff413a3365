# bug: the cosine adds an epsilon of 1e-8 to the denominator (as a safety), which changes the value for ordinary vectors
# fails: similarity_by_direction
def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    nu, nv = np.sqrt(np.dot(u, u)), np.sqrt(np.dot(v, v))
    if nu == 0 or nv == 0:
        raise ValueError("the cosine of a zero vector is undefined")
    return float(np.dot(u, v) / (nu * nv + 1e-8))
