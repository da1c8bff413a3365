"""Hostile (other students' files): read the other submissions of a batch, and the gradebook.

In a batch every worker is one student's; the folder of hand-ins (`andrea-grade batch
submissions/`), the gradebook beside it and the other workers' scratch folders are on the
same machine. Without a mount and PID namespace (`--sandbox container`) the worker finds them
on the command lines in /proc (the grader's `batch <folder>`, another worker's `--module
<scratch>/submission/bob.py`) and reads whatever is world-readable there: in the sixth
red-team round a container-mode batch let alice.py read bob.py whole (4169 bytes, a correct
solution it could have run as its own). It prints what it found as `NEIGHBOURS-REPORT {...}`;
its own norm() is wrong (always 0).

Expected: a batch is never graded in container mode (one submission per disposable container;
refused up front, nothing graded); under bubblewrap no other student's file, no folder of the
batch and no gradebook is in its view.
"""
import json
import os

found = {"dirs": [], "read": {}}


def _look() -> None:
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return
    for pid in pids[:4096]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read(65536).split(b"\0")
        except OSError:
            continue
        for a in args:
            p = a.decode("utf-8", "replace")
            if p.endswith(".py") and p.startswith("/"):
                p = os.path.dirname(p)
            for d in (p, os.path.dirname(p)):
                if d.startswith("/") and d != "/" and os.path.isdir(d) \
                        and d not in found["dirs"]:
                    found["dirs"].append(d)
    for d in found["dirs"][:64]:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names[:256]:
            q = os.path.join(d, n)
            if n.endswith((".py", ".sqlite", ".csv", ".ipynb")) and os.path.isfile(q):
                try:
                    with open(q, "rb") as f:
                        found["read"][n] = len(f.read(1 << 20))
                except OSError as exc:
                    found["read"][n] = exc.strerror


_look()
print("NEIGHBOURS-REPORT " + json.dumps(found))


def norm(v):
    return 0.0
