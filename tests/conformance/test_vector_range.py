"""The vectors the cosine checks draw keep every textbook float32 formula of cos(theta) finite.

The course defines the cosine by u . v = |u| |v| cos(theta) and says nothing about magnitudes, so
a float32 submission that computes u.v / sqrt((u.u) (v.v)) (scipy.spatial.distance.cosine's form)
is right and must never meet a vector whose product of squared norms overflows or underflows."""

import numpy as np
from hypothesis import given, settings, strategies as st

from graders.conformance import strategies as S


@settings(max_examples=300, database=None, derandomize=True)
@given(data=st.data(), n=st.sampled_from([1, 2, 3, 64, 768, 16384]))
def test_products_of_squared_norms_stay_normal_float32(data, n):
    u = data.draw(S.vectors(n, np.float32))
    v = data.draw(S.vectors(n, np.float32))
    with np.errstate(all="ignore"):
        uu, vv = np.dot(u, u), np.dot(v, v)
        product = np.float32(uu) * np.float32(vv)
    if uu == 0 or vv == 0:                       # a zero vector: the checks skip it
        return
    tiny, big = np.finfo(np.float32).tiny, np.finfo(np.float32).max
    assert tiny <= product <= big, f"(u.u)(v.v)={product!r} in float32 for n={n}"
    assert np.isfinite(np.dot(u, v))


def test_the_range_still_exposes_float16_arithmetic():
    # a float16 dot product overflows (65504) on these magnitudes: the range is not too tame
    lo, hi = S.VECTOR_RANGE
    assert hi * hi > float(np.finfo(np.float16).max) and lo < 1e-4
