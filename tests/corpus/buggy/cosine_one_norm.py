# bug: the cosine divides by |u|^2 instead of |u| |v|
# fails: dot_is_norms_times_cosine, similarity_by_direction
def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    nu, nv = np.sqrt(np.dot(u, u)), np.sqrt(np.dot(v, v))
    if nu == 0 or nv == 0:
        raise ValueError("the cosine of a zero vector is undefined")
    return float(np.dot(u, v) / (nu * nu))
