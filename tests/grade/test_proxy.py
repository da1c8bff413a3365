"""The proxy behaves like the module it stands for, and survives what the module does."""
import numpy as np
import pytest

from graders.conformance.faults import CallTimeout, WorkerCrashed
from graders.conformance.registry import ConformanceError
from graders.grade import proxy as px
from graders.grade.sandbox import choose_mode, prepare
from tests.helpers import fast_limits

from .conftest import SANDBOX

SOURCE = b'''
import numpy as np
import numpy.exceptions


class MyError(ValueError):
    pass


class Odd(Exception):
    pass


def lookup(table, ids):
    return np.asarray(table)[np.asarray(ids)]


def axis():
    raise numpy.exceptions.AxisError(5, 1)


def mine():
    raise MyError("custom")


def odd():
    raise Odd("odd")


def key():
    raise KeyError("k")


def mutate(a):
    a[0] = 42
    return None


def draw(rng):
    return rng.standard_normal(3)


def weird():
    return object()


def slow():
    while True:
        pass


def crash():
    import os
    os._exit(7)


def nothing():
    return None
'''
FUNCS = ["lookup", "axis", "mine", "odd", "key", "mutate", "draw", "weird", "slow", "crash",
         "nothing", "embed"]


@pytest.fixture(scope="module")
def proxy():
    sc = prepare({"m.py": SOURCE}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(call_timeout=1.5, max_timeouts_per_function=2),
                           choose_mode(SANDBOX)[0], FUNCS)
    out = p.start()
    assert out.ok, out
    yield p
    p.close()
    sc.cleanup()


def test_present_functions_only(proxy):
    assert callable(proxy.lookup)
    with pytest.raises(AttributeError):
        proxy.embed            # in the contract but not defined
    with pytest.raises(AttributeError):
        proxy.not_a_function
    assert getattr(proxy, "embed", None) is None


def test_results_are_plain_arrays(proxy):
    out = proxy.lookup(np.arange(6.0).reshape(3, 2), [2, 0])
    assert type(out) is np.ndarray
    assert out.tolist() == [[4.0, 5.0], [0.0, 1.0]]


def test_exceptions_keep_their_builtin_types(proxy):
    with pytest.raises(IndexError):
        proxy.lookup(np.zeros((2, 2)), [5])
    with pytest.raises(ValueError) as e1:
        proxy.axis()
    assert isinstance(e1.value, IndexError)   # AxisError is both
    with pytest.raises(ValueError, match="custom") as e2:
        proxy.mine()
    assert type(e2.value).__name__ == "MyError"
    with pytest.raises(KeyError):
        proxy.key()
    with pytest.raises(px.SubmissionException) as e3:
        proxy.odd()
    assert type(e3.value).__name__ == "Odd" and not isinstance(e3.value, ValueError)


def test_mutation_is_reported_not_written_back_and_generators_advance(proxy):
    a = np.zeros(3)
    with pytest.raises(ConformanceError, match=r"mutate\(\) changed its input in place "
                                               r"\(argument 0\)"):
        proxy.mutate(a)
    assert not a.any()                                   # the caller's copy is untouched
    g, h = np.random.default_rng(1), np.random.default_rng(1)
    assert np.array_equal(proxy.draw(g), h.standard_normal(3))
    assert g.standard_normal() == h.standard_normal()   # advanced like in-process


def test_unsupported_result_is_an_exception_not_a_crash(proxy):
    with pytest.raises(px.UnsupportedResult, match="object"):
        proxy.weird()
    assert proxy.nothing() is None


def test_timeout_then_fresh_worker_then_circuit_breaker(proxy):
    with pytest.raises(CallTimeout):
        proxy.slow()
    assert proxy.nothing() is None          # a fresh worker answers
    with pytest.raises(CallTimeout):
        proxy.slow()
    with pytest.raises(CallTimeout, match="not called again"):
        proxy.slow()                        # no third wait


def test_crash_is_reported_and_recovered(proxy):
    with pytest.raises(WorkerCrashed, match="status 7"):
        proxy.crash()
    assert proxy.nothing() is None


def test_rebuild_exception_ignores_unknown_bases():
    e = px.rebuild_exception({"type": "bad name!", "bases": ["SystemExit"], "msg": "x"})
    assert isinstance(e, px.SubmissionException)
    assert isinstance(px.rebuild_exception({"type": "TypeError", "bases": ["TypeError"]}),
                      TypeError)


def test_the_workers_cpu_time_is_counted_even_under_bubblewrap():
    """bubblewrap's monitor exits without reaping its init, so no rusage ever sees a sandboxed
    worker: the proxy reads its CPU time from /proc before stopping it (report: worker_cpu_s)."""
    source = b'''
import time

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
'''
    sc = prepare({"m.py": source}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0], ["burn"])
    try:
        assert p.start().ok
        p.burn(0.3)
        p._kill()                      # a fault's path: the next call starts a fresh worker
        p.burn(0.3)
    finally:
        p.close()
        sc.cleanup()
    assert p.worker_cpu_s >= 0.6       # both workers' CPU time, each read before it stopped


