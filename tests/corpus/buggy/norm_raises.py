# bug: norm raises where a value is expected
# fails: vector_norm
def norm(v):
    raise NotImplementedError("norm is left for later")
