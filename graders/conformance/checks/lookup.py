"""Token lookup: EMB-LOOKUP-01..03, EMB-ERR-01, EMB-ERR-02, EMB-PERM-01 (and CFG-* at real size)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .. import hints, strategies as S
from ..assertions import (as_array, assert_bitwise_equal, assert_dtype, assert_equal,
                          assert_shape, call_repr, fail, in_shape, private_args)
from ..error_inputs import check_error_inputs
from ..registry import check
from ..replay import given


def _lookup(impl, table, ids, *, exact_type=False):
    call = call_repr("lookup", table, ids)
    return as_array("out", impl.lookup(*private_args(impl, table, ids)), call,
                    exact_type=exact_type), call


def _values(out, dtype, want):
    """`out` in the table's dtype when it is another float type: only EMB-DTYPE-01 (checked by
    lookup_shape_and_dtype) is about the dtype; a float32 row widened to float64 and back keeps
    every bit (NaN, -0.0, inf and subnormals included). Only a result of the expected shape
    `want` is converted: the shape is judged first, and a wrong one is never copied."""
    if out.shape == tuple(want) and out.dtype != dtype and out.dtype.kind == "f" \
            and np.dtype(dtype).kind == "f" and out.dtype.itemsize > np.dtype(dtype).itemsize:
        return out.astype(dtype)
    return out


def _right_when_small(impl, spec) -> bool:
    """Whether lookup selects the right rows of a few small tables."""
    dtype = S.model_dtype(spec)
    for seed, (rows, d, n) in enumerate(((1, 1, 1), (7, 4, 5), (9, 12, 9))):
        table = S.table(60 + seed, rows, d, dtype)
        ids = np.arange(n, dtype=np.int64) * 4 % rows
        try:
            out = impl.lookup(table.copy(), ids.copy())
        except Exception:  # noqa: BLE001 - wrong at a small size: not a real-size bug
            return False
        if not (isinstance(out, np.ndarray) and out.dtype.kind == "f"
                and np.array_equal(_values(out, table.dtype, ids.shape + table.shape[1:]),
                                   table[ids])):
            return False
    return True


def _wrong_row_hint(out, table, ids):
    """Name the common bug when every row came from ids shifted by one."""
    for shift in (1, -1):
        shifted = np.clip(ids.astype(np.int64) + shift, 0, table.shape[0] - 1)
        if out.shape == ids.shape + table.shape[1:] and np.array_equal(out, table[shifted]):
            return hints.SHIFTED_IDS
    return None


@check("EMB-LOOKUP-01", requires=("lookup",))
def lookup_selects_row(impl, spec):
    """Id i selects row i, bit for bit (NaN, -0.0, inf and subnormals included)."""

    @given(data=st.data())
    def prop(data):
        table = data.draw(S.tables(spec, special=None), label="table")
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=8), label="ids shape")
        ids = data.draw(S.ids(table.shape[0], shape), label="token_ids")
        out, call = _lookup(impl, table, ids)
        out = in_shape(out, ids.shape + table.shape[1:])   # the shape is EMB-LOOKUP-03's
        assert_bitwise_equal("out", _values(out, table.dtype, ids.shape + table.shape[1:]),
                             table[ids], call,
                             hint=lambda: _wrong_row_hint(out, table, ids))

    prop()


@check("EMB-LOOKUP-02", requires=("lookup",))
def lookup_is_onehot_product(impl, spec):
    """lookup(table, ids) == one_hot(ids) @ table exactly: a lookup does no arithmetic."""

    @given(data=st.data())
    def prop(data):
        table = data.draw(S.tables(spec), label="table")
        n = data.draw(st.integers(1, 16), label="number of ids")
        ids = data.draw(S.ids(table.shape[0], (n,)), label="token_ids")
        onehot = np.zeros((n, table.shape[0]))
        onehot[np.arange(n), ids] = 1.0
        want = (onehot @ table.astype(np.float64)).astype(table.dtype)
        out, call = _lookup(impl, table, ids)
        out = in_shape(out, want.shape)
        assert_equal("out", out, want, call, hint=lambda: _wrong_row_hint(out, table, ids))

    prop()


@check("EMB-LOOKUP-03", requires=("lookup",))
def lookup_shape_and_dtype(impl, spec):
    """The result has shape ids.shape + (d_model,) and the table's dtype (float32 stays float32)."""

    @given(data=st.data())
    def prop(data):
        dtype = data.draw(st.sampled_from([np.float32, np.float64]), label="table dtype")
        table = data.draw(S.tables(spec, dtype=dtype), label="table")
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, max_side=5), label="ids shape")
        ids = data.draw(S.ids(table.shape[0], shape), label="token_ids")
        out, call = _lookup(impl, table, ids, exact_type=True)
        assert_shape("out", out, ids.shape + table.shape[1:], call)
        assert_dtype("out", out, table.dtype, call)

    prop()


