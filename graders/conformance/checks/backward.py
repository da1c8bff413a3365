"""Backward pass: BWD-TOK-01/02, BWD-POS-01/02, BWD-SHAPE-01, BWD-ERR-01, BWD-PURE-01;
the purity judgement every group's purity check shares (judge_purity).

Reference sums are taken in float64 (np.add.at, order-independent to far below float32
roundoff). A row that sums k terms may differ by per_term * k * sum(|terms|).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from .. import hints, strategies as S
from ..assertions import (as_array, assert_close_scaled, assert_dtype, assert_equal,
                          assert_shape, call_repr, fail, parameters, private_args, said_of)
from ..error_inputs import check_error_inputs
from ..registry import check, defined
from ..replay import given


def kernel_scope(impl, *outputs: str) -> dict:
    """The keyword that limits a kernel submission's embed_backward to the kernels of
    `outputs` ("grad_token", "grad_position"; none: no kernel): a check of one gradient is then
    charged with that gradient's kernel only (the other comes from the host). Empty for a
    Python submission."""
    return {"outputs": outputs} if getattr(impl, "kernel_outputs", False) is True else {}


def _backward(impl, ids, grad, vocab, context, *, exact_type=False, part=None):
    call = call_repr("embed_backward", ids, grad, vocab, context)
    # Copies: an implementation that mutates its inputs must not change the expected values
    # (BWD-PURE-01 reports the mutation itself).
    res = impl.embed_backward(*private_args(impl, ids, grad), vocab, context,
                              **(kernel_scope(impl, part) if part else {}))
    if not isinstance(res, (tuple, list)) or len(res) != 2:
        fail("embed_backward returned a {type}, but should return a pair "
             "(grad_token_table, grad_position_table)", call, type=type(res).__name__)
    return (as_array("grad_token", res[0], call, exact_type=exact_type),
            as_array("grad_position", res[1], call, exact_type=exact_type), call)


def _expected_token(ids, grad, vocab):
    d = grad.shape[-1]
    flat, rows = ids.reshape(-1), grad.reshape(-1, d).astype(np.float64)
    want = np.zeros((vocab, d))
    np.add.at(want, flat, rows)
    scale = np.zeros((vocab, d))
    np.add.at(scale, flat, np.abs(rows))
    count = np.bincount(flat, minlength=vocab)[:, None]
    return want, scale * np.maximum(count, 1)


def _token_hint(got, ids, grad, vocab):
    """Spot 'last write wins' (grad[ids] = rows) instead of accumulation."""
    d = grad.shape[-1]
    last = np.zeros((vocab, d), dtype=grad.dtype)
    last[ids.reshape(-1)] = grad.reshape(-1, d)
    if got.shape == last.shape and np.allclose(got, last) and len(np.unique(ids)) < ids.size:
        return hints.REPEATED_IDS
    return None


@check("BWD-TOK-01", requires=("embed_backward",))
def token_gradient_scatter_add(impl, spec):
    """grad_token[v] == sum of grad_out rows whose id is v; repeated ids accumulate."""
    tol = spec.tolerance(spec.model.dtype)["per_term"]

    @given(data=st.data())
    def prop(data):
        ids, grad, vocab, context = data.draw(S.backward_args(spec),
                                              label="embed_backward arguments")
        gtok, _, call = _backward(impl, ids, grad, vocab, context, part="grad_token")
        assert_shape("grad_token", gtok, (vocab, grad.shape[-1]), call)
        want, scale = _expected_token(ids, grad, vocab)
        assert_close_scaled("grad_token", gtok, want, scale, tol, call,
                            hint=lambda: _token_hint(gtok, ids, grad, vocab))

    prop()


@check("BWD-TOK-02", requires=("embed_backward",))
def token_gradient_zero_rows(impl, spec):
    """Rows of ids that do not occur in the batch are exactly zero."""

    @given(data=st.data())
    def prop(data):
        ids, grad, vocab, context = data.draw(S.backward_args(spec, few_ids=True),
                                              label="embed_backward arguments")
        gtok, _, call = _backward(impl, ids, grad, vocab, context, part="grad_token")
        assert_shape("grad_token", gtok, (vocab, grad.shape[-1]), call)
        absent = np.setdiff1d(np.arange(vocab), ids.reshape(-1))
        assert_equal("grad_token[absent_ids]", gtok[absent], np.zeros_like(gtok[absent]), call)

    prop()


@check("BWD-POS-01", requires=("embed_backward",))
def position_gradient_batch_sum(impl, spec):
    """grad_position[t] == grad_out[..., t, :] summed over the batch."""
    tol = spec.tolerance(spec.model.dtype)["per_term"]

    def one(ids, grad, vocab, context):
        _, gpos, call = _backward(impl, ids, grad, vocab, context, part="grad_position")
        t = ids.shape[-1]
        assert_shape("grad_position", gpos, (context, grad.shape[-1]), call)
        g64 = grad.astype(np.float64).reshape((-1, t, grad.shape[-1]))
        want, scale = g64.sum(axis=0), np.abs(g64).sum(axis=0) * g64.shape[0]
        hint = None
        if g64.shape[0] > 1 and np.allclose(gpos[:t], g64.mean(axis=0)):
            hint = hints.BATCH_SUM
        assert_close_scaled("grad_position[:T]", gpos[:t], want, scale, tol, call, hint)

    @given(data=st.data())
    def prop(data):
        one(*data.draw(S.backward_args(spec), label="embed_backward arguments"))

    prop()
    # The drawn batches are small (B <= 4); one batch wider than a warp and than the smallest
    # launch block too, so a sum that gives each lane or thread one batch row (no loop) fails.
    rng = np.random.default_rng(0)
    vocab, t, d = 5, 2, 3
    one(rng.integers(0, vocab, size=(67, t)),
        rng.standard_normal((67, t, d)).astype(S.model_dtype(spec)), vocab, t + 1)


@check("BWD-POS-02", requires=("embed_backward",))
def position_gradient_zero_past_t(impl, spec):
    """Rows t >= T of the position gradient are exactly zero."""

    @given(data=st.data())
    def prop(data):
        ids, grad, vocab, context = data.draw(S.backward_args(spec),
                                              label="embed_backward arguments")
        _, gpos, call = _backward(impl, ids, grad, vocab, context, part="grad_position")
        assert_shape("grad_position", gpos, (context, grad.shape[-1]), call)
        t = ids.shape[-1]
        assert_equal("grad_position[T:]", gpos[t:], np.zeros_like(gpos[t:]), call)

    prop()


@check("BWD-SHAPE-01", requires=("embed_backward",))
def gradient_shapes(impl, spec):
    """Gradients are arrays of the spec's dtype (float32), shapes (V, d_model) and (context, d_model)."""

    @given(data=st.data())
    def prop(data):
        ids, grad, vocab, context = data.draw(S.backward_args(spec),
                                              label="embed_backward arguments")
        gtok, gpos, call = _backward(impl, ids, grad, vocab, context, exact_type=True)
        d = grad.shape[-1]
        assert_shape("grad_token", gtok, (vocab, d), call)
        assert_shape("grad_position", gpos, (context, d), call)
        assert_dtype("grad_token", gtok, S.model_dtype(spec), call, hints.DTYPE)
        assert_dtype("grad_position", gpos, S.model_dtype(spec), call, hints.DTYPE)

    prop()


