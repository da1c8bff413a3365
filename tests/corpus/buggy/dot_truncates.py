# bug: dot sums over the first min(len(u), len(v)) terms instead of raising for different lengths
# fails: vector_errors
def dot(u, v):
    n = min(len(u), len(v))
    return float(np.dot(u[:n], v[:n]))
