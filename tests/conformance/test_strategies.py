"""graders/conformance/strategies.py: the inputs the checks draw follow the spec (dtype, sizes,
ids in range), and a table built from a seed is the same table again."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from graders.conformance import strategies as S
from spec import load_spec

SPEC = load_spec()


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_ids_stay_in_range_and_are_integers(data):
    rows = data.draw(st.integers(1, 50))
    ids = data.draw(S.ids(rows, (7,)))
    assert ids.dtype.kind in "iu" and ids.shape == (7,)
    assert ids.min() >= 0 and ids.max() < rows


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_tables_are_in_the_specs_dtype(data):
    t = data.draw(S.tables(SPEC))
    assert t.dtype == S.model_dtype(SPEC) and t.ndim == 2


def test_a_table_from_a_seed_is_rebuilt_bit_for_bit():
    a = S.table(7, 5, 4)
    b = S.table(7, 5, 4)
    assert a.tobytes() == b.tobytes() and a.shape == (5, 4) and a.dtype == np.float32
    assert S.table(8, 5, 4).tobytes() != a.tobytes()


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_bad_ids_hold_at_least_one_id_out_of_range(data):
    rows = data.draw(st.integers(1, 30))
    bad = data.draw(S.bad_ids(rows))
    assert ((bad < 0) | (bad >= rows)).any()
