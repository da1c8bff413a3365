"""andrea_ref.fast, the compiled fast path, is the reference: the same results bit for bit, the
same errors with the same wording, the whole conformance suite, and a clean fallback to the
plain NumPy reference where numba is missing or an input is not one the loops cover.

Equality is bitwise for the backward too, not a tolerance: the fast path adds each gradient
row's grad_out rows in increasing row order starting from +0.0, which is exactly the order of
the reference's sparse product (zeros, then column after column of the one-hot matrix), so
the float sums round alike. NaN payloads are the one exception allowed: where the reference
has a NaN the fast path must have a NaN too, but which operand's payload survives an add is
the hardware's choice (and a compiler may swap the operands of an add).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import andrea_ref as plain
from andrea_ref import fast
from graders.conformance.error_inputs import ERROR_INPUTS, check_error_input
from graders.conformance.profiles import use_profile
from graders.conformance.runner import FAILED, PASSED, SKIPPED, load_impl, run_checks
from spec import load_spec
from tests.helpers import load_margin

SPEC = load_spec()
PROPERTY = settings(max_examples=100, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal dtype, shape and bytes; a NaN only has to meet a NaN (payloads may differ)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return False
    g, w = got.copy(), want.copy()
    g[nan] = w[nan] = 0
    return g.tobytes() == w.tobytes()


class _Threads:
    """Split every call into `k` parts, as a big call on a k-core machine is."""

    def __init__(self, k):
        self.k, self.saved = k, fast._threads

    def __enter__(self):
        fast._threads = lambda nbytes: self.k

    def __exit__(self, *exc):
        fast._threads = self.saved


def _floats(dtype):
    return hnp.from_dtype(np.dtype(dtype), allow_nan=True, allow_infinity=True,
                          allow_subnormal=True)


@st.composite
def problems(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    vocab = draw(st.integers(1, 40))
    context = draw(st.integers(1, 12))
    d = draw(st.integers(0, 9))
    t = draw(st.integers(0, context))
    batch = draw(st.none() | st.integers(0, 4))
    shape = (t,) if batch is None else (batch, t)
    id_dtype = draw(st.sampled_from([np.int64, np.int32, np.int16, np.uint8, np.uint64]
                                    if vocab <= 255 else [np.int64, np.int32, np.int16]))
    # uniform ids, or a few ids repeated many times (gradient rows with long sums)
    hi = draw(st.sampled_from([vocab - 1, min(vocab - 1, 2)]))
    ids = draw(hnp.arrays(id_dtype, shape, elements=st.integers(0, hi)))
    # ordinary values (every element drawn: no repeated fill value, so the order of a sum shows
    # in its rounding), or with signed zeros, infinities and NaNs mixed in
    elements = st.floats(-3, 3, width=32)
    if draw(st.booleans()):
        elements = st.one_of(elements, st.sampled_from([0.0, -0.0]), _floats(dtype))

    def array(shape):
        return draw(hnp.arrays(dtype, shape, elements=elements, fill=st.nothing()))
    tok, pos, grad = array((vocab, d)), array((context, d)), array(shape + (d,))
    threads = draw(st.sampled_from([1, 2, 3]))
    return ids, tok, pos, grad, vocab, context, threads


@pytest.mark.skipif(not fast.COMPILED, reason="numba is not installed: andrea_ref.fast runs "
                    "the plain reference (pip install -e '.[fast]')")
@PROPERTY
@given(problems())
def test_fast_path_equals_the_plain_reference_bit_for_bit(problem):
    ids, tok, pos, grad, vocab, context, threads = problem
    with _Threads(threads):
        assert same_bits(fast.lookup(tok, ids), plain.lookup(tok, ids))
        want = plain.embed(ids, tok, pos)
        assert same_bits(fast.embed(ids, tok, pos), want)
        buf = np.full_like(want, 7)
        assert fast.embed(ids, tok, pos, out=buf) is buf and same_bits(buf, want)
        got = fast.embed_backward(ids, grad, vocab, context)
        ref = plain.embed_backward(ids, grad, vocab, context)
        assert same_bits(got[0], ref[0]) and same_bits(got[1], ref[1])


@pytest.mark.skipif(not fast.COMPILED, reason="numba is not installed")
def test_full_size_calls_split_over_threads_equal_the_reference():
    """The sizes of the benchmarks (at B=2), split the way a many-core machine splits them,
    and a skewed batch (half the ids one token) for the backward's balancing."""
    rng = np.random.default_rng(3)
    vocab, t, d = 8449, 1024, 768
    tok, pos = plain.init_table(vocab, d, rng), plain.init_table(t, d, rng)
    ids = rng.integers(0, vocab, size=(2, t))
    ids[1, ::2] = 17
    grad = rng.standard_normal((2, t, d), dtype=np.float32)
    grad[0, :4] = -0.0
    want_fwd = plain.embed(ids, tok, pos)
    want_tok, want_pos = plain.embed_backward(ids, grad, vocab, t)
    for k in (1, 4, 7):
        with _Threads(k):
            assert fast.embed(ids, tok, pos).tobytes() == want_fwd.tobytes()
            g_tok, g_pos = fast.embed_backward(ids, grad, vocab, t)
            assert g_tok.tobytes() == want_tok.tobytes()
            assert g_pos.tobytes() == want_pos.tobytes()


