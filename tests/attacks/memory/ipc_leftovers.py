"""Hostile (host memory): System V IPC objects, which belong to an IPC namespace, not to a
process.

At import it makes four System V shared memory segments of 16 MiB, writes every page of each
through an attachment and detaches (no address space counts them any more), a message queue
with messages in it, a semaphore set and a POSIX message queue, and leaves them all. Where the
worker has no IPC namespace of its own (`--sandbox container`, `--sandbox none`) these outlive
its kill, its memory cgroup and the grading: each worker start could leave another
--memory-mb of the host's memory behind (64 MiB with this file; four 32 MiB segments, 128 MiB,
were found left after grading in both modes in the sixth red-team round). Attaching one of the machine's world-readable segments would
read another program's memory. It prints what it got as `IPC-REPORT {...}` (with the ids it
made, so that a test can remove them). norm() is correct.

Expected: in every mode each call is refused by the worker's seccomp filter (EPERM); nothing
is left; the norm check passes. Under bubblewrap the IPC namespace dies with the sandbox too.
"""
import ctypes
import json
import os

import numpy as np

_MIB = 1 << 20
_IPC_PRIVATE, _IPC_CREAT, _IPC_NOWAIT = 0, 0o1000, 0o4000


def _hold() -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    got: dict = {"shm": [], "msg": [], "sem": []}

    def refused(what: str) -> None:
        got[what + "_refused"] = f"refused, errno {ctypes.get_errno()}"

    for _ in range(4):
        sid = libc.shmget(_IPC_PRIVATE, 16 * _MIB, _IPC_CREAT | 0o600)
        if sid < 0:
            refused("shm")
            break
        got["shm"].append(sid)
        addr = libc.shmat(sid, None, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            refused("shmat")
            break
        ctypes.memset(addr, 1, 16 * _MIB)
        libc.shmdt(ctypes.c_void_p(addr))
    qid = libc.msgget(_IPC_PRIVATE, _IPC_CREAT | 0o600)
    if qid < 0:
        refused("msg")
    else:
        got["msg"].append(qid)
        body = ctypes.create_string_buffer(8 + 4000)
        ctypes.c_long.from_buffer(body).value = 1
        got["messages"] = sum(libc.msgsnd(qid, body, 4000, _IPC_NOWAIT) == 0 for _ in range(4))
    sem = libc.semget(_IPC_PRIVATE, 8, _IPC_CREAT | 0o600)
    if sem < 0:
        refused("sem")
    else:
        got["sem"].append(sem)
    mq = libc.mq_open(b"/andrea_ipc_leftovers", os.O_CREAT | os.O_RDWR, 0o600, None)
    if mq < 0:
        refused("mq")
    else:
        got["mq"] = "made"
    return got


print("IPC-REPORT " + json.dumps(_hold()))


def norm(v):
    return float(np.sqrt(np.sum(np.asarray(v, dtype=np.float64) ** 2)))
