# bug: norm returns the squared length
# fails: vector_norm
def norm(v):
    return float(np.dot(v, v))
