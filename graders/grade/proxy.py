"""The grader's stand-in for a submission: attributes that forward calls to a worker process.

    proxy = SubmissionProxy(scratch, limits, mode, functions)
    outcome = proxy.start()          # imports the submission in a fresh worker
    proxy.lookup(table, ids)         # plain data out, plain data back

Arguments and results cross as plain data (see ``protocol.py``). Exceptions the submission
raises come back as (type name, builtin bases, message) and are raised here as the builtin type
(or a subclass named like the submission's class), so ``pytest.raises(IndexError)``-style checks
work as in-process. Arrays the submission mutated are written back into the caller's arrays and
Generators are advanced to the worker's state, so the proxy behaves like the module itself.

A call that hangs, crashes the worker, runs out of memory, floods output or imports the
reference raises the matching :mod:`graders.conformance.faults` exception after the worker and
everything it left behind are killed; the next call starts a fresh worker.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

import numpy as np

from graders.conformance.faults import (CallTimeout, ForbiddenImport, ImplementationFault,
                                        OutputFlood, ResourceExhausted, WorkerCrashed)

from . import protocol as P
from .sandbox import LaunchPlan, Limits, Scratch, kill_leftovers, plan


class SubmissionException(Exception):
    """An exception of the submission that is not one of the builtin types checks look for."""


# Builtin exception types re-raised as themselves; anything else becomes a SubmissionException.
PASS_THROUGH = {cls.__name__: cls for cls in (
    TypeError, ValueError, IndexError, KeyError, LookupError, ArithmeticError, ZeroDivisionError,
    OverflowError, FloatingPointError, NotImplementedError, RuntimeError, RecursionError,
    UnicodeError)}
_CLASSES: dict[tuple, type] = {}


def rebuild_exception(info: dict) -> Exception:
    """An exception object for the grader from the worker's (type, bases, message)."""
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


class UnsupportedResult(SubmissionException):
    """The submission returned something that cannot cross as plain data."""


@dataclass
class Outcome:
    """What starting the worker and importing the submission gave."""

    ok: bool
    functions: list[str] = field(default_factory=list)
    error: dict | None = None            # {"type", "msg", "line", "text"} of an import error
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


_SIGNALS = {signal.SIGSEGV: "a segmentation fault (SIGSEGV)", signal.SIGABRT: "an abort (SIGABRT)",
            signal.SIGBUS: "a bus error (SIGBUS)", signal.SIGFPE: "a floating-point trap (SIGFPE)",
            signal.SIGILL: "an illegal instruction (SIGILL)",
            signal.SIGKILL: "SIGKILL (possibly the system's out-of-memory killer)"}


