"""The wire format between the grader and its submission worker: plain data, never pickles.

This module is shared by both ends and imports only the standard library and NumPy, so the
worker can load it by path without the project being importable there.

A frame is ``8-byte big-endian length | 4-byte header length | JSON header | blobs``; the header
lists the blob lengths. Values are encoded as a JSON tree in which everything that is not a
JSON scalar is a tagged object::

    {"t": "list" | "tuple", "v": [...]}       {"t": "dict", "v": [[key, value], ...]}
    {"t": "nd", "i": blob, "dtype": "<f4", "shape": [3, 4]}   # ndarray: raw bytes in a blob
    {"t": "np", "i": blob, "dtype": "<i8"}                      # NumPy scalar
    {"t": "rng", "state": {...}}     # numpy Generator: its bit generator's state, rebuilt on the other side
    {"t": "complex", "re": x, "im": y}   {"t": "bytes", "i": blob}   {"t": "float", "v": "nan"|"inf"|"-inf"}

Large argument arrays may be kept by the worker between calls (the grader often passes the same
table several times): ``{"t": "nd", ..., "keep": k}`` asks the worker to keep a private copy of
the array under key k, ``{"t": "ndref", "k": k}`` stands for that array again, and the request
header's ``"forget": [k, ...]`` drops keys first. The worker hands every call a fresh copy, so a
call that changes its argument in place cannot change what a later call receives. Only the
grader chooses keys, after comparing the bytes with its own private copy (``ArrayKeeper``).

Decoding is strict (whitelisted dtypes, sizes that add up, bounded depth and node count), so
whatever the worker sends, the grader gets numbers, strings, lists, tuples, dicts and plain
``numpy.ndarray`` objects, and nothing of the submission's classes.
"""

from __future__ import annotations

import json
import math
import struct

import numpy as np

MAX_DEPTH = 32
MAX_NODES = 1_000_000
MAX_HEADER = 16 * 1024 * 1024
# dtype kinds that may cross: bool, signed/unsigned ints, floats, complex, fixed-width str/bytes
ARRAY_KINDS = "biufcUS"
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class ProtocolError(Exception):
    """A frame or value that does not follow the protocol."""


class Unencodable(TypeError):
    """A value of a type that cannot cross (the message names the type)."""


# ----------------------------------------------------------------------------- values
def check_dtype(text: str) -> np.dtype:
    try:
        dt = np.dtype(text)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"unknown dtype {text[:40]!r}") from exc
    if dt.kind not in ARRAY_KINDS or dt.fields is not None or dt.subdtype is not None:
        raise ProtocolError(f"dtype {dt.str!r} may not cross")
    if dt.itemsize < 1:  # |S0, <U0: any shape would fit in zero bytes
        raise ProtocolError(f"dtype {dt.str!r} has no size")
    return dt


def encode(value, blobs: list, *, objects: bool = True, keeper=None) -> object:
    """`value` as a JSON-able tree; array bytes are appended to `blobs`. A worker encodes its
    replies with ``objects=False``: arrays of dtype object cannot be sent back. `keeper` (an
    ArrayKeeper, grader side only) replaces arrays the worker already holds by their key."""
    return _enc(value, blobs, 0, objects, keeper)


class ArrayKeeper:
    """The grader's record of the argument arrays one worker keeps (see the module docstring).

    An array is matched by comparing its bytes with the grader's own private copy (never by a
    hash, never by identity), so a key stands for exactly the bytes the worker was sent. At most
    `max_bytes` are kept, least recently used first out; `forget` lists the keys dropped since
    the last request, for the request header."""

    def __init__(self, min_bytes: int = 1 << 20, max_bytes: int = 96 << 20):
        self.min_bytes, self.max_bytes = min_bytes, max_bytes
        self._kept: dict[int, np.ndarray] = {}   # key -> private copy, least recently used first
        self._next = 0
        self.forget: list[int] = []

    def node(self, data: np.ndarray, blobs: list) -> dict | None:
        """The tree for C-contiguous `data` if it is worth keeping, else None."""
        if data.nbytes < self.min_bytes or data.nbytes > self.max_bytes:
            return None
        for key, kept in self._kept.items():
            if _same_bytes(kept, data):
                self._kept[key] = self._kept.pop(key)   # most recently used
                return {"t": "ndref", "k": key}
        while self._kept and sum(a.nbytes for a in self._kept.values()) + data.nbytes > self.max_bytes:
            self.forget.append(next(iter(self._kept)))
            del self._kept[self.forget[-1]]
        key, self._next = self._next, self._next + 1
        self._kept[key] = data.copy()
        blobs.append(memoryview(data.reshape(-1)).cast("B"))
        return {"t": "nd", "i": len(blobs) - 1, "dtype": data.dtype.str,
                "shape": list(data.shape), "keep": key}

    def reset(self) -> None:
        """Forget everything (a request that was encoded but never sent)."""
        self.forget.extend(self._kept)
        self._kept.clear()

    def take_forget(self) -> list[int]:
        out, self.forget = self.forget, []
        return out


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.str != b.dtype.str or a.shape != b.shape:
        return False
    size = a.dtype.itemsize
    as_int = np.dtype(f"u{size}") if size in (1, 2, 4, 8) else np.dtype("u1")
    x, y = a.reshape(-1).view(as_int), b.reshape(-1).view(as_int)
    # the ends first: different tables rarely share them, and this is cheap
    return (np.array_equal(x[:256], y[:256]) and np.array_equal(x[-256:], y[-256:])
            and np.array_equal(x, y))


