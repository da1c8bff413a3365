"""The wire format: plain data both ways, strict decoding."""
import os

import numpy as np
import pytest

from andrea_runtime import protocol as P
from tests.helpers import pack_bytes


def roundtrip(value):
    blobs = []
    tree = P.encode(value, blobs)
    header, got_blobs = P.unpack(pack_bytes({"v": tree}, blobs)[8:])
    return P.decode(header["v"], got_blobs)


@pytest.mark.parametrize("value", [
    None, True, 3, -2**70, 1.5, float("inf"), "tekst 한국어", [1, [2, 3]], (1, (2,)),
    {"a": 1, 2: [3]}, 1 + 2j, b"\x00\x01",
])
def test_plain_values_roundtrip(value):
    assert roundtrip(value) == value
    assert type(roundtrip(value)) is type(value)


def test_nan_roundtrip():
    assert np.isnan(roundtrip(float("nan")))


@pytest.mark.parametrize("arr", [
    np.arange(12, dtype=np.float32).reshape(3, 4), np.array([], dtype=np.int64).reshape(0, 3),
    np.array([True, False]), np.array(["ab", "c"]), np.arange(6, dtype=">f8")[::2],
    np.array(5, dtype=np.int32),
])
def test_arrays_roundtrip_bit_for_bit(arr):
    got = roundtrip(arr)
    assert type(got) is np.ndarray and got.dtype == arr.dtype and got.shape == arr.shape
    assert got.tobytes() == np.ascontiguousarray(arr).tobytes()
    got[...] = got  # writable


def test_numpy_scalars_and_subclasses_become_plain():
    assert type(roundtrip(np.float32(1.5))) is np.float32
    sub = np.arange(3).view(np.matrix)
    assert type(roundtrip(sub)) is np.ndarray


def test_generator_is_rebuilt_with_the_same_state():
    g = np.random.default_rng(7)
    h = roundtrip(g)
    assert isinstance(h, np.random.Generator) and h is not g
    assert np.array_equal(h.standard_normal(5), g.standard_normal(5))
    m = roundtrip(np.random.Generator(np.random.MT19937(3)))
    assert m.integers(1000) == np.random.Generator(np.random.MT19937(3)).integers(1000)


def test_objects_of_other_types_cannot_cross():
    class Foo:
        pass

    with pytest.raises(P.Unencodable, match="Foo"):
        P.encode(Foo(), [])
    with pytest.raises(P.Unencodable):
        P.encode(np.zeros(2, dtype=[("a", "f4")]), [])


@pytest.mark.parametrize("tree, blobs", [
    ({"t": "nd", "i": 0, "dtype": "O", "shape": [1]}, [b"12345678"]),
    ({"t": "nd", "i": 0, "dtype": "V8", "shape": [1]}, [b"12345678"]),
    ({"t": "nd", "i": 0, "dtype": "<f4", "shape": [3]}, [b"12345678"]),   # wrong size
    ({"t": "nd", "i": 5, "dtype": "<f4", "shape": [0]}, []),               # bad blob
    ({"t": "rng", "state": {"t": "dict", "v": [["bit_generator", "Evil"]]}}, []),
    ({"t": "pickle", "v": "..."}, []),
    ([1, 2], []),                                                          # untagged list
])
def test_malformed_values_are_rejected(tree, blobs):
    with pytest.raises(P.ProtocolError):
        P.decode(tree, blobs)


def test_malformed_frames_are_rejected():
    with pytest.raises(P.ProtocolError):
        P.unpack(b"\x00\x00\x00\x05{}")
    with pytest.raises(P.ProtocolError):
        P.unpack(b"\x00\x00\x00\x02[]")
    body = pack_bytes({"a": 1}, [b"xyz"])[8:]
    with pytest.raises(P.ProtocolError):
        P.unpack(body + b"extra")


def test_deep_nesting_is_bounded():
    tree = 1
    for _ in range(P.MAX_DEPTH + 10):
        tree = {"t": "list", "v": [tree]}
    with pytest.raises(P.ProtocolError):
        P.decode(tree, [])


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 9, 10])
def test_drop_written_keeps_exactly_the_unwritten_bytes(n):
    parts = [b"abc", memoryview(b"d"), b"efghij"]
    P.drop_written(parts, n)
    assert b"".join(bytes(p) for p in parts) == b"abcdefghij"[n:]
    assert all(len(p) for p in parts)


