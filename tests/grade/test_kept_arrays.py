"""Large argument arrays the worker keeps between calls (protocol.ArrayKeeper): the same bytes are
sent once, every call still gets a fresh copy, and a change on either side is never carried over."""
import mmap
import os

import numpy as np
import pytest

from graders.conformance.registry import ConformanceError
from andrea_runtime import protocol as P
from graders.grade import proxy as px
from graders.grade.sandbox import choose_mode, prepare
from tests.helpers import fast_limits

from .conftest import SANDBOX


def _roundtrip(keeper, kept, value, arena=None):
    """Encode on the grader's side, decode on the worker's, as the two ends do (`arena`: the
    worker's view of the keeper's arena)."""
    blobs: list = []
    tree = P.encode(value, blobs, keeper=keeper)
    header = {"args": tree, "forget": keeper.take_forget()}
    head, views = P.unpack(b"".join(bytes(p) for p in P.pack(header, blobs))[8:])
    out = P.decode(head["args"], views, kept=kept, arena=arena)
    for key in head["forget"]:
        kept.pop(key, None)
    return out, sum(len(v) for v in views)


def _arena(size):
    arena = P.Arena.create(size)
    if arena is None:
        pytest.skip("this kernel cannot seal a memfd (F_SEAL_FUTURE_WRITE): kept arrays use "
                    "the pipe")
    return arena, P.map_arena(arena.fd, arena.size)


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


@pytest.mark.parametrize("shared", [False, True], ids=["pipe", "arena"])
def test_kept_bytes_are_bounded_and_both_ends_agree(shared):
    arena, mapping = _arena(3 * 8192) if shared else (None, None)
    keeper, kept = P.ArrayKeeper(min_bytes=512, max_bytes=3 * 8192, arena=arena), {}
    rng = np.random.default_rng(0)
    pool = ([rng.standard_normal(1024) for _ in range(6)] + [np.zeros((32, 32), np.int64)]
            + [rng.standard_normal(1000).astype(np.float32)])    # 4000 bytes: regions of
    for _ in range(200):                                          # unequal sizes, gaps
        args = [pool[i] for i in rng.integers(0, len(pool), size=rng.integers(1, 4))]
        out, _ = _roundtrip(keeper, kept, args, mapping)
        assert all(np.array_equal(x, y) and x.flags.writeable for x, y in zip(out, args))
        assert sum(v.nbytes for v in kept.values()) <= keeper.max_bytes
        assert set(kept) == set(keeper._kept)
    keeper.close()


def test_the_arena_reuses_touched_pages_before_growing():
    """A page of the arena written for the first time costs the kernel an allocation and a
    zeroing: new arrays go where old ones were (dropping them) before the touched part grows,
    so it stays as large as the largest request, not as the whole arena."""
    arena, mapping = _arena(1 << 20)
    keeper, kept = P.ArrayKeeper(min_bytes=512, max_bytes=1 << 20, arena=arena), {}
    rng = np.random.default_rng(1)
    for i in range(20):                       # distinct 64 KiB arrays, one per request
        a = rng.standard_normal(8192)
        (got,), sent = _roundtrip(keeper, kept, [a], mapping)
        assert np.array_equal(got, a) and arena.touched == 1 << 16, (i, arena.touched)
    pair = [rng.standard_normal(8192), rng.standard_normal(8192)]   # two in one request
    got, _ = _roundtrip(keeper, kept, pair, mapping)
    assert all(np.array_equal(x, y) for x, y in zip(got, pair)) and arena.touched == 2 << 16
    (again,), sent = _roundtrip(keeper, kept, [pair[1]], mapping)   # still kept: by key
    assert np.array_equal(again, pair[1]) and sent < pair[1].nbytes
    keeper.close()


def test_an_array_of_the_request_is_never_dropped_for_another_of_the_same_request():
    """With an arena, dropping a key the request uses would hand its region to the next array
    before the worker reads it: the second array is sent in full instead."""
    arena, mapping = _arena(4096)
    keeper, kept = P.ArrayKeeper(min_bytes=512, max_bytes=4096, arena=arena), {}
    a, b = np.arange(384.0), -np.arange(384.0)                      # 3072 bytes each
    _roundtrip(keeper, kept, [a], mapping)
    (got_a, got_b), sent = _roundtrip(keeper, kept, [a, b], mapping)
    assert np.array_equal(got_a, a) and np.array_equal(got_b, b)
    assert sent >= b.nbytes and list(keeper._kept) == [0]         # a by key, b in the frame
    (got_b,), _ = _roundtrip(keeper, kept, [b], mapping)            # now a may go
    assert np.array_equal(got_b, b) and list(keeper._kept) == [1] and set(kept) == {1}
    keeper.close()


