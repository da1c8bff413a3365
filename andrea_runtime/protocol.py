"""The wire format between the grader and its submission worker: plain data, never pickles.

This module is shared by both ends and imports only the standard library, NumPy and the rest
of ``andrea_runtime`` (the package the grader copies whole into the worker's sandbox).

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
header's ``"forget": [k, ...]`` drops keys (after the request is decoded). The worker hands every
call a fresh copy, so a call that changes its argument in place cannot change what a later call
receives. Only the grader chooses keys, after comparing the bytes with its own private copy
(``ArrayKeeper``).

Where the kernel can seal shared memory (``Arena``), a kept array does not cross the pipe at
all: the grader writes it once into a memfd the worker maps read-only,
``{"t": "nd", "arena": offset, "dtype": ..., "shape": ..., "keep": k}``. The seal
(``F_SEAL_FUTURE_WRITE``, with shrink and grow) leaves the grader's own mapping the only
writable one, so the grader's record of what the worker keeps is the arena itself; the grader
never reads a value back from it (results always come back through the pipe).

Every other argument array of a call goes into a second memfd, the call region
(:class:`CallRegion`, not sealed, shared read-write): ``{"t": "nd", "region": offset, "dtype":
..., "shape": ...}``, with the request header's ``"region": bytes used``; a kept array gets
``"region": offset`` too, and the worker copies its kept bytes there. The worker passes views of
the region to the call as they are, and the grader compares the region with its own arrays
after the reply: the purity verdict (EMB-PURE-01) rests on those bytes, not on the worker's
``mutated`` list, which only adds what the grader cannot see (lists, dicts, arrays that did
not fit).

Decoding is strict (whitelisted dtypes, sizes that add up, bounded depth and node count), so
whatever the worker sends, the grader gets numbers, strings, lists, tuples, dicts and plain
``numpy.ndarray`` objects, and nothing of the submission's classes.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import struct

import numpy as np

from .snapshot import same_bytes

MAX_DEPTH = 32
MAX_NODES = 1_000_000
MAX_HEADER = 16 * 1024 * 1024
#: Blobs one frame may carry (each becomes a view: 8 million zero-length blobs named in a
#: 16 MiB header took 1.8 GB of the grader's memory). A frame holds a few arrays.
MAX_BLOBS = 1 << 16
#: Objects and arrays a frame's JSON header may hold (every '{' and '[' counts, those inside
#: its strings too), counted before it is decoded: JSON decodes to about 30 times its size in
#: Python objects (a 16 MiB header of {"":0} objects took 476 MiB of the grader's memory
#: before any node of it was judged); a value's nodes are bounded again as it is decoded
#: (MAX_NODES). A frame holds a few arrays, or a nested list of a result's rows.
MAX_CONTAINERS = 1 << 18
# dtype kinds that may cross: bool, signed/unsigned ints, floats, complex, fixed-width str/bytes
ARRAY_KINDS = "biufcUS"
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
ARENA_ALIGN = mmap.ALLOCATIONGRANULARITY   # regions start on a page: mappable by themselves
# memfd seals (linux/fcntl.h; not every Python names F_SEAL_FUTURE_WRITE)
_F_ADD_SEALS, _F_SEAL_SEAL, _F_SEAL_SHRINK, _F_SEAL_GROW, _F_SEAL_FUTURE_WRITE = (
    1033, 0x1, 0x2, 0x4, 0x10)


class ProtocolError(Exception):
    """A frame or value that does not follow the protocol."""


class Unencodable(TypeError):
    """A value of a type that cannot cross (the message names the type)."""


# ----------------------------------------------------------------------------- values
def check_dtype(text: str) -> np.dtype:
    dt = _DTYPES.get(text)
    if dt is not None:
        return dt
    try:
        dt = np.dtype(text)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"unknown dtype {text[:40]!r}") from exc
    if dt.kind not in ARRAY_KINDS or dt.fields is not None or dt.subdtype is not None:
        raise ProtocolError(f"dtype {dt.str!r} may not cross")
    if dt.itemsize < 1:  # |S0, <U0: any shape would fit in zero bytes
        raise ProtocolError(f"dtype {dt.str!r} has no size")
    if len(_DTYPES) < 256:   # only dtypes that passed the checks, and a bounded number of them
        _DTYPES[text] = dt
    return dt


_DTYPES: dict[str, np.dtype] = {}


def encode(value, blobs: list, *, objects: bool = True, keeper=None) -> object:
    """`value` as a JSON-able tree; array bytes are appended to `blobs`. A worker encodes its
    replies with ``objects=False``: arrays of dtype object cannot be sent back. `keeper` (an
    ArrayKeeper, grader side only) replaces arrays the worker already holds by their key."""
    return _enc(value, blobs, 0, objects, keeper)


class Arena:
    """Shared memory for the argument arrays a worker keeps (grader side).

    A memfd of `size` bytes that the grader maps read-write and then seals
    (``F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL``): after that no one can
    write it through the fd, map it writable, resize it or lift the seals, so the grader's
    mapping (made before the seal) is the only writable one. The worker gets the fd and maps it
    read-only. :meth:`create` returns None where the kernel cannot do this (the pipe is used).
    """

    def __init__(self, fd: int, size: int, buf: mmap.mmap):
        self.fd, self.size, self._mm = fd, size, buf
        self._used: dict[int, tuple[int, int]] = {}   # key -> (offset, nbytes)
        self.touched = 0    # bytes from the start that have been written (their pages exist)

    @classmethod
    def create(cls, size: int) -> "Arena | None":
        try:
            fd = os.memfd_create("andrea-grade-args", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        except (AttributeError, OSError):
            return None
        buf = None
        try:
            os.ftruncate(fd, size)
            buf = mmap.mmap(fd, size, flags=mmap.MAP_SHARED,
                            prot=mmap.PROT_READ | mmap.PROT_WRITE)
            import fcntl

            fcntl.fcntl(fd, _F_ADD_SEALS, _F_SEAL_FUTURE_WRITE | _F_SEAL_SHRINK | _F_SEAL_GROW
                        | _F_SEAL_SEAL)
            if _still_writable(fd, size):
                raise OSError("the seal is not enforced")
        except OSError:
            if buf is not None:
                buf.close()
            os.close(fd)
            return None
        return cls(fd, size, buf)

    def place(self, key: int, data: "np.ndarray", grow: bool = True) -> int | None:
        """Copy C-contiguous `data` into the first free region for `key`; its offset, or None
        if no region is free (with `grow=False`: none inside the part already touched).

        A page written for the first time costs far more than the copy into it (the kernel
        allocates and zeroes it: about 0.6 ms per MiB on a VM, against 0.05 ms to copy), and
        every page touched is freed again when the arena closes, so the caller prefers
        dropping old arrays to growing the touched part."""
        n = data.nbytes
        start = 0
        for off, used in sorted(self._used.values()):
            if off - start >= n:
                break
            start = -(-(off + used) // ARENA_ALIGN) * ARENA_ALIGN
        if start + n > (self.size if grow else self.touched):
            return None
        self.touched = max(self.touched, start + n)
        view = np.frombuffer(self._mm, dtype=np.uint8, count=n, offset=start)
        view[...] = memoryview(data.reshape(-1)).cast("B")
        self._used[key] = (start, n)
        return start

    def view(self, key: int, dtype, shape) -> "np.ndarray":
        """The grader's read-only view of what `key` holds."""
        off, n = self._used[key]
        arr = np.frombuffer(self._mm, dtype=np.uint8, count=n, offset=off)
        arr = arr.view(dtype).reshape(shape)
        arr.flags.writeable = False
        return arr

    def free(self, key: int) -> None:
        self._used.pop(key, None)

    def close(self) -> None:
        self._used.clear()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            self._mm.close()
        except BufferError:   # a view is still referenced somewhere: the GC unmaps it
            pass


