# bug: norm returns the squared length (no square root); the cosine, written on its own, is right
# fails: vector_norm
def norm(v):
    return float(np.dot(v, v))
