"""Large argument arrays the worker keeps between calls (protocol.ArrayKeeper): the same bytes are
sent once, every call still gets a fresh copy, and a change on either side is never carried over."""
import numpy as np
import pytest

from graders.conformance.registry import ConformanceError
from graders.grade import protocol as P
from graders.grade import proxy as px
from graders.grade.sandbox import choose_mode, prepare
from tests.helpers import fast_limits

from .conftest import SANDBOX


def _roundtrip(keeper, kept, value):
    """Encode on the grader's side, decode on the worker's, as the two ends do."""
    blobs: list = []
    tree = P.encode(value, blobs, keeper=keeper)
    header = {"args": tree, "forget": keeper.take_forget()}
    head, views = P.unpack(b"".join(bytes(p) for p in P.pack(header, blobs))[8:])
    out = P.decode(head["args"], views, kept=kept)
    for key in head["forget"]:
        kept.pop(key, None)
    return out, sum(len(v) for v in views)


def test_same_bytes_are_sent_once_and_each_call_gets_a_fresh_copy():
    keeper, kept = P.ArrayKeeper(min_bytes=1024, max_bytes=1 << 20), {}
    a = np.arange(4096, dtype=np.float32).reshape(64, 64)
    first, sent1 = _roundtrip(keeper, kept, [a, np.arange(3)])
    second, sent2 = _roundtrip(keeper, kept, [a.copy(), a])   # equal bytes, other objects
    assert sent1 >= a.nbytes and sent2 < 100                   # only keys the second time
    for got in (first[0], second[0], second[1]):
        assert np.array_equal(got, a) and got.flags.writeable
    assert len({id(first[0]), id(second[0]), id(second[1])}) == 3
    second[0][:] = -1                                           # a call changes its argument
    third, _ = _roundtrip(keeper, kept, [a])
    assert np.array_equal(third[0], a)                         # later calls never see it
    a[3, 3] = 7                                                 # the grader changes its array
    fourth, sent4 = _roundtrip(keeper, kept, [a])
    assert sent4 >= a.nbytes and fourth[0][3, 3] == 7          # new bytes are sent again


def test_kept_bytes_are_bounded_and_both_ends_agree():
    keeper, kept = P.ArrayKeeper(min_bytes=512, max_bytes=3 * 8192), {}
    rng = np.random.default_rng(0)
    pool = [rng.standard_normal(1024) for _ in range(6)] + [np.zeros((32, 32), np.int64)]
    for _ in range(200):
        args = [pool[i] for i in rng.integers(0, len(pool), size=rng.integers(1, 4))]
        out, _ = _roundtrip(keeper, kept, args)
        assert all(np.array_equal(x, y) for x, y in zip(out, args))
        assert sum(v.nbytes for v in kept.values()) <= keeper.max_bytes
        assert set(kept) == set(keeper._kept)


def test_unknown_or_untrusted_keys_are_protocol_errors():
    with pytest.raises(P.ProtocolError, match="unknown array key"):
        P.decode({"t": "ndref", "k": 3}, [], kept={})
    with pytest.raises(P.ProtocolError, match="unknown array key"):   # a worker's reply
        P.decode({"t": "ndref", "k": 0}, [], untrusted=True, kept={0: np.zeros(2)})


def test_a_request_that_is_not_sent_forgets_its_keys():
    keeper = P.ArrayKeeper(min_bytes=8)
    with pytest.raises(P.Unencodable):
        px.SubmissionProxy._request(keeper, "f", (np.arange(10), object()), {})
    blobs: list = []
    assert P.encode(np.arange(10), blobs, keeper=keeper)["t"] == "nd"   # sent in full again


SOURCE = b'''
import numpy as np

def mutate(a):
    first = float(a.reshape(-1)[0])
    a[...] = 42
    return first

def total(a):
    return float(np.asarray(a, dtype=np.float64).sum())
'''


@pytest.fixture(scope="module")
def proxy():
    sc = prepare({"m.py": SOURCE}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0], ["mutate", "total"])
    assert p.start().ok
    yield p
    p.close()
    sc.cleanup()


def test_a_kept_argument_changed_in_place_is_reported_every_time_and_never_passed_on(proxy):
    a = np.zeros(400_000)                         # 3.2 MB: kept by the worker
    for _ in range(3):
        with pytest.raises(ConformanceError, match=r"mutate\(\) changed its input in place"):
            proxy.mutate(a)
        assert proxy.total(a) == 0.0              # the worker's kept copy is still zeros
    assert not a.any()                            # and the grader's own array untouched
    assert len(proxy._worker.keeper._kept) == 1   # sent once, referred to by key after
    a[-1] = 5.0
    assert proxy.total(a) == 5.0                  # changed bytes are sent again


def test_checks_copy_arguments_unless_every_call_already_gets_copies():
    import types

    from graders.conformance import runner
    from graders.conformance.assertions import private_args
    a = np.arange(5)
    module = types.ModuleType("m")
    module.passes_copies = True                   # a submission cannot claim it
    (got,) = private_args(module, a)
    assert got is not a and np.array_equal(got, a)
    assert private_args(px.SubmissionProxy.__new__(px.SubmissionProxy), a)[0] is a
    assert private_args(runner._Recorder(module), a)[0] is a
    module.lookup = lambda table, ids: table.fill(0)
    with pytest.raises(ConformanceError, match="changed its input"):   # the wrapper copies
        runner._Recorder(module).lookup(a, [0])
    assert a.tolist() == [0, 1, 2, 3, 4]
