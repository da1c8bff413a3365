"""The grader's stand-in for a submission: attributes that forward calls to a worker process.

    proxy = SubmissionProxy(scratch, limits, mode, functions)
    outcome = proxy.start()          # imports the submission in a fresh worker
    proxy.lookup(table, ids)         # plain data out, plain data back

Arguments and results cross as plain data (see ``andrea_runtime.protocol``). Exceptions the submission
raises come back as (type name, builtin bases, message) and are raised here as the builtin type
(or a subclass named like the submission's class), so ``pytest.raises(IndexError)``-style checks
work as in-process. Arguments cross as copies: the caller's arrays never change, whatever the
submission does; a function that modifies an argument in place fails with a message saying so
(EMB-PURE-01, BWD-PURE-01 for embed_backward). A Generator argument is advanced to the worker's state, as
drawing from it in-process would.

A call that hangs, crashes the worker, runs out of memory, floods output or imports the
reference raises the matching :mod:`graders.conformance.faults` exception after the worker and
everything it left behind are killed; the next call starts a fresh worker. Once the
submission's total time is used up, calls raise :class:`BudgetExhausted` without being made.
A worker the grader itself cannot start or stop raises :class:`SandboxError`.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

import numpy as np

from andrea_runtime import protocol as P
from graders.conformance import results as R
from graders.conformance.assertions import mutation
from graders.conformance.faults import (CallTimeout, ForbiddenImport, ImplementationFault,
                                        OutputFlood, ResourceExhausted, WorkerCrashed)

from . import messages as M
from .sandbox import (LaunchPlan, Limits, SandboxError, Scratch, cpu_seconds, kill_leftovers,
                      plan, read_bwrap_info)
from .sandbox.processes import _proc as sandbox_proc


class SubmissionException(Exception):
    """An exception of the submission that is not one of the builtin types checks look for."""


# Builtin exception types re-raised as themselves; anything else becomes a SubmissionException.
PASS_THROUGH = {cls.__name__: cls for cls in (
    TypeError, ValueError, IndexError, KeyError, LookupError, ArithmeticError, ZeroDivisionError,
    OverflowError, FloatingPointError, NotImplementedError, RuntimeError, RecursionError,
    UnicodeError)}
_CLASSES: dict[tuple, type] = {}


def rebuild_exception(info: dict) -> Exception:
    """An exception object for the grader from the worker's (type, bases, message); a kernel
    executor's finding (``said``) rides along as ``_andrea_said`` when it is one of the
    executor's sentences (``messages.executor_said``)."""
    exc = _rebuild(info)
    said = M.executor_said(info.get("said"))
    if said is not None:
        exc._andrea_said = said
    return exc


def _rebuild(info: dict) -> Exception:
    name = str(info.get("type") or "Exception")[:100]
    if not name.isidentifier():
        name = "SubmissionError"
    msg = str(info.get("msg", ""))[:4000]
    chosen: list[type] = []
    for b in info.get("bases") or []:
        cls = PASS_THROUGH.get(b)
        if cls is not None and not any(issubclass(c, cls) for c in chosen):
            chosen.append(cls)
    if len(chosen) == 1 and chosen[0].__name__ == name:
        return chosen[0](msg)
    key = (name, tuple(chosen))
    cls = _CLASSES.get(key)
    if cls is None:
        bases = tuple(chosen) or (SubmissionException,)
        try:
            cls = type(name, bases, {"__module__": "submission"})
        except TypeError:  # incompatible layouts: keep the first
            cls = type(name, bases[:1], {"__module__": "submission"})
        _CLASSES[key] = cls
    return cls(msg)


def import_error_info(info: dict) -> dict:
    """The worker's account of an import error, typed and bounded: the submission runs in that
    process and can write any frame there (a 7 MiB message made every format 10-24 MB)."""
    out = {"type": str(info.get("type") or "Error")[:100] if isinstance(info.get("type"), str)
           else "Error",
           "msg": info["msg"][:4000] if isinstance(info.get("msg"), str) else ""}
    if type(info.get("line")) is int and 0 < info["line"] < 1 << 31:
        out["line"] = info["line"]
    if isinstance(info.get("text"), str):
        out["text"] = info["text"][:300]
    if isinstance(info.get("bases"), list):
        out["bases"] = [str(b)[:100] for b in info["bases"][:20] if isinstance(b, str)]
    said = info.get("said")   # a kernel file's refusal as the kit's sentences (checked)
    if isinstance(said, list) and 0 < len(said) <= 20:
        lines = [M.executor_said(s) for s in said]
        if all(lines):
            out["said"] = lines
    return out


