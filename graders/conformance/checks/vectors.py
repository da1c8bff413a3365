"""Dot product, norm, cosine: VEC-DOT-01, VEC-NORM-01, VEC-COS-01, VEC-COS-02, VEC-ERR-01.

Sums are compared relative to the problem's scale: a dot product of n terms may be off by
per_term * n * |u| |v| (exact products summed with math.fsum give the true value), so float32 or
float64 accumulation in any order passes and a dropped or doubled term does not.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from .. import strategies as S
from ..assertions import assert_close_scaled, call_repr, fail, scalar
from ..error_inputs import check_error_inputs
from ..faults import ImplementationFault
from ..registry import check
from ..replay import given


MSG_SAME_COS = "same direction: cosine_similarity(u, v)={got!r}, but should be +1"
MSG_OPPOSITE_COS = "opposite directions: cosine_similarity(u, v)={got!r}, but should be -1"


def _exact_dot(u, v) -> float:
    return math.fsum((u.astype(np.float64) * v.astype(np.float64)).tolist())


def _exact_norm(v) -> float:
    v64 = v.astype(np.float64)
    m = float(np.max(np.abs(v64))) if v.size else 0.0
    if m == 0:
        return 0.0
    return m * math.sqrt(math.fsum(((v64 / m) ** 2).tolist()))


@check("VEC-DOT-01", requires=("dot",))
def dot_product(impl, spec):
    """dot(u, v) == sum u_i v_i to roundoff relative to |u| |v|."""

    @given(data=st.data())
    def prop(data):
        u, v, dtype = data.draw(S.vector_pairs(spec), label="u, v")
        tol = spec.tolerance(dtype)
        call = call_repr("dot", u, v)
        got = scalar("dot(u, v)", impl.dot(u, v), call)
        scale = u.size * _exact_norm(u) * _exact_norm(v) + tol["tiny"]
        assert_close_scaled("dot(u, v)", got, _exact_dot(u, v), scale, tol["per_term"], call)

    prop()


@check("VEC-NORM-01", requires=("norm",))
def vector_norm(impl, spec):
    """norm(v) == sqrt(sum v_i^2) to roundoff relative to |v|."""

    @given(data=st.data())
    def prop(data):
        u, _, dtype = data.draw(S.vector_pairs(spec), label="u, v")
        tol = spec.tolerance(dtype)
        call = call_repr("norm", u)
        got = scalar("norm(v)", impl.norm(u), call)
        want = _exact_norm(u)
        assert_close_scaled("norm(v)", got, want, u.size * want + tol["tiny"], tol["per_term"], call)

    prop()


def _own_cosine(impl, u, v) -> float | None:
    """dot(u, v) / (norm(u) norm(v)) by the implementation's own dot and norm, if they answer.

    The cosine clauses judge the cosine, not the dot product: a cosine that is the right
    formula applied to the implementation's own (possibly wrong) dot and norm is a right
    cosine, and the wrong dot costs points once, under VEC-DOT-01 or VEC-NORM-01.
    """
    try:
        d, a, b = (float(impl.dot(u, v)), float(impl.norm(u)), float(impl.norm(v)))
    except (Exception, ImplementationFault):  # noqa: BLE001 - then judged on the exact one
        return None  # (a fault of dot or norm is charged to their own checks)
    if not (math.isfinite(d) and a > 0 and b > 0 and math.isfinite(a * b)):
        return None
    return d / (a * b)


def _cosine_close(impl, u, v, cos: float, want: float, bound: float) -> bool:
    """`cos` is `want`, or the implementation's own dot / (norm norm) (asked only then)."""
    if abs(cos - want) <= bound:
        return True
    own = _own_cosine(impl, u, v)
    return own is not None and abs(cos - own) <= bound


@check("VEC-COS-01", requires=("cosine_similarity",))
def dot_is_norms_times_cosine(impl, spec):
    """u . v == |u| |v| cos(theta), and the cosine lies in [-1, 1] (to roundoff)."""

    @given(data=st.data())
    def prop(data):
        u, v, dtype = data.draw(S.vector_pairs(spec), label="u, v")
        tol = spec.tolerance(dtype)
        nu, nv = _exact_norm(u), _exact_norm(v)
        if nu == 0 or nv == 0:
            return
        call = call_repr("cosine_similarity", u, v)
        cos = scalar("cosine_similarity(u, v)", impl.cosine_similarity(u, v), call)
        # [-1, 1] within the same roundoff as the value itself: the course's own formula
        # dot / (norm * norm) gives 1.0000000000000002 for parallel vectors, and that is right.
        bound = tol["per_term"] * 4 * u.size
        if not -1.0 - bound <= cos <= 1.0 + bound:
            fail("cosine_similarity(u, v)={got!r}, but a cosine lies in [-1, 1]", call,
                 got=cos)
        want = _exact_dot(u, v) / (nu * nv)
        if not _cosine_close(impl, u, v, cos, want, bound):
            assert_close_scaled("cosine_similarity(u, v)", cos, want, 4 * u.size,
                                tol["per_term"], call)

    prop()


@check("VEC-COS-02", requires=("cosine_similarity",))
def similarity_by_direction(impl, spec):
    """Same direction: cos 1; opposite: cos -1; orthogonal: cos 0.

    The sign of the dot product follows from the cosine (u . v = |u| |v| cos); its value is
    VEC-DOT-01's, so a wrong dot product is not charged here a second time.
    """

    @given(data=st.data())
    def prop(data):
        n = data.draw(st.integers(2, 64), label="length")
        u = data.draw(S.vectors(n, np.float64), label="u")
        scale = data.draw(st.floats(0.125, 8.0), label="scale")
        nu = _exact_norm(u)
        if nu == 0:
            return
        # An implementation may accumulate in float32: float32's roundoff, a few terms per element.
        loose = 4 * n * spec.tolerance(np.float32)["per_term"]
        for sign in (1.0, -1.0):
            v = sign * scale * u
            call = call_repr("cosine_similarity", u, v)
            cos = scalar("cosine_similarity(u, v)", impl.cosine_similarity(u, v), call)
            if not _cosine_close(impl, u, v, cos, sign, loose):
                fail(MSG_SAME_COS if sign > 0 else MSG_OPPOSITE_COS, call, got=cos)
        # An orthogonal partner: rotate the first two coordinates' plane, zero the rest.
        w = np.zeros(n)
        w[0], w[1] = -u[1], u[0]
        if _exact_norm(w) == 0:
            return
        call = call_repr("cosine_similarity", u, w)
        c = scalar("cosine_similarity(u, w)", impl.cosine_similarity(u, w), call)
        if not _cosine_close(impl, u, w, c, 0.0, loose):
            fail("orthogonal: cosine_similarity(u, w)={got!r}, but should be 0", call, got=c)

    prop()


@check("VEC-ERR-01", requires=("dot", "cosine_similarity"))
def vector_errors(impl, spec):
    """Different lengths raise ValueError in dot and cosine; a zero vector's cosine raises ValueError."""
    check_error_inputs(impl, spec, "VEC-ERR-01")