@check("BWD-ERR-01", requires=("embed_backward",))
def backward_errors(impl, spec):
    """Out-of-range ids raise IndexError; a grad_out of the wrong shape and T > context_length
    raise ValueError."""
    check_error_inputs(impl, spec, "BWD-ERR-01")


@check("BWD-PURE-01", requires=("embed_backward",), judges_mutation=True)
def backward_inputs_not_mutated(impl, spec):
    """embed_backward leaves its arguments bit for bit as they were (the runner also charges
    this check with an argument that a call of embed_backward in another check changed)."""
    judge_purity(impl, spec, ("embed_backward",))


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return (a.shape == b.shape and a.dtype == b.dtype
            and np.array_equal(np.ascontiguousarray(a).view(np.uint8),
                               np.ascontiguousarray(b).view(np.uint8)))  # no copies


def judge_purity(impl, spec, functions: tuple[str, ...]) -> None:
    """The body of a purity check (EMB-PURE-01, BWD-PURE-01): each of `functions` that `impl`
    defines leaves every argument bit for bit as it was.

    A call that raises where a value is expected is a wrong answer that the value checks
    report; here its arguments are still compared (a change made before the exception is a
    mutation), and only a function that never returns normally is reported as raising."""
    returned: set[str] = set()
    raised: dict[str, tuple] = {}
    judged = defined(impl, functions)   # another group's (if_present): if defined

    @given(data=st.data())
    def prop(data):
        ids, tok, pos = data.draw(S.embed_args(spec), label="embed arguments")
        grad = S.table(3, ids.size, tok.shape[1], tok.dtype).reshape(ids.shape + (tok.shape[1],))
        calls = (("lookup", (tok, ids)), ("embed", (ids, tok, pos)),
                 ("embed_backward", (ids, grad, tok.shape[0], pos.shape[0])))
        for fn, args in calls:
            if fn not in judged:
                continue
            before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            call = call_repr(fn, *args)
            # a kernel submission's gradients come from the host here: its kernels cannot
            # touch the caller's arrays, and their findings are the backward clauses'
            scope = kernel_scope(impl) if fn == "embed_backward" else {}
            try:
                getattr(impl, fn)(*args, **scope)
                returned.add(fn)
            except AssertionError:      # a violation the grading proxy reported
                raise
            except Exception as exc:    # noqa: BLE001 - the value checks report the raise
                if said_of(exc) is None:   # a kernel's finding is charged to its own clauses
                    raised.setdefault(fn, (exc, args))
            for i, (a, b) in enumerate(zip(args, before)):
                if isinstance(a, np.ndarray) and not _same_bits(a, b):
                    fail("{function}() modified its argument {argument}: it must leave its "
                         "inputs as they were", call, hints.MUTATION, function=fn,
                         argument=parameters(fn)[i])

    prop()
    never = [fn for fn in judged if fn not in returned]
    if never and never[0] in raised:   # nothing to judge purity on: report the raise,
        exc, args = raised[never[0]]    # with the call that raised as the example
        getattr(impl, never[0])(*args)
        raise exc
