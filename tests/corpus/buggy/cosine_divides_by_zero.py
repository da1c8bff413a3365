# bug: no zero-vector check in the cosine (it returns nan instead of raising ValueError)
# fails: vector_errors
def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    with np.errstate(all="ignore"):
        return float(np.dot(u, v) / (np.sqrt(np.dot(u, u)) * np.sqrt(np.dot(v, v))))
