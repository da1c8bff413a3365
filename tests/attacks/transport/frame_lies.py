"""Attack on the reply pipe and the call protocol, each from inside a call whose argument sits
in the shared-memory arena (a mapping the worker holds):

* `huge`: a frame header that declares 2**62 bytes (the grader must not try to allocate it);
* `short`: a header that declares 1 MiB, 100 bytes of it, then silence (never replying while
  holding the arena's mapping);
* `declares`: a header that declares just under the 384 MiB reply limit, then silence (the
  grader must not hold 384 MiB for the 12 bytes it got);
* `stopped`: SIGSTOP of itself in the middle of a call (a stopped process ignores SIGTERM);
* `early`: a whole reply written before the call's own, so that the next call's answer is
  already waiting when the grader sends the next request.

Must happen: `huge` is a resource fault at once, `short`, `declares` and `stopped` are timeouts of that
call (the worker killed, confirmed gone), and each time the next call starts a fresh worker
that answers from the grader's own bytes (`total`). `early` changes nothing the worker could
not do anyway: each answer is the worker's, for the call it answers.
"""
import json
import os
import signal
import struct
import sys
import time

import numpy as np


def _reply_fd():
    return int(sys.argv[sys.argv.index("--resp-fd") + 1])


def _frame(header):
    head = json.dumps(dict(header, blobs=[])).encode()
    return struct.pack(">QI", 4 + len(head), len(head)) + head


def huge(a):
    os.write(_reply_fd(), struct.pack(">Q", 1 << 62) + b"\0" * 8)
    time.sleep(30)


def short(a):
    os.write(_reply_fd(), struct.pack(">QI", 1 << 20, 20) + b"\0" * 100)
    time.sleep(30)


def declares(a):
    os.write(_reply_fd(), struct.pack(">QI", (384 << 20) - 64, 20) + b"\0" * 4)
    time.sleep(30)


def stopped(a):
    os.kill(os.getpid(), signal.SIGSTOP)
    return 0.0


def early(a):
    os.write(_reply_fd(), _frame({"ok": -1.0, "mutated": [], "rngs": []}))
    return float(a[0])


def total(a):
    return float(np.asarray(a, dtype=np.float64).sum())