def test_the_arena_is_sealed_against_every_writer_but_the_grader():
    arena, mapping = _arena(1 << 16)
    fd = arena.fd
    with pytest.raises(PermissionError):
        os.pwrite(fd, b"x", 0)
    with pytest.raises(PermissionError):
        mmap.mmap(fd, 1 << 16, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    with pytest.raises(PermissionError):
        os.ftruncate(fd, 0)
    view = np.frombuffer(mapping.shared, dtype=np.uint8)
    assert not view.flags.writeable
    with pytest.raises((ValueError, TypeError)):
        view.flags.writeable = True
    keeper = P.ArrayKeeper(min_bytes=8, max_bytes=1 << 16, arena=arena)
    blobs: list = []
    node = P.encode(np.arange(100.0), blobs, keeper=keeper)
    assert "arena" in node and not blobs                           # not in the frame
    assert np.array_equal(np.frombuffer(mapping.shared, np.float64, 100, node["arena"]),
                          np.arange(100.0))
    for bad in ({"t": "nd", "arena": node["arena"], "dtype": "<f8", "shape": [100], "keep": 9},
                {"t": "nd", "arena": 1 << 16, "dtype": "<f8", "shape": [1], "keep": 9}):
        with pytest.raises(P.ProtocolError):                       # a worker's reply
            P.decode(bad, [], untrusted=True, kept={}, arena=mapping)
    with pytest.raises(P.ProtocolError, match="bad arena"):         # past the end
        P.decode({"t": "nd", "arena": (1 << 16) - 8, "dtype": "<f8", "shape": [2], "keep": 9},
                 [], kept={}, arena=mapping)
    del view
    keeper.close()


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


ARENA_WRITER = b'''
import ctypes, mmap, os
import numpy as np

def _region():
    """The shared mapping of the arena (the call's own argument is a private one): from
    /proc/self/maps where the sandbox mounts /proc, else from the worker's own ArenaView,
    found through gc as any code in the worker can."""
    if os.path.exists("/proc/self/maps"):
        with open("/proc/self/maps") as f:
            for line in f:
                if "andrea-grade-args" in line and line.split()[1].endswith("s"):
                    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                    return lo, hi
        return None
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "ArenaView" and hasattr(obj, "shared"):
            lo = np.frombuffer(obj.shared, dtype=np.uint8).ctypes.data
            return lo, lo + len(obj.shared)
    return None

def attack(a):
    """Every way to write the grader's arena from here; returns what worked."""
    region = _region()
    if region is None:
        return ["no arena"]
    lo, hi = region
    worked = []
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    if libc.mprotect(ctypes.c_void_p(lo), hi - lo, 3) == 0:
        worked.append("mprotect")
    try:
        with open("/proc/self/mem", "r+b", buffering=0) as f:
            f.seek(lo)
            f.write(b"\\x7f" * 64)
        worked.append("/proc/self/mem")
    except OSError:
        pass
    for name in (os.listdir("/proc/self/map_files")
                 if os.path.isdir("/proc/self/map_files") else []):
        if not name.startswith(f"{lo:x}-"):
            continue
        try:
            fd = os.open(f"/proc/self/map_files/{name}", os.O_RDWR)
        except OSError:
            continue
        for how, act in (("pwrite", lambda: os.pwrite(fd, b"\\x7f" * 64, 0)),
                         ("ftruncate", lambda: os.ftruncate(fd, 0)),
                         ("mmap", lambda: mmap.mmap(fd, 4096, flags=mmap.MAP_SHARED,
                                                    prot=mmap.PROT_READ | mmap.PROT_WRITE))):
            try:
                act()
                worked.append(how)
            except OSError:
                pass
    return worked

def total(a):
    return float(np.asarray(a, dtype=np.float64).sum())
'''


def test_a_submission_cannot_write_the_arena_nor_change_what_later_calls_get():
    sc = prepare({"m.py": ARENA_WRITER}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0], ["attack", "total"])
    try:
        assert p.start().ok
        a = np.ones(300_000)                        # 2.4 MB: kept, in the arena
        worked = p.attack(a)
        if p._worker.keeper.arena is None:
            pytest.skip("no arena on this kernel (kept arrays use the pipe)")
        assert worked == []                         # each attempt refused by the kernel
        assert p.total(a) == 300_000.0              # by key: the bytes are still the grader's
        assert len(p._worker.keeper._kept) == 1
    finally:
        p.close()
        sc.cleanup()


