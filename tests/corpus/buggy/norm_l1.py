# bug: norm is the L1 norm (sum of absolute values)
# fails: vector_norm
def norm(v):
    return float(np.sum(np.abs(v)))
