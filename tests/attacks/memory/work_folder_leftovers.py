"""Hostile (host memory and disk): what a worker writes, left for the next worker start.

At import it writes 24 MiB of files into its home folder (three of 8 MiB, each under the
file-size limit) and prints, as `WORK-REPORT {...}`, its home folder and the work folders of
the earlier worker starts it can see beside it; norm() and dot() then crash the worker
(`os._exit`), so that every check starts a fresh one. Where the work folder is a folder of the
host (`--sandbox container`, `--sandbox none`), each start's folder stayed until the
submission's grading ended: on /dev/shm (where the scratch folder goes when it has room) that
is memory outside every live memory cgroup, one --memory-mb per worker start (150 MiB more per
start in the sixth red-team round), and disk elsewhere.

Expected: each worker start's work folder is removed once the worker is confirmed gone: every
import sees no earlier folder beside its own. Under bubblewrap the home folder is a tmpfs that
dies with the sandbox.
"""
import json
import os

_MIB = 1 << 20
home = os.environ.get("HOME", ".")
wrote = 0
for i in range(3):
    try:
        with open(os.path.join(home, f"held{i}.bin"), "wb") as f:
            f.write(b"\1" * (8 * _MIB))
        wrote += 8
    except OSError:
        break
parent = os.path.dirname(home.rstrip("/"))
try:
    beside = sorted(n for n in os.listdir(parent) if n.startswith("work-")
                    and os.path.join(parent, n) != home.rstrip("/"))
except OSError:
    beside = []
print("WORK-REPORT " + json.dumps({"home": os.path.basename(home.rstrip("/")), "wrote_mib": wrote,
                                   "earlier": beside}))


def norm(v):
    os._exit(3)


def dot(a, b):
    os._exit(3)