class BudgetExhausted(CallTimeout):
    """The submission's total time is used up: the call was not made (the check did not run)."""

    kind = "timeout"


class UnsupportedResult(SubmissionException):
    """The submission returned something that cannot cross as plain data."""


@dataclass
class Outcome:
    """What starting the worker and importing the submission gave."""

    ok: bool
    functions: list[str] = field(default_factory=list)
    error: dict | None = None            # {"type", "msg", "line", "text"} of an import error
    cells: list[dict] = field(default_factory=list)   # a notebook's cells that raised
    fault: ImplementationFault | None = None


class OutputBuffer:
    """The submission's stdout and stderr: the first `keep` bytes, and a running total."""

    def __init__(self, keep: int):
        self.keep = keep
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


# The worker's fault events and the sentences that tell them; the fields come from the request
# (the function) or are bounded text from the worker (the exit code).
_EVENTS = {"exit_import": M.DETAIL_EXIT_IMPORT, "exit_call": M.DETAIL_EXIT_CALL,
           "interrupt_call": M.DETAIL_INTERRUPT_CALL, "memory_import": M.DETAIL_MEMORY_IMPORT,
           "memory_call": M.DETAIL_MEMORY_CALL, "memory_result": M.DETAIL_MEMORY_RESULT}


def _worker_event(header: dict, what: str) -> dict | None:
    """``{"msgid", "fields"}`` for a fault event the worker named, or None."""
    msgid = _EVENTS.get(header.get("event")) if isinstance(header.get("event"), str) else None
    if msgid is None:
        return None
    function = what.split("(", 1)[0] if what else "?"
    code = str(header.get("code", ""))[:100]
    return {"msgid": msgid, "fields": {"function": function, "code": code}}


_SIGNALS = {signal.SIGSEGV: M.SIGNAL_SEGV, signal.SIGABRT: M.SIGNAL_ABRT,
            signal.SIGBUS: M.SIGNAL_BUS, signal.SIGFPE: M.SIGNAL_FPE,
            signal.SIGILL: M.SIGNAL_ILL, signal.SIGKILL: M.SIGNAL_KILL}


#: Bytes of argument arrays a worker keeps between calls (in its arena, if any).
ARENA_BYTES = 96 << 20
#: Whether kept arrays go through a sealed shared-memory arena (where the kernel seals memfds).
USE_ARENA = True
#: Bytes of one call's other argument arrays placed in the shared call region, which the grader
#: compares with its own arrays after the call (EMB-PURE-01 from the grader's evidence); what
#: does not fit crosses the pipe, and only the worker's word tells whether it changed.
REGION_BYTES = 64 << 20
#: Whether the call region is used (where the kernel makes memfds).
USE_REGION = True