def _enc(v, blobs, depth, objects=True, keeper=None):
    if depth > MAX_DEPTH:
        raise Unencodable("value nested too deeply")
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        return v
    if t is float:
        if math.isfinite(v):
            return v
        return {"t": "float", "v": "nan" if v != v else ("inf" if v > 0 else "-inf")}
    if isinstance(v, np.ndarray):
        arr = np.asarray(v)
        if type(arr) is not np.ndarray:  # a subclass: take the plain base data
            arr = arr.view(np.ndarray)
        if arr.dtype.kind == "O":
            if not objects:
                raise Unencodable("an array of dtype object cannot be sent back")
            flat = [_enc(x, blobs, depth + 1, objects) for x in arr.reshape(-1).tolist()]
            return {"t": "ndobj", "shape": list(arr.shape), "v": flat}
        if arr.dtype.kind not in ARRAY_KINDS or arr.dtype.fields is not None:
            raise Unencodable(f"an array of dtype {arr.dtype} cannot be sent")
        data = np.ascontiguousarray(arr)
        if keeper is not None and data.size and (node := keeper.node(data, blobs)) is not None:
            return node
        blobs.append(memoryview(data.reshape(-1)).cast("B") if data.size else b"")
        return {"t": "nd", "i": len(blobs) - 1, "dtype": arr.dtype.str, "shape": list(arr.shape)}
    if isinstance(v, np.generic):
        arr = np.asarray(v)
        if arr.dtype.kind not in ARRAY_KINDS:
            raise Unencodable(f"a NumPy scalar of dtype {arr.dtype} cannot be sent")
        blobs.append(arr.tobytes())
        return {"t": "np", "i": len(blobs) - 1, "dtype": arr.dtype.str}
    if isinstance(v, np.random.Generator):
        return {"t": "rng", "state": _enc(v.bit_generator.state, blobs, depth + 1, objects)}
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int.__index__(v)
    if isinstance(v, float):
        return _enc(float.__float__(v), blobs, depth, objects)
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, complex):
        return {"t": "complex", "re": _enc(v.real, blobs, depth + 1, objects),
                "im": _enc(v.imag, blobs, depth + 1, objects)}
    if isinstance(v, (bytes, bytearray)):
        blobs.append(bytes(v))
        return {"t": "bytes", "i": len(blobs) - 1}
    if isinstance(v, (list, tuple)):
        return {"t": "tuple" if isinstance(v, tuple) else "list",
                "v": [_enc(x, blobs, depth + 1, objects, keeper) for x in v]}
    if isinstance(v, dict):
        return {"t": "dict", "v": [[_enc(k, blobs, depth + 1, objects, keeper), _enc(x, blobs, depth + 1, objects, keeper)]
                                   for k, x in v.items()]}
    raise Unencodable(f"a value of type {t.__name__} cannot be sent back")


