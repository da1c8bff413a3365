# bug: the cosine lets Python raise ZeroDivisionError for a zero vector (the spec asks ValueError)
# fails: vector_errors
import math


def cosine_similarity(u, v):
    if len(u) != len(v):
        raise ValueError("vectors of different length")
    nu = math.sqrt(sum(float(x) * float(x) for x in u))
    nv = math.sqrt(sum(float(y) * float(y) for y in v))
    return sum(float(x) * float(y) for x, y in zip(u, v)) / (nu * nv)
