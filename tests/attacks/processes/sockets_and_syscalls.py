"""Hostile (host memory, escape): sockets and the other system calls the worker never needs.

The kernel charges a socket's buffers to no memory cgroup: a loopback TCP connection whose
receiver never reads held 776 MB of the host's memory under --memory-mb 256, never killed. It
tries every way to a socket and to the calls of the same kind: socket(AF_INET) and
socket(AF_UNIX), socketpair, the raw socket system call (41), the same call through the x32
numbering (41 | 0x40000000, in a child, which the filter may kill), io_uring (which opens
sockets by itself), ptrace, mount, setns, and clone with CLONE_NEWNET. Where a socket pair can
be made it stuffs 64 MiB into it (bounded here; a real attack would not stop). It reports what
it achieved on standard output. norm() is correct.

Expected: each attempt is refused (EPERM; the x32 call kills its child, SIGSYS), nothing is
held, and the norm check passes (pipes, threads and processes still work).
"""
import ctypes
import errno
import json
import os
import signal
import socket
import threading

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _sys(nr, *args) -> str:
    ctypes.set_errno(0)
    r = _libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    if r < 0:
        return f"refused, errno {ctypes.get_errno()}"
    if r > 2:
        try:
            os.close(r)
        except OSError:
            pass
    return "allowed"


def _stuff(a: socket.socket, b: socket.socket) -> str:
    a.setblocking(False)
    held, chunk = 0, b"\1" * (1 << 16)
    try:
        while held < (64 << 20):
            held += a.send(chunk)
    except OSError:
        pass
    return f"allowed, held {held >> 20} MiB"


def _python_socket(family) -> str:
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        return f"refused, errno {exc.errno}"
    s.close()
    return "allowed"


def _pair() -> str:
    try:
        a, b = socket.socketpair()
    except OSError as exc:
        return f"refused, errno {exc.errno}"
    try:
        return _stuff(a, b)
    finally:
        a.close(), b.close()


def _x32_socket() -> str:
    pid = os.fork()
    if pid == 0:
        r = _libc.syscall(ctypes.c_long(41 | 0x40000000), 2, 1, 0)
        os._exit(0 if r >= 0 else 3)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"killed, signal {os.WTERMSIG(status)}"
    return "allowed" if os.WEXITSTATUS(status) == 0 else "refused"


def _clone_newnet() -> str:
    r = _libc.syscall(ctypes.c_long(56), ctypes.c_long(0x40000000 | signal.SIGCHLD), 0, 0, 0, 0)
    if r == 0:
        os._exit(0)
    if r < 0:
        return f"refused, errno {ctypes.get_errno()}"
    os.waitpid(r, 0)
    return "allowed"


_params = (ctypes.c_uint32 * 30)()
_report = {
    "inet": _python_socket(socket.AF_INET),
    "unix": _python_socket(socket.AF_UNIX),
    "pair": _pair(),
    "raw": _sys(41, 2, 1, 0),                 # socket(AF_INET, SOCK_STREAM, 0)
    "x32": _x32_socket(),
    "io_uring": _sys(425, 8, ctypes.addressof(_params)),
    "ptrace": _sys(101, 0, 0, 0, 0),          # PTRACE_TRACEME
    "mount": _sys(165, 0, 0, 0, 0, 0),
    "setns": _sys(308, 0, 0),
    "clone_newnet": _clone_newnet(),
}
_r, _w = os.pipe()   # pipes, threads and processes still work
os.write(_w, b"x")
_report["pipe"] = "works" if os.read(_r, 1) == b"x" else "broken"
_t = threading.Thread(target=lambda: None)
_t.start()
_t.join()
print("SOCKET-REPORT " + json.dumps(_report, sort_keys=True), flush=True)
del errno


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