class _Decoder:
    def __init__(self, blobs: list, max_nodes: int = MAX_NODES, untrusted: bool = False,
                 kept: dict | None = None):
        self.blobs = blobs
        self.kept = kept
        self.nodes = 0
        self.max_nodes = max_nodes
        self.untrusted = untrusted

    def __call__(self, tree, depth: int = 0):
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise ProtocolError("value has too many parts")
        if depth > MAX_DEPTH + 2:
            raise ProtocolError("value nested too deeply")
        if tree is None or isinstance(tree, (bool, int, str)):
            return tree
        if isinstance(tree, float):
            return tree
        if isinstance(tree, dict):
            return self._tagged(tree, depth)
        raise ProtocolError(f"untagged {type(tree).__name__} in a value")

    def _blob(self, i) -> bytes:
        if type(i) is not int or not 0 <= i < len(self.blobs):
            raise ProtocolError("bad blob reference")
        return self.blobs[i]

    def _tagged(self, d, depth):
        tag = d.get("t")
        if tag in ("list", "tuple"):
            items = d.get("v")
            if not isinstance(items, list):
                raise ProtocolError("bad list")
            out = [self(x, depth + 1) for x in items]
            return tuple(out) if tag == "tuple" else out
        if tag == "dict":
            items = d.get("v")
            if not isinstance(items, list):
                raise ProtocolError("bad dict")
            out = {}
            for pair in items:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ProtocolError("bad dict item")
                k = self(pair[0], depth + 1)
                try:
                    hash(k)
                except TypeError:
                    raise ProtocolError("unhashable dict key") from None
                out[k] = self(pair[1], depth + 1)
            return out
        if tag == "nd":
            dt = check_dtype(str(d.get("dtype")))
            shape = d.get("shape")
            if (not isinstance(shape, list) or len(shape) > 32
                    or not all(type(n) is int and n >= 0 for n in shape)):
                raise ProtocolError("bad array shape")
            data = self._blob(d.get("i"))
            if math.prod(shape) * dt.itemsize != len(data):
                raise ProtocolError("array bytes do not match its shape and dtype")
            if not len(data):
                return np.zeros(shape, dtype=dt)
            # a view of the frame's own buffer (a fresh bytearray per frame): no copy
            arr = np.frombuffer(data, dtype=dt).reshape(shape)
            arr = arr if arr.flags.writeable else arr.copy()
            if "keep" in d:
                key = d["keep"]
                if self.kept is None or type(key) is not int:
                    raise ProtocolError("bad array key")
                private = arr.copy()
                private.flags.writeable = False
                self.kept[key] = private
            return arr
        if tag == "ndref":
            key = d.get("k")
            if self.kept is None or type(key) is not int or key not in self.kept:
                raise ProtocolError("unknown array key")
            return self.kept[key].copy()   # a fresh, writable copy for every call
        if tag == "ndobj":
            if self.untrusted:  # a grader never needs the worker's object arrays
                raise ProtocolError("arrays of dtype object may not cross")
            shape = d.get("shape")
            items = d.get("v")
            if (not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape)
                    or not isinstance(items, list) or len(items) != math.prod(shape)):
                raise ProtocolError("bad object array")
            arr = np.empty(len(items), dtype=object)
            for j, x in enumerate(items):
                arr[j] = self(x, depth + 1)
            return arr.reshape(shape)
        if tag == "np":
            dt = check_dtype(str(d.get("dtype")))
            data = self._blob(d.get("i"))
            if len(data) != dt.itemsize:
                raise ProtocolError("scalar bytes do not match its dtype")
            return np.frombuffer(bytes(data), dtype=dt)[0]
        if tag == "rng":
            return make_generator(self(d.get("state"), depth + 1))
        if tag == "float":
            v = d.get("v")
            if v not in ("nan", "inf", "-inf"):
                raise ProtocolError("bad float")
            return float(v)
        if tag == "complex":
            re, im = self(d.get("re"), depth + 1), self(d.get("im"), depth + 1)
            if not all(isinstance(x, (int, float)) for x in (re, im)):
                raise ProtocolError("bad complex")
            return complex(re, im)
        if tag == "bytes":
            return bytes(self._blob(d.get("i")))  # a copy, not a view
        raise ProtocolError(f"unknown tag {str(tag)[:20]!r}")


def decode(tree, blobs: list, *, untrusted: bool = False, kept: dict | None = None):
    """The value of an encoded tree. `untrusted` (the grader reading a worker's reply):
    object arrays and array keys are refused too. `kept` (worker side): the arrays kept between
    calls, by key. Every new array's size is its blob's size (itemsize >= 1), so nothing decoded
    is larger than the frame that carried it plus the kept arrays."""
    return _Decoder(blobs, untrusted=untrusted, kept=None if untrusted else kept)(tree)


def make_generator(state) -> np.random.Generator:
    """A numpy Generator whose bit generator has `state` (a whitelisted bit generator only)."""
    if not isinstance(state, dict) or state.get("bit_generator") not in BIT_GENERATORS:
        raise ProtocolError("bad generator state")
    bitgen = getattr(np.random, state["bit_generator"])()
    try:
        bitgen.state = state
    except (TypeError, ValueError, KeyError) as exc:
        raise ProtocolError(f"bad generator state: {exc}") from None
    return np.random.Generator(bitgen)


# ----------------------------------------------------------------------------- frames
def pack(header: dict, blobs: list) -> list:
    """One frame as a list of buffers to write in order (the blobs are not copied)."""
    views = [memoryview(b).cast("B") if not isinstance(b, bytes) else b for b in blobs]
    header = dict(header, blobs=[len(b) for b in views])
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    body_len = 4 + len(head) + sum(len(b) for b in views)
    return [struct.pack(">QI", body_len, len(head)) + head, *views]


def frame_length(prefix: bytes) -> int:
    return struct.unpack(">Q", prefix[:8])[0]


def unpack(body: bytes | memoryview) -> tuple[dict, list]:
    """(header, blobs) of a frame body (without its 8-byte length); blobs are memoryviews."""
    body = memoryview(body)
    if len(body) < 4:
        raise ProtocolError("truncated frame")
    (hlen,) = struct.unpack(">I", body[:4])
    if hlen > MAX_HEADER or 4 + hlen > len(body):
        raise ProtocolError("bad header length")
    try:
        header = json.loads(bytes(body[4:4 + hlen]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"header is not JSON ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not an object")
    lengths = header.get("blobs", [])
    if not isinstance(lengths, list) or not all(type(n) is int and n >= 0 for n in lengths):
        raise ProtocolError("bad blob lengths")
    pos, blobs = 4 + hlen, []
    for n in lengths:
        if pos + n > len(body):
            raise ProtocolError("truncated blobs")
        blobs.append(body[pos:pos + n])
        pos += n
    if pos != len(body):
        raise ProtocolError("trailing bytes after the blobs")
    return header, blobs
