"""Position encodings the course compares with learned positions: POS-SIN-01, POS-ROPE-01/02.

These call optional functions (``sinusoidal_encoding(positions, d_model)`` and
``rope(x, positions)``); an implementation without them skips these checks.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from .. import strategies as S
from ..assertions import (as_array, assert_bitwise_equal, assert_close_scaled, assert_shape,
                          call_repr, fail)
from ..registry import check
from ..replay import given


@check("POS-SIN-01", requires=("sinusoidal_encoding",))
def sinusoidal_fixed_bounded_any_position(impl, spec):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...): fixed, in [-1, 1], any p."""

    @given(d=st.integers(1, 64).map(lambda k: 2 * k),
           positions=st.lists(st.integers(0, 100 * spec.model.context_length), min_size=1,
                              max_size=16))
    def prop(d, positions):
        pos = np.array(positions, dtype=np.int64)
        call = call_repr("sinusoidal_encoding", pos, d)
        pe = as_array("pe", impl.sinusoidal_encoding(pos, d), call)
        assert_shape("pe", pe, (len(pos), d), call)
        bound = 1.0 + spec.tolerance(np.float32)["per_term"]  # sin/cos roundoff is allowed
        if not np.all(np.abs(pe) <= bound):
            fail("pe has entries outside [-1, 1]", call)
        ang = np.outer(pos.astype(np.float64), 10000.0 ** (-np.arange(0, d, 2) / d))
        want = np.empty((len(pos), d))
        want[:, 0::2], want[:, 1::2] = np.sin(ang), np.cos(ang)
        # The angle p / 10000^(2i/d) is computed in float32 or float64: allow its roundoff.
        scale = 4 * np.abs(np.repeat(ang, 2, axis=1)) + 1
        assert_close_scaled("pe", pe, want, scale, spec.tolerance(np.float32)["per_term"], call)
        again = as_array("pe", impl.sinusoidal_encoding(pos, d), call)
        assert_bitwise_equal("pe_second_call", again, pe, call)

    prop()


@check("POS-ROPE-01", requires=("rope",))
def rope_preserves_norms(impl, spec):
    """RoPE rotates (even, odd) pairs: every pair's length, hence every row's norm, is unchanged."""

    @given(data=st.data())
    def prop(data):
        t = data.draw(st.integers(1, 16), label="T")
        x, d = data.draw(S.qk_rows(t), label="rows")
        pos = np.array(data.draw(st.lists(st.integers(0, spec.model.context_length), min_size=t,
                                          max_size=t), label="positions"), dtype=np.int64)
        call = call_repr("rope", x, pos)
        y = as_array("y", impl.rope(x, pos), call)
        assert_shape("y", y, x.shape, call)
        pair = lambda a: np.hypot(a[:, 0::2], a[:, 1::2])  # noqa: E731
        # A rotation: two products and a sum per coordinate, sine and cosine each to roundoff.
        tol = spec.tolerance(y.dtype)
        assert_close_scaled("hypot(y[:, 0::2], y[:, 1::2])", pair(y), pair(x),
                            pair(x) + tol["tiny"], 16 * tol["per_term"], call)

    prop()


@check("POS-ROPE-02", requires=("rope",))
def rope_relative_offsets(impl, spec):
    """q at m and k at n score the same as q at m+s and k at n+s: only m - n matters."""

    @given(data=st.data())
    def prop(data):
        x, d = data.draw(S.qk_rows(2), label="rows")
        m = data.draw(st.integers(0, spec.model.context_length), label="m")
        n = data.draw(st.integers(0, spec.model.context_length), label="n")
        s = data.draw(st.integers(0, spec.model.context_length), label="shift")
        q, k = x[:1], x[1:]

        def score(a, b):
            qa = as_array("q", impl.rope(q, np.array([a])), call_repr("rope", q, np.array([a])))
            kb = as_array("k", impl.rope(k, np.array([b])), call_repr("rope", k, np.array([b])))
            return float(qa[0] @ kb[0])

        call = f"rope scores at (m, n) = ({m}, {n}) and ({m + s}, {n + s})"
        scale = np.linalg.norm(q) * np.linalg.norm(k) * d * (1 + m + n + 2 * s)
        # The angles' roundoff grows with the position, hence the positions in `scale`.
        assert_close_scaled("rope score at (m + shift, n + shift)", score(m + s, n + s), score(m, n),
                            scale, 256 * spec.tolerance(x.dtype)["per_term"], call)

    prop()