class CallRegion:
    """Shared memory for one call's argument arrays, which the grader inspects after the call
    (grader side): the purity verdict (EMB-PURE-01) rests on these bytes, not on the worker's
    word.

    A memfd of `size` bytes, not sealed, mapped read-write and shared by the grader and the
    worker. For each request the grader writes every argument array the keeper does not keep
    into it (from offset 0: the pages touched stay as many as the largest call needs); the
    worker hands the call writable views of exactly those bytes (no private copy); after the
    reply the grader compares each region with the argument it holds in its own process
    (:meth:`changed`). Whatever runs in the worker can make a call look pure only by leaving
    the caller's bytes as they were. :meth:`create` returns None where no memfd can be made
    (the arrays then cross the pipe and the worker's word is all there is).
    """

    def __init__(self, fd: int, size: int, buf: mmap.mmap):
        self.fd, self.size, self._mm = fd, size, buf
        self.used = 0
        self.placed: list = []     # (argument key, offset, the grader's array) of this request
        self.key = None            # the argument being encoded (set by the caller)

    @classmethod
    def create(cls, size: int) -> "CallRegion | None":
        """Its size sealed (``F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL``; writes stay open to
        both sides): a worker that could shrink it would make the grader's next write into its
        mapping a SIGBUS of the grader."""
        try:
            fd = os.memfd_create("andrea-grade-call", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        except (AttributeError, OSError):
            return None
        try:
            import fcntl

            os.ftruncate(fd, size)
            fcntl.fcntl(fd, _F_ADD_SEALS, _F_SEAL_SHRINK | _F_SEAL_GROW | _F_SEAL_SEAL)
            buf = mmap.mmap(fd, size, flags=mmap.MAP_SHARED,
                            prot=mmap.PROT_READ | mmap.PROT_WRITE)
        except OSError:
            os.close(fd)
            return None
        return cls(fd, size, buf)

    def reset(self) -> None:
        """A new request: its arrays are placed from the start again."""
        self.used = 0
        self.placed = []

    def reserve(self, data: np.ndarray) -> int | None:
        """Room for `data` (recorded as the current argument's), not written: the offset, or
        None if it does not fit. The worker copies a kept array there itself."""
        start = -(-self.used // 64) * 64
        if self._mm is None or start + data.nbytes > self.size:
            return None
        self.used = start + data.nbytes
        self.placed.append((self.key, start, data))
        return start

    def node(self, data: np.ndarray) -> dict | None:
        """Copy C-contiguous `data` into the region; its tree, or None if it does not fit (it
        crosses the pipe)."""
        start = self.reserve(data)
        if start is None:
            return None
        view = np.frombuffer(self._mm, dtype=np.uint8, count=data.nbytes, offset=start)
        view[...] = memoryview(data.reshape(-1)).cast("B")
        return {"t": "nd", "region": start, "dtype": data.dtype.str, "shape": list(data.shape)}

    def changed(self) -> list:
        """The keys of the arguments whose bytes in the region are no longer the grader's."""
        out = []
        for key, off, data in self.placed:
            now = np.frombuffer(self._mm, dtype=data.dtype, count=data.size, offset=off)
            if not same_bytes(now.reshape(data.shape), data) and key not in out:
                out.append(key)
        return out

    def close(self) -> None:
        self.placed = []
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self._mm is not None:
            try:
                self._mm.close()
            except BufferError:   # a view is still referenced somewhere: the GC unmaps it
                pass
            self._mm = None


class RegionView:
    """The worker's side of a :class:`CallRegion`: for each request, a shared read-write map of
    the part it uses (:meth:`map`, a ctypes array over it: no file descriptor is held), whose
    arrays go to the call as they are. A map the submission still holds after the call is turned
    into private memory with the same bytes (:meth:`release`), so an argument it keeps never
    changes when the grader reuses the region, and it cannot write the grader's region between
    calls. A map is unmapped when the last array over it is gone."""

    _PROT_RW, _MAP_SHARED, _MAP_PRIVATE_ANON_FIXED = 0x3, 0x01, 0x02 | 0x20 | 0x10

    def __init__(self, fd: int, size: int):
        import ctypes

        self.fd, self.size = fd, size
        libc = ctypes.CDLL(None, use_errno=True)
        self._mmap, self._munmap = libc.mmap, libc.munmap
        self._mmap.restype = ctypes.c_void_p
        self._mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                               ctypes.c_int, ctypes.c_long]
        self._munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self._ctypes = ctypes

    def __len__(self) -> int:
        return self.size

    def map(self, used: int):
        """A writable buffer of the region's first `used` bytes (None: not a valid size)."""
        import weakref

        if type(used) is not int or not 0 < used <= self.size:
            return None
        addr = self._mmap(None, used, self._PROT_RW, self._MAP_SHARED, self.fd, 0)
        if addr in (None, self._ctypes.c_void_p(-1).value):
            raise OSError(self._ctypes.get_errno(), "the call region could not be mapped")
        buf = (self._ctypes.c_char * used).from_address(addr)
        weakref.finalize(buf, self._munmap, addr, used)
        return buf

    def release(self, buf) -> None:
        """Replace the pages of `buf` (still referenced) by private ones with its bytes."""
        ctypes = self._ctypes
        n, addr = len(buf), ctypes.addressof(buf)
        data = bytes(buf)
        if self._mmap(addr, n, self._PROT_RW, self._MAP_PRIVATE_ANON_FIXED, -1, 0) != addr:
            raise OSError("the worker could not make its argument private")
        ctypes.memmove(addr, data, n)


def _still_writable(fd: int, size: int) -> bool:
    """Whether a sealed memfd can still be written through the fd or a new shared mapping."""
    try:
        os.pwrite(fd, b"\0", 0)
        return True
    except OSError:
        pass
    try:
        m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    except OSError:
        return False
    m.close()
    return True


class ArenaView:
    """The worker's side of an arena: a read-only shared mapping of all of it (the kept arrays)
    and, for each call, a copy-on-write mapping of one region (the call's fresh copy: pages are
    copied only when the call writes them)."""

    #: At most this many copy-on-write maps alive at once (each holds a duplicate of the arena's
    #: fd, and the worker may open 64 files in all): a submission that keeps more of its
    #: arguments gets plain copies beyond that.
    MAX_LIVE_MAPS = 8

    def __init__(self, fd: int, size: int):
        self.fd, self.size = fd, size
        self.shared = mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
        self.offsets: dict[int, int] = {}    # key -> offset of its region
        self._live: list = []                # weak references to the live copy-on-write maps

    def __len__(self) -> int:
        return self.size

    def kept(self, key: int, offset: int, dt: np.dtype, shape) -> np.ndarray:
        self.offsets[key] = offset
        return np.frombuffer(self.shared, dtype=dt, count=math.prod(shape),
                             offset=offset).reshape(shape)   # read-only: mapped so

    def fresh(self, key: int, dt: np.dtype, shape, cow: list | None = None):
        """A writable copy-on-write array of what `key` holds (None where no map can be made:
        the caller copies); its mapping is appended to `cow`. Unwritten pages show the arena
        region: :func:`detach` makes them private if the submission keeps the array after its
        call."""
        import weakref

        self._live = [r for r in self._live if r() is not None]
        if len(self._live) >= self.MAX_LIVE_MAPS:
            return None
        n = math.prod(shape) * dt.itemsize
        try:
            private = mmap.mmap(self.fd, n, flags=mmap.MAP_PRIVATE,
                                prot=mmap.PROT_READ | mmap.PROT_WRITE, offset=self.offsets[key])
        except OSError:   # out of file descriptors or address space: a copy
            return None
        self._live.append(weakref.ref(private))
        if cow is not None:
            cow.append(private)
        return np.frombuffer(private, dtype=dt, count=math.prod(shape)).reshape(shape)


def detach(private: mmap.mmap) -> None:
    """Copy every page of a copy-on-write mapping (write each page's first byte back), so that
    the grader reusing the arena region later cannot change what it shows."""
    pages = np.frombuffer(private, dtype=np.uint8)[::mmap.PAGESIZE]
    pages[...] = pages.copy()


def map_arena(fd: int, size: int) -> ArenaView:
    """The worker's view of the grader's arena (`fd` stays open: copy-on-write maps need it)."""
    return ArenaView(fd, size)


class ArrayKeeper:
    """The grader's record of the argument arrays one worker keeps (see the module docstring).

    An array is matched by comparing its bytes with the grader's own private copy (never by a
    hash, never by identity), so a key stands for exactly the bytes the worker was sent. At most
    `max_bytes` are kept, least recently used first out; `forget` lists the keys dropped since
    the last request, for the request header. A key used by the request being encoded is never
    dropped for another array of the same request (with an arena its region would be
    overwritten before the worker reads it): such an array is sent in full instead.

    With an `arena`, new kept arrays are written there (the private copy is the arena region)
    instead of being appended to the frame's blobs.
    """

    def __init__(self, min_bytes: int = 1 << 20, max_bytes: int = 96 << 20,
                 arena: Arena | None = None, region: CallRegion | None = None):
        self.min_bytes, self.max_bytes = min_bytes, max_bytes
        self.arena = arena
        self.region = region     # where the arrays it does not keep go (else the frame)
        self._kept: dict[int, np.ndarray] = {}   # key -> private copy, least recently used first
        self._next = 0
        self._pinned: set[int] = set()           # keys the request being encoded uses
        self.forget: list[int] = []

    def node(self, data: np.ndarray, blobs: list) -> dict | None:
        """The tree for C-contiguous `data` if it is worth keeping, else None."""
        if data.nbytes < self.min_bytes or data.nbytes > self.max_bytes:
            return None
        for key, kept in self._kept.items():
            if same_bytes(kept, data):
                self._kept[key] = self._kept.pop(key)   # most recently used
                self._pinned.add(key)
                return {"t": "ndref", "k": key}
        key = self._next
        if self.arena is not None:
            offset = self.arena.place(key, data, grow=False)   # reuse touched pages first,
            while offset is None and self._drop_oldest():      # even at the cost of old arrays
                offset = self.arena.place(key, data, grow=False)
            if offset is None:
                offset = self.arena.place(key, data)
            if offset is None:
                return None
            self._next += 1
            self._kept[key] = self.arena.view(key, data.dtype, data.shape)
            self._pinned.add(key)
            return {"t": "nd", "arena": offset, "dtype": data.dtype.str,
                    "shape": list(data.shape), "keep": key}
        while sum(a.nbytes for a in self._kept.values()) + data.nbytes > self.max_bytes:
            if not self._drop_oldest():
                return None
        self._next += 1
        self._kept[key] = data.copy()
        self._pinned.add(key)
        blobs.append(memoryview(data.reshape(-1)).cast("B"))
        return {"t": "nd", "i": len(blobs) - 1, "dtype": data.dtype.str,
                "shape": list(data.shape), "keep": key}

    def _drop_oldest(self) -> bool:
        """Drop the least recently used key the current request does not use (False: none)."""
        for key in self._kept:
            if key not in self._pinned:
                del self._kept[key]
                if self.arena is not None:
                    self.arena.free(key)
                self.forget.append(key)
                return True
        return False

    def reset(self) -> None:
        """Forget everything (a request that was encoded but never sent)."""
        self.forget.extend(self._kept)
        if self.arena is not None:
            for key in self._kept:
                self.arena.free(key)
        self._kept.clear()
        self._pinned.clear()

    def take_forget(self) -> list[int]:
        """The keys to drop, for the header of the request just encoded (which ends it)."""
        out, self.forget = self.forget, []
        self._pinned.clear()
        return out

    def close(self) -> None:
        self._kept.clear()
        if self.arena is not None:
            self.arena.close()
            self.arena = None
        if self.region is not None:
            self.region.close()
            self.region = None


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
    if t is list or t is tuple:   # the common containers first (every request is a list)
        return {"t": "list" if t is list else "tuple",
                "v": [_enc(x, blobs, depth + 1, objects, keeper) for x in v]}
    if isinstance(v, np.ndarray):
        arr = v if t is np.ndarray else np.asarray(v)
        if type(arr) is not np.ndarray:  # a subclass: take the plain base data
            arr = arr.view(np.ndarray)
        if arr.dtype.kind == "O":
            if not objects:
                raise Unencodable("an array of dtype object cannot be sent back")
            flat = [_enc(x, blobs, depth + 1, objects) for x in arr.reshape(-1).tolist()]
            return {"t": "ndobj", "shape": list(arr.shape), "v": flat}
        if arr.dtype.kind not in ARRAY_KINDS or arr.dtype.fields is not None:
            raise Unencodable(f"an array of dtype {arr.dtype} cannot be sent")
        data = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
        region = getattr(keeper, "region", None)
        if keeper is not None and data.size and (node := keeper.node(data, blobs)) is not None:
            if region is not None and (off := region.reserve(data)) is not None:
                node["region"] = off    # the worker copies what it keeps there for the call
            return node
        if region is not None and data.size and (node := region.node(data)) is not None:
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
                 kept: dict | None = None, arena=None, pristine: dict | None = None,
                 cow: list | None = None, region=None):
        self.blobs = blobs
        self.region = region
        self.kept = kept
        self.arena = arena
        self.pristine = pristine
        self.cow = cow
        self.nodes = 0
        self.used: set[int] = set()     # blobs already decoded (_blob)
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
        """Blob `i`, which a value may name only once: the encoder gives every array, scalar
        and bytes value a blob of its own, and a reply naming one blob many times would decode
        to many copies of it (a 16 MiB blob named 160 times: 2.5 GiB), so the bytes decoded
        never exceed the bytes received."""
        if type(i) is not int or not 0 <= i < len(self.blobs):
            raise ProtocolError("bad blob reference")
        if i in self.used:
            raise ProtocolError("a blob named twice")
        self.used.add(i)
        return self.blobs[i]

    def _fresh(self, key: int, private: np.ndarray) -> np.ndarray:
        """A fresh, writable copy of a kept array for one call (remembered with its source): a
        copy-on-write map of its arena region, else a copy."""
        arr = None
        if self.arena is not None and key in self.arena.offsets:
            arr = self.arena.fresh(key, private.dtype, private.shape, self.cow)
        if arr is None:
            arr = private.copy()
        if self.pristine is not None:
            self.pristine[id(arr)] = private
        return arr

    def _from_arena(self, d, dt, shape):
        key, offset = d.get("keep"), d.get("arena")
        if self.arena is None or self.kept is None or type(key) is not int:
            raise ProtocolError("bad arena reference")
        n = math.prod(shape) * dt.itemsize
        if (type(offset) is not int or offset < 0 or offset % ARENA_ALIGN or n < 1
                or offset + n > len(self.arena)):
            raise ProtocolError("bad arena reference")
        self.kept[key] = self.arena.kept(key, offset, dt, shape)
        if "region" in d:
            return self._from_region(d, dt, shape, self.kept[key])
        return self._fresh(key, self.kept[key])

    def _from_region(self, d, dt, shape, source=None):
        """A writable view of the call region (the grader compares those bytes after the
        call); `source`: a kept array, copied there first (the call's fresh copy)."""
        offset = d.get("region")
        n = math.prod(shape) * dt.itemsize
        if (self.region is None or type(offset) is not int or offset < 0 or n < 1
                or offset + n > len(self.region)):
            raise ProtocolError("bad region reference")
        arr = np.frombuffer(self.region, dtype=dt, count=math.prod(shape),
                            offset=offset).reshape(shape)
        if source is not None:
            if source.dtype != dt or source.shape != arr.shape:
                raise ProtocolError("bad region reference")
            arr[...] = source
        if self.pristine is not None:   # the grader judges it: the worker keeps no copy
            self.pristine[id(arr)] = arr
        return arr

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
            if type(shape) is not list or len(shape) > 32:
                raise ProtocolError("bad array shape")
            for n in shape:
                if type(n) is not int or n < 0:
                    raise ProtocolError("bad array shape")
            if "arena" in d:
                return self._from_arena(d, dt, shape)
            if "region" in d and "keep" not in d:   # the grader wrote it there
                return self._from_region(d, dt, shape)
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
                if "region" in d:
                    return self._from_region(d, dt, shape, private)
                if self.pristine is not None:
                    self.pristine[id(arr)] = private
            return arr
        if tag == "ndref":
            key = d.get("k")
            if self.kept is None or type(key) is not int or key not in self.kept:
                raise ProtocolError("unknown array key")
            if "region" in d:
                private = self.kept[key]
                return self._from_region(d, private.dtype, private.shape, private)
            return self._fresh(key, self.kept[key])
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