def test_fast_path_passes_the_whole_conformance_suite_through_its_compiled_loops(monkeypatch):
    calls = {}
    if fast.COMPILED:  # count the compiled calls: the suite must reach them, not the fallback
        for name in ("_gather_kernel", "_embed_kernel", "_backward_kernel"):
            kernel = getattr(fast, name)

            def counted(*args, _kernel=kernel, _name=name):
                calls[_name] = calls.get(_name, 0) + 1
                return _kernel(*args)
            monkeypatch.setattr(fast, name, counted)
    results = run_checks(load_impl("andrea_ref.fast"), SPEC, profile="ci")
    bad = [f"{r.check_id}: {r.message}" for r in results if r.status not in (PASSED, SKIPPED)]
    assert not bad, "\n".join(bad)
    if fast.COMPILED:
        assert set(calls) == {"_gather_kernel", "_embed_kernel", "_backward_kernel"}, calls
        assert min(calls.values()) >= 20, calls


@pytest.mark.skipif(not fast.COMPILED, reason="numba is not installed")
def test_the_suite_rejects_a_broken_fast_path(monkeypatch):
    """The conformance run above is not vacuous: a fast path whose compiled forward reads the
    position row of the previous position fails EMB-COMBINE checks."""
    kernel = fast._embed_kernel

    def shifted(tok, pos, ids, t, out, r0, r1):
        kernel(tok, np.roll(pos, 1, axis=0), ids, t, out, r0, r1)
    monkeypatch.setattr(fast, "_embed_kernel", shifted)
    results = run_checks(load_impl("andrea_ref.fast"), SPEC, profile="dev", select=["EMB-*"])
    assert any(r.status == FAILED for r in results), [(r.check_id, r.status) for r in results]


@pytest.mark.parametrize("ei", ERROR_INPUTS, ids=lambda e: f"{e.clause}-{e.function}-{e.what}")
def test_fast_path_raises_each_error_with_the_reference_wording(ei):
    with use_profile("dev"):
        check_error_input(fast, SPEC, ei, match_message=True)


def _outcome(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc), str(exc)
    return None


_TOK = np.zeros((5, 3), np.float32)
_POS = np.zeros((4, 3), np.float32)
_READ_ONLY_OUT = np.zeros((2, 3), np.float32)
_READ_ONLY_OUT.flags.writeable = False


@pytest.mark.parametrize("args", [
    ("embed", ([[0, 5]], _TOK, _POS)), ("embed", ([[0, -1]], _TOK, _POS)),
    ("embed", ([0.0, 1.0], _TOK, _POS)), ("embed", ([0] * 5, _TOK, _POS)),
    ("embed", (np.zeros((1, 1, 2), int), _TOK, _POS)), ("embed", ([0], _TOK, _POS[:, :2])),
    ("embed", ([0], _TOK, _POS.astype(np.float64))), ("embed", ([0], _TOK.astype(int), _POS)),
    ("embed", ([0], _TOK[0], _POS)),
    ("embed", ([0, 1], _TOK, _POS), {"out": np.empty((2, 3), np.float64)}),
    ("embed", ([0, 1], _TOK, _POS), {"out": np.empty((3, 2), np.float32).T}),
    ("embed", ([0, 1], _TOK, _POS), {"out": [[0.0] * 3] * 2}),
    ("embed", ([0, 1], _TOK, _POS), {"out": _READ_ONLY_OUT}),
    ("lookup", (_TOK, [7])), ("lookup", (_TOK, ["a"])), ("lookup", ([1.0, 2.0], [0])),
    ("embed_backward", ([0, 1], np.zeros((2, 3), np.float32), 5, 1)),
    ("embed_backward", ([0, 1], np.zeros((2, 2, 3), np.float32), 5, 4)),
    ("embed_backward", ([0, 9], np.zeros((2, 3), np.float32), 5, 4)),
    ("embed_backward", ([0, 1], np.zeros((2, 3), int), 5, 4)),
    ("embed_backward", ([0, 1], np.zeros((2, 3)), 5.0, 4)),
    ("embed_backward", ([0, 1], np.zeros((2, 3)), 5, 0)),
    ("embed_backward", ([0, 1], np.zeros((2, 3)), True, 4)),
], ids=lambda a: a[0])
def test_bad_arguments_fail_alike(args):
    name, pos_args, kw = (*args, {})[:3]
    want = _outcome(lambda: getattr(plain, name)(*pos_args, **kw))
    assert want is not None
    assert _outcome(lambda: getattr(fast, name)(*pos_args, **kw)) == want