def test_a_frame_naming_millions_of_empty_blobs_is_refused_before_any_view_is_made():
    """A worker's first reply of {"blobs": [0, 0, ...]} (8 million zero-length blobs in a
    16 MiB header) took 1.8 GB of the grader's memory, one view per blob: the count is bounded
    before any view is made."""
    import json
    import struct

    header = json.dumps({"ready": [], "blobs": [0] * (P.MAX_BLOBS + 1)}).encode()
    with pytest.raises(P.ProtocolError, match="blobs in one frame"):
        P.unpack(struct.pack(">I", len(header)) + header)
    ok = json.dumps({"blobs": [0] * P.MAX_BLOBS}).encode()
    assert len(P.unpack(struct.pack(">I", len(ok)) + ok)[1]) == P.MAX_BLOBS


def test_a_header_of_millions_of_small_objects_is_refused_before_it_is_decoded():
    """A 16 MiB header of {"":0} objects (tests/attacks/memory/json_header_objects.py) decoded
    to 476 MiB of the grader's memory before any node of it was judged: the header's objects
    and arrays are counted first; a header at the cap still decodes."""
    import json
    import struct
    import tracemalloc

    item = '{"":0}'
    n = (P.MAX_HEADER - 64) // (len(item) + 1)
    header = ('{"ok": {"t": "list", "v": [' + ",".join([item] * n) + ']}, "blobs": []}').encode()
    tracemalloc.start()
    try:
        with pytest.raises(P.ProtocolError, match="objects and arrays in one header"):
            P.unpack(struct.pack(">I", len(header)) + header)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * P.MAX_HEADER, peak          # the header's text, not its objects
    ok = json.dumps({"ok": [[0]] * (P.MAX_CONTAINERS - 3), "blobs": []}).encode()
    assert len(P.unpack(struct.pack(">I", len(ok)) + ok)[0]["ok"]) == P.MAX_CONTAINERS - 3


# ----------------------------------------------------------------------------- call region
def _region(size=1 << 16):
    region = P.CallRegion.create(size)
    if region is None:
        pytest.skip("no memfd on this system: arguments cross the pipe")
    return region, P.RegionView(region.fd, region.size)


def _call(keeper, view, kept, args):
    """Encode as the grader does (each argument under its key), decode as the worker does."""
    region, blobs, enc = keeper.region, [], []
    region.reset()
    for i, a in enumerate(args):
        region.key = i
        enc.append(P.encode(a, blobs, keeper=keeper))
    header, got = P.unpack(pack_bytes({"v": {"t": "list", "v": enc}, "region": region.used,
                                       "forget": keeper.take_forget()}, blobs)[8:])
    shared = view.map(header["region"])
    return P.decode(header["v"], got, kept=kept, region=shared), shared


def test_the_grader_sees_what_a_call_did_to_its_arguments_in_the_region():
    region, view = _region()
    keeper, kept = P.ArrayKeeper(min_bytes=4096, max_bytes=1 << 20, region=region), {}
    small, big = np.arange(10.0), np.arange(1024, dtype=np.int64)     # big: kept, by key
    for _ in range(2):
        (a, b, ids), shared = _call(keeper, view, kept, [small, big, [1, 2]])
        assert a.flags.writeable and np.array_equal(a, small) and np.array_equal(b, big)
        assert region.changed() == []                 # nothing written: pure
        b[3] = -1                                     # the worker's fresh copy of a kept array
        a[...] = 0
        assert region.changed() == [0, 1]             # seen by the grader, whatever is said
        assert (small == np.arange(10.0)).all() and big[3] == 3    # its own arrays unchanged
        del a, b
    assert len(keeper._kept) == 1 and np.array_equal(kept[0], big)   # kept copy untouched
    with pytest.raises(P.ProtocolError, match="bad region"):
        P.decode({"t": "nd", "region": len(shared) - 4, "dtype": "<f8", "shape": [1]}, [],
                 region=shared)                       # past its end
    with pytest.raises(P.ProtocolError, match="bad region"):        # no region at all
        P.decode({"t": "nd", "region": 0, "dtype": "<f8", "shape": [1]}, [])
    assert P.decode({"t": "list", "v": []}, [], untrusted=True, region=shared) == []
    for resize in (0, 1 << 20):          # the worker holds the fd: it cannot resize the region
        with pytest.raises(PermissionError):
            os.ftruncate(region.fd, resize)
    keeper.close()


def test_an_argument_kept_past_its_call_keeps_its_bytes_and_leaves_the_region():
    region, view = _region()
    keeper, kept = P.ArrayKeeper(region=region), {}
    (a,), shared = _call(keeper, view, kept, [np.full(8, 1.0)])
    view.release(shared)                              # the worker does so after the call
    del shared
    (b,), _ = _call(keeper, view, kept, [np.full(8, 2.0)])   # same offset, new bytes
    assert (a == 1.0).all() and (b == 2.0).all()
    a[...] = 5.0                                      # private now: the grader sees nothing
    assert region.changed() == [] and (b == 2.0).all()
    keeper.close()