def test_without_an_arena_kept_arrays_cross_the_pipe_once(monkeypatch):
    monkeypatch.setattr(px, "USE_ARENA", False)
    sc = prepare({"m.py": SOURCE}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0], ["mutate", "total"])
    try:
        assert p.start().ok
        assert p._worker.keeper.arena is None
        a = np.zeros(400_000)
        with pytest.raises(ConformanceError, match=r"mutate\(\) changed its input in place"):
            p.mutate(a)
        assert p.total(a) == 0.0 and len(p._worker.keeper._kept) == 1
    finally:
        p.close()
        sc.cleanup()


KEEPS = b'''
import numpy as np
STORE = []

def keep(a):
    STORE.append(a)                  # a submission may keep its argument (a cache, say)
    return float(a.sum())

def total(a):
    return float(np.asarray(a, dtype=np.float64).sum())

def kept_sums():
    return [float(a.sum()) for a in STORE]

def scribble(a):
    a[:] = 7.0                       # writes its copy-on-write copy
    return float(a.sum())
'''


def test_an_argument_the_submission_keeps_never_changes_when_its_region_is_reused(monkeypatch):
    """A kept array's fresh copy is a copy-on-write map of its arena region; once the region is
    given to another array, a copy the submission held on to must still show its own bytes."""
    monkeypatch.setattr(px, "ARENA_BYTES", 4 << 20)
    sc = prepare({"m.py": KEEPS}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0],
                           ["keep", "total", "kept_sums", "scribble"])
    try:
        assert p.start().ok
        a, b = np.full(300_000, 1.0), np.full(300_000, 2.0)     # 2.4 MB each: one fits
        assert p.keep(a) == 300_000.0
        if p._worker.keeper.arena is None:
            pytest.skip("no arena on this kernel (kept arrays use the pipe)")
        with pytest.raises(ConformanceError, match="changed its input"):   # its own copy
            p.scribble(a)
        assert p.total(a) == 300_000.0                          # not the kept array
        assert p.total(b) == 600_000.0                          # b takes a's region
        assert list(p._worker.keeper._kept) == [1]
        assert p.kept_sums() == [300_000.0]                     # still a's bytes
        assert p.keep(b) == 600_000.0 and p.total(a) == 300_000.0   # and back again
        assert p.kept_sums() == [300_000.0, 600_000.0]
    finally:
        p.close()
        sc.cleanup()


def test_a_submission_that_keeps_many_arguments_gets_copies_not_file_descriptors():
    """Each copy-on-write map holds a file descriptor: past ArenaView.MAX_LIVE_MAPS kept ones a
    call gets a plain copy, so keeping its arguments never runs a worker out of files."""
    sc = prepare({"m.py": KEEPS + b'''
import os

def open_files():
    """Open file descriptors (without /proc, which the bwrap sandbox does not mount)."""
    n = 0
    for fd in range(4096):
        try:
            os.fstat(fd)
            n += 1
        except OSError:
            pass
    return n
'''}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(), choose_mode(SANDBOX)[0],
                           ["keep", "kept_sums", "open_files"])
    try:
        assert p.start().ok
        a = np.full(200_000, 3.0)                    # 1.6 MB: kept
        base = p.open_files()
        for _ in range(60):                          # more than the 64 files a worker may open
            assert p.keep(a) == 600_000.0
        assert p.kept_sums() == [600_000.0] * 60
        if p._worker.keeper.arena is not None:
            assert p.open_files() <= base + P.ArenaView.MAX_LIVE_MAPS
    finally:
        p.close()
        sc.cleanup()