def test_inputs_the_loops_do_not_cover_go_to_the_reference():
    rng = np.random.default_rng(0)
    tok = plain.init_table(20, 6, rng)
    pos = plain.init_table(5, 6, rng)
    ids = rng.integers(0, 20, (2, 5))
    grad = rng.standard_normal((2, 5, 6)).astype(np.float32)
    frozen = [a.copy() for a in (tok, pos, grad)]
    for a in frozen:
        a.flags.writeable = False
    def unaligned(a):  # a copy starting one byte into a buffer (compiled, as unaligned data)
        out = np.frombuffer(bytearray(a.nbytes + 1), dtype=a.dtype, offset=1).reshape(a.shape)
        out[...] = a
        return out

    cases = [  # float16, big-endian, strided tables, Fortran order; read-only and unaligned
        # arrays go through the compiled loops
        (ids, tok.astype(np.float16), pos.astype(np.float16), grad.astype(np.float16)),
        (ids, tok.astype(">f4"), pos.astype(">f4"), grad.astype(">f8")),
        (ids, np.repeat(tok, 2, axis=1)[:, ::2], pos, grad[:, :, ::-1]),
        (ids, tok, np.asfortranarray(pos), np.asfortranarray(grad)),
        (ids, *frozen),
        (ids, unaligned(tok), pos, unaligned(grad)),
    ]
    for ids_, tok_, pos_, grad_ in cases:
        assert same_bits(fast.embed(ids_, tok_, pos_), plain.embed(ids_, tok_, pos_))
        assert same_bits(fast.lookup(tok_, ids_), plain.lookup(tok_, ids_))
        got = fast.embed_backward(ids_, grad_, 20, 5)
        want = plain.embed_backward(ids_, grad_, 20, 5)
        assert all(same_bits(a, b) for a, b in zip(got, want))
    # an out= that is the token table itself: whatever the reference does, the fast path does
    a, b = tok[:10].reshape(2, 5, 6).copy(), tok[:10].reshape(2, 5, 6).copy()
    ids_small = ids % 10
    plain.embed(ids_small, a.reshape(10, 6), pos, out=a)
    fast.embed(ids_small, b.reshape(10, 6), pos, out=b)
    assert same_bits(b, a)


def test_without_numba_the_fast_path_is_the_plain_reference():
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import numpy as np, andrea_ref as plain\n"
        "from andrea_ref import fast\n"
        "assert fast.COMPILED is False\n"
        "rng = np.random.default_rng(1)\n"
        "tok, pos = plain.init_table(30, 4, rng), plain.init_table(6, 4, rng)\n"
        "ids = rng.integers(0, 30, (3, 6)); g = rng.standard_normal((3, 6, 4))\n"
        "assert fast.embed(ids, tok, pos).tobytes() == plain.embed(ids, tok, pos).tobytes()\n"
        "assert fast.lookup(tok, ids).tobytes() == plain.lookup(tok, ids).tobytes()\n"
        "a, b = fast.embed_backward(ids, g, 30, 6), plain.embed_backward(ids, g, 30, 6)\n"
        "assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))\n"
        "print('fallback ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120 * load_margin())
    assert proc.returncode == 0 and "fallback ok" in proc.stdout, proc.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.skipif(not fast.COMPILED, reason="numba is not installed")
def test_a_forked_child_runs_the_fast_path():
    """A grader forks its pool processes: a child forked after the parent ran the threaded fast
    path must run it too (numba's OpenMP layer would abort it; the fast path does not use it)."""
    rng = np.random.default_rng(2)
    tok, pos = plain.init_table(300, 64, rng), plain.init_table(700, 64, rng)
    ids = rng.integers(0, 300, (2, 700))
    with _Threads(2):
        want = fast.embed(ids, tok, pos)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                ok = fast.embed(ids, tok, pos).tobytes() == want.tobytes()
                os.write(w, b"1" if ok else b"0")
            finally:
                os._exit(0)
    os.close(w)
    try:
        import select
        ready, _, _ = select.select([r], [], [], 60)
        assert ready, "the forked child hung in fast.embed"
        assert os.read(r, 1) == b"1"
    finally:
        os.close(r)
        if not ready:
            os.kill(pid, 9)
        os.waitpid(pid, 0)


@pytest.mark.skipif(not fast.COMPILED, reason="numba is not installed")
def test_where_the_prefetch_hint_cannot_be_compiled_the_backward_goes_without(tmp_path):
    """The backward's prefetch is an LLVM intrinsic; a compiler that refuses it must cost
    speed only. A fresh cache folder, so that the kernel is compiled in this state."""
    code = (
        "import numpy as np, andrea_ref as plain\n"
        "from andrea_ref import fast\n"
        "def refuse(arr):\n"
        "    raise RuntimeError('no llvm.prefetch here')\n"
        "fast._probe = refuse\n"
        "rng = np.random.default_rng(1)\n"
        "ids = rng.integers(0, 30, (3, 6)); g = rng.standard_normal((3, 6, 4)).astype(np.float32)\n"
        "a, b = fast.embed_backward(ids, g, 30, 6), plain.embed_backward(ids, g, 30, 6)\n"
        "assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))\n"
        "assert fast._prefetch.py_func is fast._no_prefetch, fast._prefetch\n"
        "print('without prefetch ok')\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0 and "without prefetch ok" in proc.stdout, proc.stderr
