"""Launch executor-built kernels over numpy buffers, with the checks a GPU cannot give.

``Module(source).get_function(name)`` returns a kernel callable like ``cupy.RawKernel``:
``kernel(grid, block, args, shared_mem=0)`` with numpy arrays for pointer parameters and
numpy scalars (np.int32, np.float32, ...) for value parameters, so the host code of andrea_gpu
is the same on both backends.

Each launch runs the whole grid twice (env ``ANDREA_EXEC_ORDERS``), each time from the same
starting contents:

* with **happens-before race detection** (builds with ``checked=True``, the default): two
  accesses to the same bytes of an argument or of shared memory, from different CUDA threads,
  not ordered by a ``__syncthreads()`` of their block, one a plain write, or one plain and the
  other an atomic (two atomics never race, unless one is block-scoped and they come from
  different blocks), are a ``RaceError`` naming the kernel, the argument and element, both
  threads and both source lines, whatever values they produce. A read of shared memory that no thread of the
  block wrote is a ``KernelError``;
* in different schedules (blocks and the threads of a block forward, shuffled); launches that
  used no atomic must give the same bytes in both (a safety net for what the checker does not
  see); with atomics, float rounding may legitimately depend on the order, so they are not
  compared;
* with every array argument in its own mapping, between two PROT_NONE guard pages: first
  flush against the page after it, then flush against the page before it (16-byte aligned), so
  a read or write past either end faults and is reported with the argument and the byte offset.
  The bytes between a buffer and its guard (fewer than 16 past the end, in the first layout)
  hold canaries that are checked after the launch, so a write there is reported too.

Only when every run succeeds are the results copied back into the caller's arrays (those passed
for non-const pointer parameters; a ``const T*`` argument is never read back or compared).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import findings as F
from .build import _KERNEL_RE, build, kernel_names
from .findings import Said

PAGE = mmap.PAGESIZE
#: Each CUDA thread's stack in the executor (runtime.cpp's kStack), in KiB.
STACK_KIB = 32
CANARY = 0xFF
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

ORDERS = {"forward": 0, "reverse": 1, "shuffle": 2}
#: The GPU cost model: memory accesses a GPU makes per second (4-byte accesses at the ~4 TB/s of
#: an H100/H200's memory; caches make real kernels faster, so this errs towards slow). A kernel's
#: time is judged by its accesses (counted in checked builds), not by the executor's wall time.
GPU_ACCESSES_PER_S = 1e12
#: Memory accesses the race checker records in one launch; the rest of a larger launch runs
#: untracked (and in one schedule): its races are found at the small sizes every check also runs.
TRACK_BUDGET = 1 << 22
#: Schedules a launch runs in unless told otherwise (env ANDREA_EXEC_ORDERS, comma-separated).
#: Two runs also give both guard-page layouts (flush after, flush before).
DEFAULT_ORDERS = ("forward", "shuffle")
# The runtime keeps one launch's state in globals of each library (and installs process-wide
# signal handlers while it runs): one launch at a time per process.
_LAUNCH_LOCK = threading.Lock()
_STATUS = {1: F.MSG_STATUS_FAULT, 2: F.MSG_STATUS_DIVERGENT, 3: F.MSG_STATUS_NOT_REACHED,
           4: F.MSG_STATUS_TRAP, 5: F.MSG_STATUS_BAD_LAUNCH}


class KernelError(F.FindingError):
    """A kernel misbehaved on the CPU executor (fault, out-of-bounds access, barrier misuse).

    Built from a finding (``findings.Said``): ``str(exc)`` is its English sentence, and
    ``translatable()`` gives it as a template and values for feedback in other languages (a
    plain message, such as the GPU sanitizer's, has none).
    """


class OutOfBoundsError(KernelError):
    """A kernel touched memory outside an argument buffer."""


class RaceError(KernelError):
    """Two CUDA threads access the same bytes unordered (or two schedules disagree)."""


def _flat_to_xyz(flat: int, dims) -> tuple[int, int, int]:
    x, y = dims[0], dims[1]
    return flat % x, (flat // x) % y, flat // (x * y)


def _source_line(lib_path: str, offset: int, source_name: str) -> tuple[str, int] | None:
    """(file, line) of a code offset in a built library, preferring the kernel source's own
    lines over the prelude's; None when addr2line is missing or knows nothing."""
    tool = shutil.which("addr2line")
    if offset < 0 or tool is None:
        return None
    try:
        out = subprocess.run([tool, "-i", "-e", lib_path, hex(offset)], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    frames = []
    for line in out.splitlines():
        m = re.match(r"(.*):(\d+)", line.split(" (discriminator")[0].strip())
        if m and m.group(1) != "??":
            frames.append((m.group(1), int(m.group(2))))
    base = os.path.basename(source_name)
    for f in frames:
        if os.path.basename(f[0]) == base:
            return base, f[1]
    return (os.path.basename(frames[0][0]), frames[0][1]) if frames else None


def default_orders() -> tuple[str, ...]:
    env = os.environ.get("ANDREA_EXEC_ORDERS")
    if not env:
        return DEFAULT_ORDERS
    orders = tuple(o.strip() for o in env.split(",") if o.strip())
    bad = [o for o in orders if o not in ORDERS]
    if bad or not orders:
        raise ValueError(f"ANDREA_EXEC_ORDERS must list schedules from {sorted(ORDERS)}, "
                         f"got {env!r}")
    return orders


class _Guarded:
    """One array argument copied into its own mapping between two PROT_NONE pages."""

    def __init__(self, arr: np.ndarray, flush_end: bool):
        self.nbytes = arr.nbytes
        body = -(-max(self.nbytes, 1) // PAGE) * PAGE + (PAGE if not flush_end else 0)
        self.size = body + 2 * PAGE
        base = _libc.mmap(None, self.size, mmap.PROT_READ | mmap.PROT_WRITE,
                          mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise MemoryError(f"cannot map {self.size} bytes for a kernel argument")
        self.base = base
        self.lo, self.hi = base + PAGE, base + PAGE + body  # accessible range
        _libc.mprotect(base, PAGE, 0)
        _libc.mprotect(self.hi, PAGE, 0)
        self.addr = ((self.hi - self.nbytes) & ~15) if flush_end else self.lo
        self.end = self.addr + self.nbytes
        ctypes.memset(self.lo, CANARY, self.addr - self.lo)
        ctypes.memset(self.end, CANARY, self.hi - self.end)
        ctypes.memmove(self.addr, arr.ctypes.data, self.nbytes)

    def read(self, dtype, shape) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        ctypes.memmove(out.ctypes.data, self.addr, self.nbytes)
        return out

    def canary_damage(self) -> int | None:
        """Offset (from the buffer start) of the first overwritten canary byte, else None."""
        def bad(lo, hi):
            raw = np.frombuffer((ctypes.c_char * (hi - lo)).from_address(lo), dtype=np.uint8)
            return np.flatnonzero(raw != CANARY)
        before, after = bad(self.lo, self.addr), bad(self.end, self.hi)
        if before.size:
            return int(before[0]) - (self.addr - self.lo)
        return int(self.nbytes + after[0]) if after.size else None

    def free(self):
        _libc.munmap(self.base, self.size)


@dataclass(frozen=True)
class _Param:
    kind: int  # 0 pointer, 1 pointer to const, 100+size float, 200+size signed, 300+size unsigned

    @property
    def pointer(self) -> bool:
        return self.kind in (0, 1)

    def describe(self) -> str:
        if self.pointer:
            return "a pointer (pass a numpy array)"
        fam, size = divmod(self.kind, 100)
        name = {1: "float", 2: "int", 3: "uint"}[fam]
        return f"a {8 * size}-bit {name} (pass np.{name}{8 * size})"


class Kernel:
    """One ``__global__`` function of a Module, callable like ``cupy.RawKernel``."""

    def __init__(self, module: "Module", name: str):
        self.module, self.name = module, name
        #: The most estimated GPU seconds one launch may take (None: no limit); checked builds
        #: stop a launch past it (MSG_TOO_MUCH_WORK).
        self.gpu_limit_s: float | None = None
        #: The last launch's memory accesses (its first run; 0 in unchecked builds), and whether
        #: its race check stopped at TRACK_BUDGET.
        self.last_accesses = 0
        self.last_track_cut = False
        lib = module.lib
        self._launch = getattr(lib, f"__andrea_launch__{name}")
        self._launch.argtypes = [ctypes.POINTER(ctypes.c_ulonglong), ctypes.POINTER(ctypes.c_void_p),
                                 ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_int, ctypes.c_int]
        self._launch.restype = ctypes.c_int
        sig = getattr(lib, f"__andrea_sig__{name}")
        kinds = (ctypes.c_int * 64)()
        n = sig(kinds, 64)
        self.params = tuple(_Param(kinds[i]) for i in range(n))
        names = module.param_names.get(name, ())
        self.param_names = tuple(names) if len(names) == n else tuple(f"#{i}" for i in range(n))

    def _arg(self, i: int) -> Said:
        return Said(F.MSG_ARGUMENT, index=i, name=self.param_names[i])

    # ------------------------------------------------------------------ argument handling
    def _check_args(self, args: Sequence) -> None:
        if len(args) != len(self.params):
            raise TypeError(f"kernel {self.name} takes {len(self.params)} arguments, "
                            f"got {len(args)}")
        for i, (a, p) in enumerate(zip(args, self.params)):
            if p.pointer:
                if not isinstance(a, np.ndarray):
                    raise TypeError(f"kernel {self.name} argument {i} must be {p.describe()}, "
                                    f"got {type(a).__name__}")
                if not a.flags.c_contiguous:
                    raise ValueError(f"kernel {self.name} argument {i} must be C-contiguous")
            else:
                fam, size = divmod(p.kind, 100)
                want = {1: "f", 2: "i", 3: "u"}[fam]
                if not isinstance(a, np.generic) or a.dtype.kind != want or a.dtype.itemsize != size:
                    raise TypeError(f"kernel {self.name} argument {i} must be {p.describe()}, "
                                    f"got {type(a).__name__} {a!r}")

    @staticmethod
    def _dims(name: str, value) -> tuple[int, int, int]:
        dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        if not 1 <= len(dims) <= 3 or not all(isinstance(d, (int, np.integer)) for d in dims):
            raise TypeError(f"{name} must be an int or a tuple of 1 to 3 ints, got {value!r}")
        dims = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
        if min(dims) < 1:
            raise ValueError(f"{name} dimensions must be at least 1, got {value!r}")
        return dims

    # ------------------------------------------------------------------ launch
    def __call__(self, grid, block, args, shared_mem: int = 0, *, orders=None, seed: int = 0,
                 check_order: bool = True):
        """Run the grid over `args` (see the module docstring); results land in the arrays.

        `orders` names the schedules (default: ``default_orders()``); with check_order=False
        the runs are never compared (launches that used atomics are not compared anyway).
        Raises OutOfBoundsError, RaceError or KernelError.
        """
        g, b = self._dims("grid", grid), self._dims("block", block)
        if b[0] * b[1] * b[2] > 1024:
            raise ValueError(f"block has {b[0] * b[1] * b[2]} threads, more than 1024")
        args = list(args)
        self._check_args(args)
        orders = tuple(orders or default_orders())
        arrays = [i for i, p in enumerate(self.params) if p.pointer]
        outputs = [i for i in arrays if self.params[i].kind == 0]  # const pointees stay as they are
        results = None
        uninit = None
        for run, order in enumerate(orders):
            got, atomics = self._run(g, b, int(shared_mem), args, arrays, outputs, ORDERS[order],
                                     seed + run, flush_end=run % 2 == 0, label=order, block=b,
                                     grid=g)
            if results is None:
                results = got
                uninit = self._uninit_read()
                lib = self.module.lib
                self.last_accesses = int(lib.andrea_exec_accesses())
                self.last_track_cut = bool(lib.andrea_exec_track_cut())
                if self.last_track_cut:  # a large launch: one schedule, as a GPU runs it once
                    break
            elif check_order and not atomics:
                for i, first, now in zip(outputs, results, got):
                    if not np.array_equal(first.reshape(-1).view(np.uint8),
                                          now.reshape(-1).view(np.uint8)):
                        diff = np.flatnonzero(first.reshape(-1).view(np.uint8)
                                              != now.reshape(-1).view(np.uint8))
                        elem = int(diff[0]) // max(first.itemsize, 1)
                        raise RaceError(Said(
                            F.MSG_SCHEDULES_DIFFER, kernel=self.name, argument=self._arg(i),
                            first=F.schedule(orders[0]), second=F.schedule(order), element=elem,
                            got=repr(first.reshape(-1)[elem]), other=repr(now.reshape(-1)[elem])))
        if uninit is not None:
            self._judge_uninit(uninit, results, g, b, int(shared_mem), args, arrays, outputs,
                               ORDERS[orders[0]], seed, orders[0])
        for i, res in zip(outputs, results):
            np.copyto(args[i], res)

    def _uninit_read(self):
        """The tracked run's first read of never-written shared memory (race-report layout), or
        None."""
        if not self.module.checked:
            return None
        info = (ctypes.c_longlong * 16)()
        return list(info) if self.module.lib.andrea_exec_uninit(info) else None

    #: Bytes shared memory is filled with in the runs that judge a read of never-written
    #: shared memory (the first run's is 0xFF: -1, NaN): zero, and a positive int / float
    #: (0x42424242: 1111638594, 48.56).
    JUDGE_FILLS = (0x00, 0x42)

    def _judge_uninit(self, info, results, g, b, shmem, args, arrays, outputs, order, seed, label):
        """A read of never-written shared memory is a finding only when the value read is used:
        the launch runs again in the first run's schedule with shared memory filled with other
        bytes (JUDGE_FILLS) instead of 0xFF. The same outputs (bit for bit: the same schedule
        rounds atomics the same way) mean the value reached no output, address, branch or
        atomic that matters (a slot read behind a short-circuited bound check, never used);
        different outputs, or a run that fails, mean it did."""
        for fill in self.JUDGE_FILLS:
            try:
                got, _ = self._run(g, b, shmem, args, arrays, outputs, order, seed,
                                   flush_end=True, label=label, block=b, grid=g, fill=fill,
                                   track=False)
                same = all(np.array_equal(x.reshape(-1).view(np.uint8),
                                          y.reshape(-1).view(np.uint8))
                           for x, y in zip(results, got))
            except KernelError:
                same = False
            if not same:
                self._race(7, args, b, g, info)

    def _run(self, g, b, shmem, args, arrays, outputs, order, seed, flush_end, label, block,
             grid, fill=0xFF, track=True):
        guarded = {i: _Guarded(args[i], flush_end) for i in arrays}
        try:
            holders, ptrs = [], (ctypes.c_void_p * max(len(args), 1))()
            ranges = (ctypes.c_ulonglong * max(2 * len(args), 2))()
            for i, a in enumerate(args):
                if i in guarded:
                    h = ctypes.c_void_p(guarded[i].addr)
                    ranges[2 * i], ranges[2 * i + 1] = guarded[i].addr, guarded[i].nbytes
                else:
                    h = ctypes.create_string_buffer(a.tobytes(), a.dtype.itemsize)
                holders.append(h)
                ptrs[i] = ctypes.cast(ctypes.pointer(h), ctypes.c_void_p)
            cfg = (ctypes.c_ulonglong * 10)(*g, *b, shmem, order, order, seed)
            # each argument's whole mapping: the checker reports an access there outside the
            # buffer (the bytes it shares with its pages, which no guard page catches)
            spans = (ctypes.c_ulonglong * max(2 * len(args), 2))()
            for i, buf in guarded.items():
                spans[2 * i], spans[2 * i + 1] = buf.lo, buf.hi
            with _LAUNCH_LOCK:
                self.module.lib.andrea_exec_set_spans(spans, len(args))
                # the race checker watches the first run; later runs add the other guard
                # layout and schedule (happens-before does not depend on the order)
                track = int(self.module.checked and flush_end and track)
                self.module.lib.andrea_exec_set_fill(fill)
                limit = (int(self.gpu_limit_s * GPU_ACCESSES_PER_S) if self.gpu_limit_s
                         and self.module.checked else 0)
                self.module.lib.andrea_exec_set_work_limit(limit, TRACK_BUDGET if track else 0)
                status = self._launch(cfg, ptrs, ranges, len(args), track)
                atomics = bool(self.module.lib.andrea_exec_atomics_used())
            if status:
                self._raise(status, guarded, label, args, block, grid, shmem)
            for i, buf in guarded.items():
                off = buf.canary_damage()
                if off is not None:
                    raise OutOfBoundsError(Said(
                        F.MSG_OOB_WRITE_AFTER, kernel=self.name, argument=self._arg(i),
                        offset=int(off), nbytes=int(buf.nbytes)))
            for i, buf in guarded.items():  # a const T* is input: it must come back unchanged
                if self.params[i].kind == 1:
                    now = buf.read(args[i].dtype, args[i].shape).reshape(-1).view(np.uint8)
                    diff = np.flatnonzero(now != args[i].reshape(-1).view(np.uint8))
                    if diff.size:
                        raise KernelError(Said(
                            F.MSG_CONST_WRITTEN, kernel=self.name,
                            what=Said(F.MSG_ARGUMENT_ELEMENT, index=i, name=self.param_names[i],
                                      element=int(diff[0]) // max(args[i].itemsize, 1))))
            return [guarded[i].read(args[i].dtype, args[i].shape) for i in outputs], atomics
        finally:
            for buf in guarded.values():
                buf.free()

    def _fault_line(self) -> str | None:
        """``file:line`` of the faulting instruction, None when unknown."""
        off = int(self.module.lib.andrea_exec_fault_pc())
        found = _source_line(str(self.module.path), off, self.module.name) if off >= 0 else None
        return f"{found[0]}:{found[1]}" if found else None

    def _where(self, offset: int) -> str | Said:
        found = _source_line(str(self.module.path), offset, self.module.name)
        return f"{found[0]}:{found[1]}" if found else Said(F.MSG_UNKNOWN_LINE)

    def _race(self, status, args, block, grid, info=None):
        if info is None:
            info = (ctypes.c_longlong * 16)()
            self.module.lib.andrea_exec_race(info)
        arg, off = info[0], info[1]
        if arg >= 0:
            item = max(args[arg].dtype.itemsize, 1)
            what = Said(F.MSG_ARGUMENT_ELEMENT, index=int(arg), name=self.param_names[arg],
                        element=int(off // item))
        else:
            what = Said(F.MSG_DYNAMIC_SHARED_AT if arg == -2 else F.MSG_SHARED_AT,
                        offset=int(off))

        def who(w, blk, thr):  # w: bit 0 a write, bit 1 an atomic (runtime.cpp K_*)
            return Said(F.MSG_THREAD_ATOMIC if w & 2 else
                        F.MSG_THREAD_WRITES if w & 1 else F.MSG_THREAD_READS,
                        thread=F.thread(_flat_to_xyz(blk, grid), _flat_to_xyz(thr, block)))

        line_now = self._where(info[5])
        if status == 7:
            raise KernelError(Said(F.MSG_UNWRITTEN_SHARED, kernel=self.name, what=what,
                                   line=line_now, who=who(*info[2:5])))
        line_other = self._where(info[9])
        lines = (Said(F.MSG_ONE_LINE, line=line_now) if str(line_now) == str(line_other)
                 else Said(F.MSG_TWO_LINES, line=line_now, other=line_other))
        atomics = int((info[2] & 2) != 0) + int(info[6] >= 0 and (info[6] & 2) != 0)
        plain = F.MSG_RACE
        if info[3] == info[7] and info[4] // 32 == info[8] // 32:  # two lanes of one warp
            plain = F.MSG_RACE_WARP
        raise RaceError(Said(plain if not atomics else F.MSG_RACE_ATOMIC if atomics == 1
                             else F.MSG_RACE_BLOCK_SCOPE, kernel=self.name, what=what,
                             lines=lines, first=who(*info[2:5]), second=who(*info[6:9])))

    def _raise(self, status, guarded, label, args, block, grid, shmem=0):
        if status in (6, 7):
            self._race(status, args, block, grid)
        lib = self.module.lib
        if status == 8:
            where = (ctypes.c_longlong * 6)()
            lib.andrea_exec_fault_where(where)
            accesses = int(lib.andrea_exec_accesses())
            ms = "%.3g" % (1e3 * accesses / GPU_ACCESSES_PER_S)
            limit = "%g" % (1e3 * (self.gpu_limit_s or 0))
            raise KernelError(Said(
                F.MSG_TOO_MUCH_WORK, kernel=self.name, accesses=accesses,
                thread=F.thread(where[0:3], where[3:6]),
                line=self._fault_line() or Said(F.MSG_UNKNOWN_LINE), ms=ms,
                rate="%.0e" % GPU_ACCESSES_PER_S, limit=limit))
        msg = lib.andrea_exec_message().decode(errors="replace")
        where = (ctypes.c_longlong * 6)()
        lib.andrea_exec_fault_where(where)
        at = F.thread(where[0:3], where[3:6])
        if status == 1:
            addr = lib.andrea_exec_fault_addr() or 0
            line = self._fault_line()
            for i, buf in guarded.items():
                if buf.base <= addr < buf.base + buf.size:
                    raise OutOfBoundsError(Said(
                        F.MSG_OOB_ACCESS_AT if line else F.MSG_OOB_ACCESS, kernel=self.name,
                        argument=self._arg(i), line=line, offset=int(addr - buf.addr),
                        nbytes=int(buf.nbytes), thread=at))
            if lib.andrea_exec_fault_stack():
                raise KernelError(Said(F.MSG_STACK_OVERFLOW_AT if line else F.MSG_STACK_OVERFLOW,
                                       kernel=self.name, thread=at, line=line, kib=STACK_KIB))
            if lib.andrea_exec_fault_general():
                raise KernelError(Said(F.MSG_MISALIGNED_AT if line else F.MSG_MISALIGNED,
                                       kernel=self.name, thread=at, line=line))
            if addr < 1 << 16:
                no_shared = self.module.uses_dynamic_shared and not shmem
                raise KernelError(Said(
                    (F.MSG_NULL_NO_SHARED_AT if line else F.MSG_NULL_NO_SHARED) if no_shared
                    else (F.MSG_NULL_AT if line else F.MSG_NULL),
                    kernel=self.name, thread=at, line=line))
            signal, address = F.signal_fault(msg)
            raise KernelError(Said(F.MSG_SIGNAL_AT if line else F.MSG_SIGNAL, kernel=self.name,
                                   thread=at, signal=signal, address=address, line=line))
        raise KernelError(Said(F.MSG_RUNTIME, kernel=self.name,
                               status=Said(_STATUS.get(status, F.MSG_STATUS_FAULT)),
                               schedule=F.schedule(label), thread=at,
                               finding=F.runtime_finding(msg)))


_PARAMS_RE = re.compile(_KERNEL_RE.pattern + r"([^)]*)\)")


def _param_names(source: str) -> dict[str, tuple[str, ...]]:
    """Parameter names of each __global__ function (for messages; best effort)."""
    out = {}
    for m in _PARAMS_RE.finditer(source):
        names = []
        for part in m.group(2).split(","):
            ident = re.findall(r"[A-Za-z_]\w*", part.split("=")[0])
            if ident:
                names.append(ident[-1])
        out.setdefault(m.group(1), tuple(names))
    return out


class Module:
    """A CUDA source built for the executor; ``get_function(name)`` gives a Kernel.

    checked=True (default): every memory access of the kernels goes through the race checker.
    """

    def __init__(self, source: str, name: str = "kernel.cu", *, checked: bool = True,
                 switch: str = "asm"):
        self.name = name
        self.checked = checked
        self.path = build(source, name, checked=checked, switch=switch)
        self.param_names = _param_names(source)
        self.uses_dynamic_shared = "extern __shared__" in " ".join(source.split())
        self.lib = ctypes.CDLL(str(self.path))
        self.lib.andrea_exec_message.restype = ctypes.c_char_p
        self.lib.andrea_exec_fault_addr.restype = ctypes.c_void_p
        self.lib.andrea_exec_fault_pc.restype = ctypes.c_longlong
        self.lib.andrea_exec_accesses.restype = ctypes.c_ulonglong
        self.lib.andrea_exec_set_work_limit.argtypes = [ctypes.c_ulonglong, ctypes.c_ulonglong]
        self.kernel_names = tuple(kernel_names(source))
        self._kernels: dict[str, Kernel] = {}

    def get_function(self, name: str) -> Kernel:
        if name not in self.kernel_names:
            raise AttributeError(f"{self.name} has no __global__ function {name!r} "
                                 f"(it has {', '.join(self.kernel_names) or 'none'})")
        if name not in self._kernels:
            self._kernels[name] = Kernel(self, name)
        return self._kernels[name]