def _grow_pipe(fd: int, size: int = 1 << 20) -> None:
    """Larger pipe buffers: far fewer wake-ups when arrays of many MiB cross."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except OSError:
        pass


class _Reply:
    """One reply frame as it arrives: its 8-byte length, then its body."""

    def __init__(self, limit: int):
        self.limit = limit
        self.cap = limit      # the reply cap (`limit` may be one call's smaller bound)
        self.head = bytearray()
        self.body: bytearray | None = None
        self.size = 0     # the body's declared length (the buffer may hold a first part)
        self.got = 0

    def want(self) -> int:
        return 8 - len(self.head) if self.body is None else self.size - self.got

    def complete(self) -> bool:
        return self.body is not None and self.got == self.size

    def start(self, n: int) -> None:
        """A body of `n` bytes. A large one is first only what has arrived, and gets its whole
        buffer once a quarter is in: a header that declares 384 MiB and sends nothing more
        costs the grader nothing while it waits (a quarter must arrive to have it all)."""
        self.size = n
        self.body = bytearray(n if n < LAZY_BODY else 0)

    def room(self) -> memoryview | None:
        """Where the next bytes go; None while a large body is still only what arrived."""
        if self.got == len(self.body) < self.size:
            if self.got < self.size // 4:
                return None
            whole = bytearray(self.size)
            whole[:self.got] = self.body
            self.body = whole
        return memoryview(self.body)[self.got:]


#: Bytes read at once while a reply's length is not known yet (a small reply in one read).
FIRST_READ = 1 << 16
#: Replies of at least this many bytes get their whole buffer once a quarter has arrived.
LAZY_BODY = 1 << 20
_IOV_MAX = 512


class Worker:
    """One worker process and its pipes (requests, replies, output; bwrap's info)."""

    def __init__(self, scratch: Scratch, limits: Limits, mode: str, functions: list[str],
                 output: OutputBuffer):
        self.limits = limits
        self.output = output
        self.output_at_start = output.total   # the flood limit is per call (and for the import)
        self.alive = False
        self.cpu_s: float | None = None   # the worker's CPU time, read before it is stopped
        self._sel: selectors.BaseSelector | None = None
        self._pending = b""   # reply bytes read after the last frame
        # the argument arrays this worker keeps between calls, in sealed shared memory where
        # the kernel allows it (else they cross the pipe once)
        arena = P.Arena.create(ARENA_BYTES) if USE_ARENA else None
        # the other argument arrays of each call: in a shared region the grader inspects
        # after the call (the purity verdict's evidence)
        region = P.CallRegion.create(REGION_BYTES) if USE_REGION else None
        self.keeper = P.ArrayKeeper(max_bytes=ARENA_BYTES, arena=arena, region=region)
        arena_fd = arena.fd if arena is not None else -1
        region_fd = region.fd if region is not None else -1
        req_r, self.req_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        self.out_r, out_w = os.pipe()
        self.info_r, info_w = os.pipe() if mode == "bwrap" else (-1, -1)
        child_ends = [fd for fd in (req_r, resp_w, out_w, info_w) if fd >= 0]
        for fd in (req_r, self.resp_r):
            _grow_pipe(fd)
        try:
            self.launch: LaunchPlan = plan(scratch, limits, mode, functions,
                                           info_fd=info_w if info_w >= 0 else None)
            argv = self.launch.argv + ["--req-fd", str(req_r), "--resp-fd", str(resp_w)]
            if arena is not None:
                argv += ["--arena-fd", str(arena_fd), "--arena-size", str(arena.size)]
            if region is not None:
                argv += ["--region-fd", str(region_fd), "--region-size", str(region.size)]
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                pass_fds=tuple(fd for fd in (req_r, resp_w, info_w, arena_fd, region_fd)
                               if fd >= 0),
                cwd=self.launch.cwd, env=self.launch.env, start_new_session=True,
                preexec_fn=self.launch.preexec, close_fds=True)
        except (OSError, subprocess.SubprocessError) as exc:   # the latter: its pre-exec step
            self._close_fds(self.req_w, self.resp_r, self.out_r, self.info_r)
            self.keeper.close()
            if getattr(self, "launch", None) is not None and self.launch.cgroup is not None:
                self.launch.cgroup.remove()
            raise SandboxError("the grader could not start a worker "
                               f"({getattr(exc, 'strerror', None) or type(exc).__name__})"
                               ) from None
        finally:
            self._close_fds(*child_ends)
            if arena is not None and arena.fd >= 0:   # the worker has its own; the grader
                self._close_fds(arena.fd)              # keeps only its mapping
                arena.fd = -1
            if region is not None and region.fd >= 0:
                self._close_fds(region.fd)
                region.fd = -1
        me = sandbox_proc(self.proc.pid)
        self.launch.start_tick = me.start if me is not None else 1
        for fd in (self.req_w, self.resp_r, self.out_r):
            os.set_blocking(fd, False)
        self.alive = True

    @staticmethod
    def _close_fds(*fds) -> None:
        for fd in fds:
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass

    # ------------------------------------------------------------------ exchange
    def exchange(self, frame: list | None, timeout: float, what: str,
                 limit: int | None = None):
        """Send `frame` (buffers from protocol.pack, if any) and wait for one reply frame.

        The request is written with as few system calls as the pipe allows (one ``writev`` for
        a small one, before waiting at all), and a small reply is read in one ``read``, so a
        round trip wakes each side once. The worker writes the submission's output before its
        reply, so the poll that finds the reply also finds any output: the output pipe is read
        only when that poll says it holds some (or when no poll was made).

        `limit`: the longest reply this call's result can take (``results.reply_bytes``); a
        longer one is not read (the worker answers a larger result with its size alone, so
        only a worker that does not follow the protocol sends one)."""
        deadline = time.monotonic() + timeout
        if frame:
            self.output_at_start = self.output.total
        parts = [memoryview(p).cast("B") for p in (frame or []) if len(p)]
        cap = self.limits.max_message_mb * 1024 * 1024
        reply = _Reply(cap if limit is None else min(cap, limit))
        reply.cap = cap
        if parts:
            self._send_some(parts)
        if self._pending and self._take_pending(reply, what):
            return self._unpack(reply, what)
        sel = self._selector()
        writing = bool(parts)
        if writing:
            sel.register(self.req_w, selectors.EVENT_WRITE, "req")
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._timed_out(timeout, what)
                ready = sel.select(min(left, 0.5))
                output = False
                for key, _ in ready:   # the output first: it was written before the reply
                    if key.data == "out":
                        output = True
                        self._drain_output(sel, what)
                for key, _ in ready:
                    if key.data == "req":
                        self._send_some(parts)
                        if not parts:
                            sel.unregister(self.req_w)
                            writing = False
                    elif key.data == "resp" and self._receive_some(reply, what):
                        return self._unpack(reply, what, drain=output)
        finally:
            if writing and self._sel is not None:
                sel.unregister(self.req_w)

    def _selector(self) -> selectors.BaseSelector:
        """This worker's selector (made once): its reply and output pipes."""
        if self._sel is None:
            self._sel = selectors.DefaultSelector()
            self._sel.register(self.resp_r, selectors.EVENT_READ, "resp")
            self._sel.register(self.out_r, selectors.EVENT_READ, "out")
        return self._sel

    def _timed_out(self, timeout: float, what: str):
        self.kill()
        raise CallTimeout.said(M.FAULT_TIMEOUT, what=what, seconds=f"{timeout:g}")

    def _send_some(self, parts: list) -> None:
        """Write what the request pipe takes now (one writev); `parts` keeps what is left, and
        is emptied once all is sent or the pipe is refused."""
        try:
            n = os.writev(self.req_w, parts[:_IOV_MAX])
        except BlockingIOError:
            return
        except BrokenPipeError:  # the worker died: its reply pipe will say how
            parts.clear()
            return
        P.drop_written(parts, n)

    def _receive_some(self, reply: _Reply, what: str) -> bool:
        """Read what the reply pipe holds now; True once the whole frame has arrived."""
        try:
            if reply.body is None:
                chunk = os.read(self.resp_r, FIRST_READ)
                if not chunk:
                    self._died(what)
                return self._take(reply, chunk, what)
            if reply.want():
                room = reply.room()
                if room is None:
                    chunk = os.read(self.resp_r, min(reply.want(), 1 << 20))
                    if not chunk:
                        self._died(what)
                    reply.body += chunk
                    reply.got += len(chunk)
                    return False
                n = os.readv(self.resp_r, [room])
                if not n:
                    self._died(what)
                reply.got += n
        except BlockingIOError:
            return False
        return reply.complete()

    def _take(self, reply: _Reply, chunk: bytes, what: str) -> bool:
        """Add bytes read before the body was allocated; bytes after the frame are kept for
        the next exchange (a worker writes only replies, and only when asked; whatever it
        sends early is read as the next reply)."""
        need = 8 - len(reply.head)
        reply.head += chunk[:need]
        rest = chunk[need:]
        if len(reply.head) < 8:
            return False
        n = P.frame_length(reply.head)
        if n > reply.limit:
            self.kill()
            if reply.limit < reply.cap:    # this call's bound, not the reply cap
                raise ResourceExhausted.said(M.FAULT_REPLY_OVER_BOUND, what=what, got=n,
                                             limit=reply.limit)
            raise ResourceExhausted.said(M.FAULT_REPLY_TOO_LARGE, what=what,
                                         mib=reply.limit >> 20)
        reply.start(n)
        k = min(n, len(rest))
        reply.body[:k] = rest[:k]
        reply.got = k
        if k < len(rest):
            self._pending = bytes(rest[k:]) + self._pending
        return reply.complete()

    def _take_pending(self, reply: _Reply, what: str) -> bool:
        pending, self._pending = self._pending, b""
        return self._take(reply, pending, what)

    def _unpack(self, reply: _Reply, what: str, drain: bool = True):
        try:
            frame = P.unpack(reply.body)
        except P.ProtocolError as exc:
            self.kill()
            raise WorkerCrashed.said(M.FAULT_MALFORMED_REPLY, what=what, error=str(exc)) from None
        if drain:
            self.drain_ready_output(what)
        return frame

    def _drain_output(self, sel, what: str) -> None:
        try:
            chunk = os.read(self.out_r, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            sel.unregister(self.out_r)
            return
        self._add_output(chunk, what)

    def _add_output(self, chunk: bytes, what: str) -> None:
        self.output.add(chunk)
        if self.output.total - self.output_at_start > self.limits.max_output_bytes:
            self.kill()
            raise OutputFlood.said(M.FAULT_OUTPUT, what=what, limit=self.limits.max_output_bytes)

    def drain_ready_output(self, what: str) -> None:
        """Read whatever output is waiting, without blocking."""
        for _ in range(64):
            try:
                chunk = os.read(self.out_r, 1 << 16)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._add_output(chunk, what)

    def _died(self, what: str):
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        # collect the last output before describing the death
        try:
            while True:
                chunk = os.read(self.out_r, 1 << 16)
                if not chunk or self.output.total - self.output_at_start > self.limits.max_output_bytes:
                    break
                self.output.add(chunk)
        except (BlockingIOError, OSError):
            pass
        cgroup = self.launch.cgroup
        oom = cgroup is not None and cgroup.oom_killed()   # killed for what all held together
        self.kill()
        if oom:
            raise ResourceExhausted.said(
                M.FAULT_MEMORY, what=what, detail=M.DETAIL_MEMORY_TOGETHER,
                mib=self.limits.memory_mb,
                detail_said={"msgid": M.DETAIL_MEMORY_TOGETHER, "fields": {}})
        raise describe_exit(code, what, self.launch.mode)

    # ------------------------------------------------------------------ cleanup
    def kill(self) -> None:
        """Kill the worker and all it started; raises SandboxError if that cannot be confirmed."""
        if not self.alive:
            return
        self.alive = False
        self._read_cpu()
        if self.info_r >= 0:
            ns = read_bwrap_info(self.info_r).get("pid-namespace")
            if isinstance(ns, int):
                self.launch.pid_ns = f"pid:[{ns}]"
        try:
            kill_leftovers(self.proc, self.launch)
            if self.launch.cgroup is not None:     # empty now: every process is confirmed gone
                self.launch.cgroup.remove()
        finally:
            if self._sel is not None:
                self._sel.close()
                self._sel = None
            self._close_fds(self.req_w, self.resp_r, self.out_r, self.info_r)
            self.req_w = self.resp_r = self.out_r = self.info_r = -1
            self.keeper.close()

    def _read_cpu(self) -> None:
        if self.cpu_s is None:
            try:
                self.cpu_s = cpu_seconds(self.proc.pid)
            except OSError:
                self.cpu_s = 0.0

    def close(self) -> None:
        """Stop the worker: nothing it would still do is of use (its CPU time is read and its
        output drained with each reply), so it is killed rather than asked to exit, which
        would cost its interpreter's teardown on every submission."""
        self.kill()


def describe_exit(code: int | None, what: str, mode: str) -> ImplementationFault:
    """The fault for a worker that exited (bwrap reports a signal as 128 + signal number)."""
    sig = None
    if code is not None and code < 0:
        sig = -code
    elif code is not None and mode == "bwrap" and code > 128:
        sig = code - 128
    if sig == signal.SIGXCPU:
        return ResourceExhausted.said(M.FAULT_CPU, what=what)
    if sig == signal.SIGXFSZ:
        return ResourceExhausted.said(M.FAULT_FILE_SIZE, what=what)
    if sig is not None:
        try:
            name = _SIGNALS.get(signal.Signals(sig), signal.Signals(sig).name)
        except ValueError:
            name = f"signal {sig}"
        return WorkerCrashed.said(M.FAULT_SIGNAL, what=what, signal=name)
    if code is None:
        return WorkerCrashed.said(M.FAULT_PIPE_CLOSED, what=what)
    return WorkerCrashed.said(M.FAULT_EXIT, what=what, code=code)


def _cell_errors(cells) -> list[dict]:
    """A notebook's cells that raised, as the worker said (checked: first line, line, type and
    message, each on one line; anything else the worker sent is dropped)."""
    out: list[dict] = []
    for c in cells[:50] if isinstance(cells, list) else []:
        if not isinstance(c, dict) or type(c.get("first")) is not int:
            continue
        line = c.get("line")
        out.append({"first": c["first"], "line": line if type(line) is int else None,
                    "type": " ".join(str(c.get("type", "")).split())[:100],
                    "msg": " ".join(str(c.get("msg", "")).split())[:300]})   # one line
    return out


class SubmissionProxy:
    """An object whose attributes are the submission's contract functions."""

    # Arguments cross as copies and nothing is written back: the caller's values never change
    # (so neither the runner nor the checks copy them first).
    passes_copies = True

    def __init__(self, scratch: Scratch, limits: Limits, mode: str, functions: list[str]):
        self._scratch = scratch
        self._limits = limits
        self._mode = mode
        self._functions = list(functions)
        self._present: set[str] = set()
        self._worker: Worker | None = None
        self._launched = False
        self.output = OutputBuffer(limits.keep_output_bytes)
        self._start_t = time.monotonic()
        self._check_t = self._start_t
        self._timeouts: dict[str, int] = {}
        self.faults: list[str] = []
        self.restarts = 0
        self.worker_cpu_s = 0.0          # CPU time of every worker so far (read from /proc)
        self.budget_refused = False      # a call of the current check was refused (budget)
        self.budget_seconds = limits.total_timeout
        # what students see before every group is published: the output and restarts up to the
        # end of the visible checks, which run before any other (end_visible_part); None until
        # then
        self.visible_output: bytes | None = None
        self.visible_restarts: int | None = None

    # ------------------------------------------------------------------ lifecycle
    def launch(self) -> None:
        """Start the worker now without waiting for it: Python, NumPy and the submission's
        import run while the grader gets ready; :meth:`start` then waits for its first reply."""
        if self._worker is None:
            self._worker = self._new_worker()
            self._launched = True

    def _new_worker(self) -> Worker:
        return Worker(self._scratch, self._limits, self._mode, self._functions, self.output)

    def start(self) -> Outcome:
        """Start a worker and import the submission (the first time: report what happened)."""
        try:
            header = self._spawn(M.WHAT_IMPORT)
        except ImplementationFault as fault:
            return Outcome(ok=False, fault=fault)
        if "import_error" in header:
            self._kill()
            return Outcome(ok=False, error=dict(header["import_error"]))
        self._present = set(header["ready"])
        return Outcome(ok=True, functions=sorted(self._present), cells=header.get("cells", []))

    def _spawn(self, what: str) -> dict:
        if self._launched and self._worker is not None and self._worker.alive:
            self._launched = False             # launched early: its import is under way
        else:
            self._launched = False
            self._worker = self._new_worker()
        timeout = min(self._limits.startup_timeout, self._left("total"))
        header, _ = self._worker.exchange(None, max(timeout, 0.01), what)
        if "fault" in header:
            self._kill()
            raise self._fault(header, what)
        if "ready" in header and isinstance(header["ready"], list):
            return {"ready": [f for f in header["ready"] if f in self._functions],
                    "cells": _cell_errors(header.get("cells"))}
        if "import_error" in header and isinstance(header["import_error"], dict):
            return {"import_error": import_error_info(header["import_error"])}
        self._kill()
        raise WorkerCrashed.said(M.FAULT_FIRST_REPLY, what=what)

    def _ensure(self, what: str) -> Worker:
        if self._worker is None or not self._worker.alive:
            self.restarts += 1
            restart = M.WHAT_RESTART.format(call=what)
            try:
                header = self._spawn(restart)
            except ImplementationFault as fault:
                if fault.fields.get("what") == restart:   # said in the student's language
                    fault.fields["what_call"] = what
                raise
            if "import_error" in header:
                self._kill()
                raise WorkerCrashed.said(M.FAULT_REIMPORT, what=what,
                                         error=str(header["import_error"].get("msg", "")),
                                         function=what.split("(", 1)[0])
        return self._worker

    def _kill(self) -> None:
        if self._worker is not None:
            try:
                self._worker.kill()
            finally:
                self.worker_cpu_s += self._worker.cpu_s or 0.0
                self._worker = None

    def close(self) -> None:
        if self._worker is not None:
            try:
                self._worker.close()
            finally:
                self.worker_cpu_s += self._worker.cpu_s or 0.0
                self._worker = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def end_visible_part(self) -> None:
        """The visible checks are done (the grader runs them first): what the submission printed
        so far and the restarts so far are what students may see before publication. Only the
        first call counts: nothing of a later check can reach it."""
        if self.visible_output is None:
            self.visible_output = bytes(self.output.data)
            self.visible_restarts = self.restarts

    # ------------------------------------------------------------------ time
    def begin_check(self) -> None:
        self._check_t = time.monotonic()
        self.budget_refused = False

    def _left(self, which: str) -> float:
        now = time.monotonic()
        if which == "total":
            return self._limits.total_timeout - (now - self._start_t)
        return self._limits.check_timeout - (now - self._check_t)

    # ------------------------------------------------------------------ calls
    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.__dict__.get("_present", ()):
            raise AttributeError(name)

        def call(*args, **kwargs):
            return self._call(name, args, kwargs)

        call.__name__ = name
        return call

    def _call(self, name: str, args: tuple, kwargs: dict):
        what = f"{name}()"
        self._may_call(name, what)
        try:
            worker = self._ensure(what)
            # The request is encoded (its bytes written to the pipe) before the call: whatever
            # the worker does to its copies, the caller's arguments stay as they were. Large
            # arrays the worker already holds (same bytes as the grader's private copy) are
            # sent as their key; the worker still gives the call a fresh copy.
            # The result's size is judged before it is read: the contract fixes how many
            # values it holds for these arguments (results.py); the worker answers a larger
            # one with its size alone, and a longer reply is never read.
            want = R.expected_values(name, args, kwargs)
            allowed = R.allowed_values(want)
            frame = self._request(worker.keeper, name, args, kwargs, allowed)
            timeout = min(self._limits.call_timeout, self._left("total"), self._left("check"))
            reply, rblobs = worker.exchange(frame, max(timeout, 0.01), what,
                                            limit=R.reply_bytes(allowed))
        except ImplementationFault as exc:
            if isinstance(exc, CallTimeout):
                self._timeouts[name] = self._timeouts.get(name, 0) + 1
            self._kill()
            self.faults.append(str(exc))
            exc.function = name
            raise
        if "fault" in reply:
            fault = self._fault(reply, what)
            if isinstance(fault, UnsupportedResult):
                raise fault
            self._kill()
            self.faults.append(str(fault))
            raise fault
        if "exc" in reply:
            raise rebuild_exception(reply["exc"] if isinstance(reply["exc"], dict) else {})
        if "big" in reply and want is not None:   # never read: its size is the verdict
            self._mutated(worker.keeper, None)     # (the call region lets go of the arguments)
            big = reply["big"] if isinstance(reply["big"], dict) else {}
            said, size = big.get("values"), big.get("bytes")
            if type(said) is int and said > allowed:
                raise R.too_large(name, said, want)
            limit = R.reply_bytes(allowed)
            if type(size) is int and size > limit:   # values within the bound, too many bytes
                raise R.too_many_bytes(name, size, want, limit)
            raise R.too_large(name, allowed + 1, want)   # it said neither: more than allowed
        try:
            value = P.decode(reply.get("ok"), rblobs, untrusted=True)
            self._advance_generators(args, kwargs, reply, rblobs)
        except (P.ProtocolError, TypeError, ValueError) as exc:
            self._kill()
            raise WorkerCrashed.said(M.FAULT_MALFORMED_REPLY, what=what, error=str(exc),
                                     function=name) from None
        self._report_mutation(name, self._mutated(worker.keeper, reply.get("mutated")), value)
        return value

    @staticmethod
    def _mutated(keeper: P.ArrayKeeper, said) -> list:
        """The arguments the call changed: each array in the call region whose bytes differ
        from the grader's own (evidence the grader holds), and what the worker said of the
        rest (kept arrays, lists, dicts, arrays that did not fit: only the worker sees those).
        The worker's word can add to the verdict, never take away from it."""
        out = [k for k in said if isinstance(k, (int, str))] if isinstance(said, list) else []
        if keeper.region is not None:
            out += [k for k in keeper.region.changed() if k not in out]
            keeper.region.placed = []     # the caller's arrays are not held past the call
        return out

    @staticmethod
    def _request(keeper: P.ArrayKeeper, name: str, args: tuple, kwargs: dict,
                 allowed: int | None = None) -> list:
        blobs: list = []
        region = keeper.region
        try:
            if region is None:
                header = {"op": "call", "fn": name,
                          "args": P.encode(list(args), blobs, keeper=keeper),
                          "kwargs": P.encode(list(kwargs.items()), blobs, keeper=keeper)}
            else:   # each argument encoded under its key: the region says whose bytes are where
                region.reset()
                enc = []
                for i, a in enumerate(args):
                    region.key = i
                    enc.append(P.encode(a, blobs, keeper=keeper))
                kw = []
                for k, v in kwargs.items():
                    region.key = k
                    kw.append({"t": "tuple", "v": [P.encode(k, blobs), P.encode(v, blobs,
                                                                             keeper=keeper)]})
                header = {"op": "call", "fn": name, "args": {"t": "list", "v": enc},
                          "kwargs": {"t": "list", "v": kw}, "region": region.used}
        except BaseException:
            keeper.reset()   # keys chosen for a request that is never sent
            if region is not None:
                region.reset()
            raise
        header["forget"] = keeper.take_forget()
        if allowed is not None:
            header["limit"] = {"values": allowed, "bytes": R.reply_bytes(allowed)}
        return P.pack(header, blobs)

    def _may_call(self, name: str, what: str) -> None:
        """Refuse a call when the budget, the check's time or the function's timeouts are spent."""
        if self._left("total") <= 0:
            self.budget_refused = True
            raise BudgetExhausted.said(M.FAULT_BUDGET, what=what, function=name,
                                       seconds=f"{self._limits.total_timeout:g}")
        if self._left("check") <= 0:
            raise CallTimeout.said(M.FAULT_CHECK_TIME, what=what, function=name,
                                   seconds=f"{self._limits.check_timeout:g}")
        if self._timeouts.get(name, 0) >= self._limits.max_timeouts_per_function:
            raise CallTimeout.said(M.FAULT_TIMED_OUT_BEFORE, what=what, function=name,
                                   n=self._timeouts[name])

    @staticmethod
    def _report_mutation(name: str, mutated, value) -> None:
        """An argument changed in place is a violation of its own (EMB-PURE-01, BWD-PURE-01: no function
        mutates its inputs); it is reported, never written back into the caller's values. The
        report carries the returned value (`returned`): the runner charges the purity check
        with it and lets the calling check judge the value."""
        if not mutated or not isinstance(mutated, list):
            return
        violation = mutation(name, [k for k in mutated if isinstance(k, (int, str))])
        violation.returned = value
        raise violation

    @staticmethod
    def _advance_generators(args, kwargs, reply, blobs) -> None:
        """A Generator argument is consumed by design: take over the worker's advanced state."""
        for key, enc in reply.get("rngs") or []:
            if isinstance(key, int) and 0 <= key < len(args):
                orig = args[key]
            elif isinstance(key, str):
                orig = kwargs.get(key)
            else:
                continue
            state = P.decode(enc, blobs, untrusted=True)
            if isinstance(orig, np.random.Generator) and isinstance(state, dict):
                P.make_generator(state)  # validates it
                orig.bit_generator.state = state

    def _fault(self, header: dict, what: str):
        kind, msg = header.get("fault"), str(header.get("msg", ""))[:2000]
        if kind == "forbidden":
            return ForbiddenImport.said(M.FAULT_FORBIDDEN, module=msg)
        said = _worker_event(header, what)
        if said is not None:   # the worker's words, as a sentence that can be translated
            msg = said["msgid"].format(**said["fields"])
        if kind == "memory":
            return ResourceExhausted.said(M.FAULT_MEMORY, what=what, detail=msg,
                                          mib=self._limits.memory_mb, detail_said=said)
        if kind == "result":
            return UnsupportedResult(msg)
        if kind == "crash":
            return WorkerCrashed.said(M.FAULT_SUBMISSION, what=what, detail=msg, detail_said=said)
        return WorkerCrashed(f"{what}: {msg or 'the worker failed'}")
