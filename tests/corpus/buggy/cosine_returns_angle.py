# bug: cosine_similarity returns the angle arccos(cos) in radians instead of the cosine
# fails: dot_is_norms_times_cosine, similarity_by_direction
def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    nu, nv = np.sqrt(np.dot(u, u)), np.sqrt(np.dot(v, v))
    if nu == 0 or nv == 0:
        raise ValueError("the cosine of a zero vector is undefined")
    return float(np.arccos(np.clip(np.dot(u, v) / (nu * nv), -1, 1)))