def decode(tree, blobs: list, *, untrusted: bool = False, kept: dict | None = None,
           arena: ArenaView | None = None, pristine: dict | None = None,
           cow: list | None = None, region=None):
    """The value of an encoded tree. `untrusted` (the grader reading a worker's reply):
    object arrays, array keys and arena references are refused too. Worker side: `kept`, the
    arrays kept between calls, by key; `arena`, its view of the grader's arena; `pristine`, if
    given, maps id() of each fresh copy of a kept array to the kept array (the worker compares
    them after the call) and each array in the call `region` (the worker's map of the
    grader's :class:`CallRegion`) to itself (the grader compares those); `cow` collects the
    copy-on-write ones (see :func:`detach`). Every new array's size is its blob's size
    (itemsize >= 1) or a part of the arena or of the region, and each blob is decoded at most
    once, so nothing decoded is larger than the frame that carried it plus the kept arrays and
    the region."""
    if untrusted:
        kept = arena = region = None
    return _Decoder(blobs, untrusted=untrusted, kept=kept, arena=arena, pristine=pristine,
                    cow=cow, region=region)(tree)


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
# made once: json.dumps builds a new encoder on every call that passes options
def values_in(value, stop: int | None = None) -> int:
    """The values `value` holds, as a contract's result is sized: an array's elements (as
    8-byte numbers when its elements are wider, such as long strings), one per number and per
    list, tuple or dict with the items it holds, a str or bytes value one per 8 characters.
    Counting stops once past `stop` (a list that holds itself ends too)."""
    total, todo, plain = 0, [value], (int, float, bool, type(None))
    while todo:
        v = todo.pop()
        if isinstance(v, np.ndarray):
            total += max(int(v.size), -(-int(v.nbytes) // 8))
        elif isinstance(v, (str, bytes, bytearray)):
            total += max(1, -(-len(v) // 8))
        else:
            total += 1
            if isinstance(v, (list, tuple)):
                nested = [x for x in v if type(x) not in plain]   # numbers: counted at once
                total += len(v) - len(nested)
                todo += nested
            elif isinstance(v, dict):
                todo += v.keys()
                todo += v.values()
        if stop is not None and total > stop:
            break
    return total


def frame_size(parts: list) -> int:
    """The bytes of a frame as :func:`pack` returns it (its length prefix included)."""
    return sum(len(p) for p in parts)


_JSON = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def pack(header: dict, blobs: list) -> list:
    """One frame as a list of buffers to write in order (the blobs are not copied)."""
    views = [b if type(b) is bytes else memoryview(b).cast("B") for b in blobs]
    lengths = [len(b) for b in views]
    header = dict(header, blobs=lengths)
    head = _JSON.encode(header).encode("utf-8")
    return [_PREFIX.pack(4 + len(head) + sum(lengths), len(head)) + head, *views]


def drop_written(parts: list, n: int) -> None:
    """Remove the first `n` bytes a writev took from `parts` (buffers in order), in place."""
    while n and parts:
        if n >= len(parts[0]):
            n -= len(parts.pop(0))
        else:
            parts[0] = parts[0][n:]
            n = 0


def frame_length(prefix: bytes) -> int:
    return _LENGTH.unpack_from(prefix)[0]


_loads = json.JSONDecoder().decode
_PREFIX, _LENGTH, _HEAD = struct.Struct(">QI"), struct.Struct(">Q"), struct.Struct(">I")


def unpack(body: bytes | memoryview) -> tuple[dict, list]:
    """(header, blobs) of a frame body (without its 8-byte length); blobs are memoryviews."""
    body = memoryview(body)
    if len(body) < 4:
        raise ProtocolError("truncated frame")
    (hlen,) = _HEAD.unpack_from(body)
    if hlen > MAX_HEADER or 4 + hlen > len(body):
        raise ProtocolError("bad header length")
    try:
        text = str(body[4:4 + hlen], "utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"header is not JSON ({type(exc).__name__})") from None
    if text.count("{") + text.count("[") > MAX_CONTAINERS:
        raise ProtocolError(f"more than {MAX_CONTAINERS} objects and arrays in one header")
    try:
        header = _loads(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"header is not JSON ({type(exc).__name__})") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not an object")
    lengths = header.get("blobs", [])
    if type(lengths) is not list:
        raise ProtocolError("bad blob lengths")
    if len(lengths) > MAX_BLOBS:
        raise ProtocolError(f"more than {MAX_BLOBS} blobs in one frame")
    pos, blobs, end = 4 + hlen, [], len(body)
    for n in lengths:
        if type(n) is not int or n < 0:
            raise ProtocolError("bad blob lengths")
        if pos + n > end:
            raise ProtocolError("truncated blobs")
        blobs.append(body[pos:pos + n])
        pos += n
    if pos != end:
        raise ProtocolError("trailing bytes after the blobs")
    return header, blobs