def _grow_pipe(fd: int, size: int = 1 << 20) -> None:
    """Larger pipe buffers: far fewer wake-ups when arrays of many MiB cross."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except OSError:
        pass


class Worker:
    """One worker process and its three pipes (requests, replies, output)."""

    def __init__(self, scratch: Scratch, limits: Limits, mode: str, functions: list[str],
                 output: OutputBuffer):
        self.limits = limits
        self.output = output
        self.launch: LaunchPlan = plan(scratch, limits, mode, functions)
        req_r, self.req_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        self.out_r, out_w = os.pipe()
        for fd in (req_r, self.resp_r):
            _grow_pipe(fd)
        argv = self.launch.argv + ["--req-fd", str(req_r), "--resp-fd", str(resp_w)]
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                pass_fds=(req_r, resp_w), cwd=self.launch.cwd, env=self.launch.env,
                start_new_session=True, preexec_fn=self.launch.preexec, close_fds=True)
        finally:
            for fd in (req_r, resp_w, out_w):
                os.close(fd)
        for fd in (self.req_w, self.resp_r, self.out_r):
            os.set_blocking(fd, False)
        self.alive = True

    # ------------------------------------------------------------------ exchange
    def exchange(self, frame: list | None, timeout: float, what: str):
        """Send `frame` (buffers from protocol.pack, if any) and wait for one reply frame."""
        deadline = time.monotonic() + timeout
        parts = [memoryview(p).cast("B") for p in (frame or []) if len(p)]
        sel = selectors.DefaultSelector()
        sel.register(self.resp_r, selectors.EVENT_READ, "resp")
        sel.register(self.out_r, selectors.EVENT_READ, "out")
        if parts:
            sel.register(self.req_w, selectors.EVENT_WRITE, "req")
        limit = self.limits.max_message_mb * 1024 * 1024
        head = bytearray()
        body: bytearray | None = None
        got = 0
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.kill()
                    raise CallTimeout(f"{what} did not finish within {timeout:g} s "
                                      "(an endless loop, or far too slow)")
                for key, _ in sel.select(min(left, 0.5)):
                    if key.data == "req":
                        try:
                            n = os.write(self.req_w, parts[0][:1 << 22])
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:
                            sel.unregister(self.req_w)
                            parts = []
                            continue
                        parts[0] = parts[0][n:]
                        if not len(parts[0]):
                            parts.pop(0)
                        if not parts:
                            sel.unregister(self.req_w)
                    elif key.data == "out":
                        self._drain_output(sel, what)
                    elif body is None:
                        try:
                            chunk = os.read(self.resp_r, 8 - len(head))
                        except BlockingIOError:
                            continue
                        if not chunk:
                            self._died(what)
                        head += chunk
                        if len(head) == 8:
                            n = P.frame_length(head)
                            if n > limit:
                                self.kill()
                                raise ResourceExhausted(
                                    f"{what} sent back more than {limit >> 20} MiB")
                            body, got = bytearray(n), 0
                    elif got < len(body):
                        try:
                            n = os.readv(self.resp_r, [memoryview(body)[got:]])
                        except BlockingIOError:
                            continue
                        if not n:
                            self._died(what)
                        got += n
                    if body is not None and got == len(body):
                        try:
                            reply = P.unpack(body)
                        except P.ProtocolError as exc:
                            self.kill()
                            raise WorkerCrashed(
                                f"{what}: the worker sent a malformed reply ({exc})") from None
                        self.drain_ready_output(what)
                        return reply
        finally:
            sel.close()

    def _drain_output(self, sel, what: str) -> None:
        try:
            chunk = os.read(self.out_r, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            sel.unregister(self.out_r)
            return
        self.output.add(chunk)
        if self.output.total > self.limits.max_output_bytes:
            self.kill()
            raise OutputFlood(f"{what} printed more than {self.limits.max_output_bytes} bytes "
                              "of output")

    def drain_ready_output(self, what: str) -> None:
        """Read whatever output is waiting, without blocking."""
        for _ in range(64):
            try:
                chunk = os.read(self.out_r, 1 << 16)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.output.add(chunk)
            if self.output.total > self.limits.max_output_bytes:
                self.kill()
                raise OutputFlood(f"{what} printed more than {self.limits.max_output_bytes} "
                                  "bytes of output")

    def _died(self, what: str):
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        # collect the last output before describing the death
        try:
            while True:
                chunk = os.read(self.out_r, 1 << 16)
                if not chunk or self.output.total > self.limits.max_output_bytes:
                    break
                self.output.add(chunk)
        except (BlockingIOError, OSError):
            pass
        self.kill()
        raise describe_exit(code, what, self.launch.mode)

    # ------------------------------------------------------------------ cleanup
    def kill(self) -> None:
        if not self.alive:
            return
        self.alive = False
        kill_leftovers(self.proc, self.launch)
        for fd in (self.req_w, self.resp_r, self.out_r):
            try:
                os.close(fd)
            except OSError:
                pass

    def close(self) -> None:
        """Ask politely (end of requests), then kill whatever is left."""
        if self.alive:
            try:
                os.close(self.req_w)
            except OSError:
                pass
            try:
                self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            self.req_w = -1
        self.kill()


def describe_exit(code: int | None, what: str, mode: str) -> ImplementationFault:
    """The fault for a worker that exited (bwrap reports a signal as 128 + signal number)."""
    sig = None
    if code is not None and code < 0:
        sig = -code
    elif code is not None and mode == "bwrap" and code > 128:
        sig = code - 128
    if sig == signal.SIGXCPU:
        return ResourceExhausted(f"{what}: the worker used up its CPU time limit")
    if sig == signal.SIGXFSZ:
        return ResourceExhausted(f"{what}: the worker wrote a file larger than allowed")
    if sig is not None:
        try:
            name = _SIGNALS.get(signal.Signals(sig), signal.Signals(sig).name)
        except ValueError:
            name = f"signal {sig}"
        return WorkerCrashed(f"{what}: the worker crashed with {name}")
    if code is None:
        return WorkerCrashed(f"{what}: the worker closed its reply pipe")
    return WorkerCrashed(f"{what}: the worker exited with status {code} "
                         "(os._exit, sys.exit or a crash)")


class SubmissionProxy:
    """An object whose attributes are the submission's contract functions."""

    def __init__(self, scratch: Scratch, limits: Limits, mode: str, functions: list[str]):
        self._scratch = scratch
        self._limits = limits
        self._mode = mode
        self._functions = list(functions)
        self._present: set[str] = set()
        self._worker: Worker | None = None
        self.output = OutputBuffer(limits.keep_output_bytes)
        self._start_t = time.monotonic()
        self._check_t = self._start_t
        self._timeouts: dict[str, int] = {}
        self.faults: list[str] = []
        self.restarts = 0

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Outcome:
        """Start a worker and import the submission (the first time: report what happened)."""
        try:
            header = self._spawn("importing the submission")
        except ImplementationFault as fault:
            return Outcome(ok=False, fault=fault)
        if "import_error" in header:
            self._kill()
            return Outcome(ok=False, error=dict(header["import_error"]))
        self._present = set(header["ready"])
        return Outcome(ok=True, functions=sorted(self._present))

    def _spawn(self, what: str) -> dict:
        self._worker = Worker(self._scratch, self._limits, self._mode, self._functions,
                              self.output)
        timeout = min(self._limits.startup_timeout, self._left("total"))
        header, _ = self._worker.exchange(None, max(timeout, 0.01), what)
        if "fault" in header:
            self._kill()
            raise self._fault(header, what)
        if "ready" in header and isinstance(header["ready"], list):
            return {"ready": [f for f in header["ready"] if f in self._functions]}
        if "import_error" in header and isinstance(header["import_error"], dict):
            return header
        self._kill()
        raise WorkerCrashed(f"{what}: the worker sent an unexpected first reply")

    def _ensure(self, what: str) -> Worker:
        if self._worker is None or not self._worker.alive:
            self.restarts += 1
            header = self._spawn(f"restarting the submission for {what}")
            if "import_error" in header:
                self._kill()
                raise WorkerCrashed(f"{what}: the submission failed to import again: "
                                    f"{header['import_error'].get('msg', '')}")
        return self._worker

    def _kill(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ time
    def begin_check(self) -> None:
        self._check_t = time.monotonic()

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
        if self._left("total") <= 0:
            raise CallTimeout(f"{what} not called: the submission used up its total time "
                              f"of {self._limits.total_timeout:g} s", function=name)
        if self._left("check") <= 0:
            raise CallTimeout(f"{what} not called: this check used up its time of "
                              f"{self._limits.check_timeout:g} s", function=name)
        if self._timeouts.get(name, 0) >= self._limits.max_timeouts_per_function:
            raise CallTimeout(f"{what} not called again: it timed out "
                              f"{self._timeouts[name]} time(s) before", function=name)
        blobs: list = []
        header = {"op": "call", "fn": name, "args": P.encode(list(args), blobs),
                  "kwargs": P.encode(list(kwargs.items()), blobs)}
        frame = P.pack(header, blobs)
        timeout = min(self._limits.call_timeout, self._left("total"), self._left("check"))
        try:
            worker = self._ensure(what)
            reply, rblobs = worker.exchange(frame, max(timeout, 0.01), what)
        except CallTimeout as exc:
            self._timeouts[name] = self._timeouts.get(name, 0) + 1
            self._kill()
            self.faults.append(str(exc))
            exc.function = name
            raise
        except ImplementationFault as exc:
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
        try:
            value = P.decode(reply.get("ok"), rblobs)
            self._write_back(args, kwargs, reply, rblobs)
        except (P.ProtocolError, TypeError, ValueError) as exc:
            self._kill()
            raise WorkerCrashed(f"{what}: the worker sent a malformed reply ({exc})",
                                function=name) from None
        return value

    def _write_back(self, args, kwargs, reply, blobs) -> None:
        def target(key):
            if isinstance(key, int) and 0 <= key < len(args):
                return args[key]
            if isinstance(key, str):
                return kwargs.get(key)
            return None

        for key, enc in reply.get("mutated") or []:
            orig, new = target(key), P.decode(enc, blobs)
            if (isinstance(orig, np.ndarray) and isinstance(new, np.ndarray)
                    and orig.shape == new.shape and orig.dtype == new.dtype
                    and orig.flags.writeable):
                np.copyto(orig, new)
        for key, enc in reply.get("rngs") or []:
            orig, state = target(key), P.decode(enc, blobs)
            if isinstance(orig, np.random.Generator) and isinstance(state, dict):
                P.make_generator(state)  # validates it
                orig.bit_generator.state = state

    def _fault(self, header: dict, what: str):
        kind, msg = header.get("fault"), str(header.get("msg", ""))[:2000]
        if kind == "forbidden":
            return ForbiddenImport(f"the submission imports {msg}, which is not allowed "
                                   "(the reference and the grader are off limits)")
        if kind == "memory":
            return ResourceExhausted(f"{what}: the submission {msg} (memory limit "
                                     f"{self._limits.memory_mb} MiB)")
        if kind == "result":
            return UnsupportedResult(msg)
        if kind == "crash":
            return WorkerCrashed(f"{what}: the submission {msg}")
        return WorkerCrashed(f"{what}: {msg or 'the worker failed'}")