@check("EMB-ERR-01", requires=("lookup", "embed"), if_present=("embed",))
def out_of_range_ids(impl, spec):
    """An id < 0 or >= rows raises IndexError in lookup and embed, never wraps around."""
    check_error_inputs(impl, spec, "EMB-ERR-01")


@check("EMB-ERR-02", requires=("lookup", "embed"), if_present=("embed",))
def non_integer_ids(impl, spec):
    """Ids that are not integers (floats, even 3.0; bools; strings) raise TypeError."""
    check_error_inputs(impl, spec, "EMB-ERR-02")


@check("EMB-PERM-01", requires=("lookup",))
def lookup_permutation_equivariant(impl, spec):
    """Without positions, permuting the ids permutes the output rows the same way."""

    @given(data=st.data())
    def prop(data):
        table = data.draw(S.tables(spec), label="table")
        n = data.draw(st.integers(2, 16), label="number of ids")
        ids = data.draw(S.ids(table.shape[0], (n,)), label="token_ids")
        perm = np.array(data.draw(st.permutations(range(n)), label="permutation"))
        a, _ = _lookup(impl, table, ids)
        b, call = _lookup(impl, table, ids[perm])
        a, b = (in_shape(r, (n,) + table.shape[1:]) for r in (a, b))
        assert_bitwise_equal("lookup(table, ids[perm])", b, a[perm], call)

    prop()


def _real_size_ids(vocab_size: int) -> np.ndarray:
    """The edge ids 0 and V-1, and ids spread over the whole range, odd ones included (every id
    0..V-1 is the clause's, not only the edges: ids taken through a narrow float type or a
    small integer type are rounded or wrapped only above some size)."""
    spread = np.linspace(0, vocab_size - 1, num=min(vocab_size, 64)).astype(np.int64)
    odd = np.minimum(spread | 1, vocab_size - 1)
    return np.unique(np.concatenate(([0, vocab_size - 1], spread, odd))).astype(np.int64)


@check("CFG-VOCAB-01", "CFG-DMODEL-01", "CFG-CONTEXT-01", requires=("lookup", "embed"))
def spec_sizes_accepted(impl, spec):
    """At the spec's real sizes ids 0 and V-1 (and ids spread between them) and T = context work.

    That id V and context + 1 positions are rejected is EMB-ERR-01's and EMB-ERR-03's property
    (their checks draw the spec's sizes too), so a missing range check costs points once.
    """
    m = spec.model
    dtype = S.model_dtype(spec)
    tok = S.table(7, m.vocab_size, m.d_model, dtype)
    pos = S.table(8, m.context_length, m.d_model, dtype)
    edge = _real_size_ids(m.vocab_size)
    out, call = _lookup(impl, tok, edge)
    assert_shape("out", out, (len(edge), m.d_model), call)
    want = tok[edge]
    if not np.array_equal(_values(out, tok.dtype, want.shape), want) \
            and _right_when_small(impl, spec):
        # wrong only at the spec's sizes (a wrong value at every size is EMB-LOOKUP-01's):
        # shown as the call with the first id whose row is wrong, when that call alone is wrong
        rows = ~np.all(_values(out, tok.dtype, want.shape) == want, axis=-1)
        first = edge[np.flatnonzero(rows)[:1]]
        if first.size:
            one, one_call = _lookup(impl, tok, first)
            one_v = _values(one, tok.dtype, (1, m.d_model))
            if one.shape == (1, m.d_model) and not np.array_equal(one_v, tok[first]):
                assert_bitwise_equal("out", one_v, tok[first], one_call)
        assert_bitwise_equal("out", _values(out, tok.dtype, want.shape), want, call)
    ids = np.arange(m.context_length, dtype=np.int64) % m.vocab_size
    call = call_repr("embed", ids, tok, pos)
    x = as_array("x", impl.embed(ids, tok, pos), call)
    assert_shape("x", x, (m.context_length, m.d_model), call)
    if not np.isfinite(x).all():
        fail("x has non-finite values for finite tables", call)