def test_a_worker_started_early_is_stopped_when_the_grade_cannot_go_on(monkeypatch, spec):
    """grade() starts the worker before it loads the checks (the import overlaps); a caller's
    mistake found after that (here a --select that matches nothing) stops it and removes the
    scratch folder before the error is raised."""
    import os

    from graders.grade.grading import GraderError, grade, load_submission

    from .conftest import CORRECT

    started = []
    real = px.SubmissionProxy.launch

    def launch(self):
        real(self)
        started.append((self, self._worker.proc.pid, self._scratch.root))

    monkeypatch.setattr(px.SubmissionProxy, "launch", launch)
    with pytest.raises(GraderError, match="matches no check"):
        grade(load_submission(CORRECT), spec, profile="dev", sandbox=SANDBOX, select=["NOPE-99"])
    assert len(started) == 1
    proxy, pid, root = started[0]
    assert proxy._worker is None and not root.exists()
    assert not os.path.exists(f"/proc/{pid}")          # stopped and reaped


STORES = b'''
import numpy as np
STORE = []

def keep(a, scale=None):
    STORE.append(a)                  # a cache of its arguments: a view of the call region
    return float(a.sum())

def sums():
    return [float(a.sum()) for a in STORE]

def scribble_kw(a, scale=None):
    scale[...] = 0                   # a keyword argument changed in place
    return 0.0
'''


def test_arguments_a_submission_keeps_stay_its_own_and_cost_no_descriptors():
    """Each call's arrays are views of the grader's shared call region; what the submission
    keeps past its call gets private pages with the same bytes (no file held per call), so many
    kept arguments neither run the worker out of files nor change when the region is reused;
    a keyword argument changed in place is seen by the grader itself."""
    sc = prepare({"m.py": STORES}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0],
                           ["keep", "sums", "scribble_kw"])
    try:
        assert p.start().ok
        if p._worker.keeper.region is None:
            pytest.skip("no memfd here: arguments cross the pipe")
        for i in range(150):                                  # more than the worker's 64 files
            assert p.keep(np.full(16, float(i))) == 16.0 * i
        assert p.sums() == [16.0 * i for i in range(150)] and p.restarts == 0
        scale = np.ones(3)
        with pytest.raises(ConformanceError, match=r"in place \(argument scale\)"):
            p.scribble_kw(np.ones(2), scale=scale)
        assert (scale == 1.0).all()
    finally:
        p.close()
        sc.cleanup()


BIG_SOURCE = b'''
import json, os, struct, sys
import numpy as np

def lookup(table, ids):
    if len(ids) == 1:
        return np.zeros(3_000_000)       # far more than table[ids]
    return np.zeros((len(ids) * 2, table.shape[1]))   # a wrong shape within the bound

def embed(ids, tok, pos):              # a reply frame of 2 MiB written past the worker
    n = 2 << 20
    head = json.dumps({"ok": {"t": "bytes", "i": 0}, "blobs": [n]}).encode()
    fd = int(sys.argv[sys.argv.index("--resp-fd") + 1])
    os.write(fd, struct.pack(">QI", 4 + len(head) + n, len(head)) + head + bytes(n))
    os._exit(0)

def norm(v):
    if len(v) == 1:                    # 3750 values of 8 characters, 12 bytes each as JSON
        return "\\U0001F600" * 30000
    return float(np.sqrt(np.dot(v, v)))
'''


def test_a_result_larger_than_the_contract_allows_is_refused_before_it_is_read():
    """graders/conformance/results.py: the worker answers a result of more values than the
    bound with its size alone; a reply longer than the call's bound is not read."""
    from graders.conformance import results as R
    from graders.conformance.faults import ResourceExhausted

    sc = prepare({"m.py": BIG_SOURCE}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0],
                           ["lookup", "embed", "norm"])
    try:
        assert p.start().ok
        table = np.zeros((5, 4))
        with pytest.raises(ConformanceError) as info:
            p.lookup(table, np.array([1]))
        assert info.value.template == R.MSG_TOO_LARGE
        assert info.value.fields == {"function": "lookup", "got": 3_000_000, "want": 4}
        assert p.restarts == 0 and p._worker.alive     # a verdict, not a fault
        with pytest.raises(ConformanceError) as info:   # within the values, not the bytes
            p.norm(np.array([3.0]))
        assert info.value.template == R.MSG_TOO_MANY_BYTES, str(info.value)
        fields = info.value.fields
        assert fields["want"] == 1 and fields["got"] > fields["limit"] == R.reply_bytes(
            R.allowed_values(1)), fields
        assert str(info.value).startswith(f"norm() returned a result of {fields['got']} bytes "
                                          "where 1 value was expected")
        assert p.restarts == 0 and p._worker.alive
        assert p.lookup(table, np.array([1, 2])).shape == (4, 4)   # within: read, judged later
        with pytest.raises(ResourceExhausted, match="more than any result for these arguments"):
            p.embed(np.array([0, 1]), table, table)
        assert p.norm(np.array([3.0, 4.0])) == 5.0       # a fresh worker
    finally:
        p.close()
        sc.cleanup()
