"""Cost of one call into an isolated submission: grader and worker CPU time per round trip.

    .venv/bin/python benchmarks/bench_calls.py                      # 2000 calls of each kind
    .venv/bin/python benchmarks/bench_calls.py --calls 5000 --rounds 5
    .venv/bin/python benchmarks/bench_calls.py --sandbox none --profile-worker /tmp/w.prof
    .venv/bin/python benchmarks/bench_calls.py --profile-grader /tmp/g.prof

A grade of a correct submission makes about 1600 calls, most of them small (a table of a few
rows, a handful of ids). This drives such calls through the real `SubmissionProxy` and `Worker`
into a real worker (under bubblewrap where the grader would use it), one kind at a time in
rotating rounds so that every kind sees the same machine:

* ``nothing()``: no arguments, returns None (the bare round trip);
* ``lookup(table, ids)``: an 8 x 4 float32 table and 5 int64 ids, returns the rows;
* ``cosine(a, b)``: two float32 vectors of 16 values, returns a Python float;
* ``mid(x)``: 64 KiB of float32 (crosses the pipe; the worker snapshots it for the mutation
  check), returns a float;
* ``kept(table)``: a 4 MiB table that the worker keeps (shared arena, a copy-on-write map per
  call, compared with the kept copy after the call), returns one value.

Per kind: the grader's CPU time (this process, `time.process_time`), the worker's (the
scheduler's run time of every thread of the worker and of bubblewrap's processes above it,
from /proc/PID/task/TID/schedstat, in nanoseconds: the clock ticks of /proc/PID/stat are too
coarse for a few thousand calls), and wall time, each per call. CPU time is the steadier number on a shared machine: wall time
also counts waiting for a core (twice per call: the worker wakes, then the grader).

``--profile-worker FILE`` (``--sandbox none`` only) runs the worker under cProfile with a
CPU-time clock and writes its stats to FILE; ``--profile-grader FILE`` does the same for this
process's calls.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graders.grade import proxy as px  # noqa: E402
from graders.grade.sandbox import Limits, choose_mode, prepare  # noqa: E402

SOURCE = b'''
import numpy as np


def nothing():
    return None


def lookup(table, ids):
    return table[ids]


def cosine(a, b):
    return float(a @ b / (np.sqrt(a @ a) * np.sqrt(b @ b)))


def mid(x):
    return float(x[0])


def kept(table):
    return float(table[1, 2])
'''
FUNCS = ["nothing", "lookup", "cosine", "mid", "kept"]

_PROFILE_WRAPPER = '''
import cProfile, runpy, sys, time
out, script = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
prof = cProfile.Profile(time.process_time)
prof.enable()
try:
    runpy.run_path(script, run_name="__main__")
finally:
    prof.disable()
    prof.dump_stats(out)
'''


def _kinds(rng: np.random.Generator) -> dict:
    table = rng.standard_normal((8, 4), dtype=np.float32)
    ids = np.array([0, 3, 7, 3, 1], dtype=np.int64)
    a, b = rng.standard_normal(16, dtype=np.float32), rng.standard_normal(16, dtype=np.float32)
    x = rng.standard_normal(16384, dtype=np.float32)
    big = rng.standard_normal((1024, 1024), dtype=np.float32)
    return {"nothing": (), "lookup": (table, ids), "cosine": (a, b), "mid": (x,),
            "kept": (big,)}


def _tree(root: int) -> list[int]:
    """`root` and every process below it."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    parents[int(entry)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sorted(tree)


def _run_ns(pids: list[int]) -> int:
    """Nanoseconds on a CPU of every thread of `pids` (the scheduler's own account)."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return total


def _let_worker_exit(worker, seconds: float = 10.0) -> None:
    """End the worker's requests and wait for it to exit on its own (the grader kills it), so
    that the profiling wrapper gets to write its stats."""
    os.close(worker.req_w)
    worker.req_w = -1
    try:
        worker.proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass


def _profiled_plan(orig, out: str, wrapper: str):
    def plan(*a, **k):
        launch = orig(*a, **k)
        i = next(j for j, arg in enumerate(launch.argv) if arg.endswith("/worker.py"))
        launch.argv[i:i] = [wrapper, out]
        return launch
    return plan


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000, help="calls of each kind")
    ap.add_argument("--rounds", type=int, default=4, help="rounds the calls are spread over")
    ap.add_argument("--sandbox", default="auto", help="auto, bwrap or none")
    ap.add_argument("--kinds", default=",".join(FUNCS), help="comma-separated kinds to time")
    ap.add_argument("--profile-worker", metavar="FILE", default=None)
    ap.add_argument("--profile-grader", metavar="FILE", default=None)
    args = ap.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds or any(k not in FUNCS for k in kinds):
        ap.error(f"--kinds: choose from {', '.join(FUNCS)}")
    if args.calls < args.rounds or args.rounds < 1:
        ap.error("--calls must be at least --rounds, and --rounds at least 1")
    mode, why = choose_mode(args.sandbox)
    tmp = tempfile.mkdtemp(prefix="bench-calls-")
    if args.profile_worker:
        if mode != "rlimits":
            ap.error("--profile-worker needs --sandbox none (the profile is written on the host)")
        os.chmod(tmp, 0o777)
        wrapper = os.path.join(tmp, "profile_worker.py")
        Path(wrapper).write_text(_PROFILE_WRAPPER)
        os.chmod(wrapper, 0o644)
        out = os.path.join(tmp, "worker.prof")
        px.plan = _profiled_plan(px.plan, out, wrapper)
    print(f"- python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} logical "
          f"CPUs ({len(os.sched_getaffinity(0))} usable); worker isolation: {mode}; load "
          f"average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    gprof = None
    if args.profile_grader:
        import cProfile

        gprof = cProfile.Profile(time.process_time)
    scratch = prepare({"calls.py": SOURCE}, "calls.py")
    proxy = px.SubmissionProxy(scratch, Limits(), mode, FUNCS)
    try:
        outcome = proxy.start()
        if not outcome.ok:
            sys.exit(f"the benchmark's submission did not start: {outcome.error or outcome.fault}")
        values = _kinds(np.random.default_rng(0))
        for k in kinds:                       # warm-up; checks the answers once
            for _ in range(20):
                got = getattr(proxy, k)(*values[k])
        assert proxy.lookup(*values["lookup"]).shape == (5, 4)
        pids = _tree(proxy._worker.proc.pid)
        rows = {k: [0.0, 0.0, 0.0] for k in kinds}     # grader CPU, worker CPU, wall
        per_round = args.calls // args.rounds
        for r in range(args.rounds):
            order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]
            for k in order:
                fn, a = getattr(proxy, k), values[k]
                w0, c0, t0 = _run_ns(pids), time.process_time(), time.perf_counter()
                if gprof is not None:
                    gprof.enable()
                for _ in range(per_round):
                    fn(*a)
                if gprof is not None:
                    gprof.disable()
                t1, c1, w1 = time.perf_counter(), time.process_time(), _run_ns(pids)
                rows[k][0] += c1 - c0
                rows[k][1] += (w1 - w0) / 1e9
                rows[k][2] += t1 - t0
        n = per_round * args.rounds
        print(f"{n} calls of each kind in {args.rounds} rounds; us per call:")
        print("| call | grader CPU | worker CPU | both | wall |")
        print("|---|---|---|---|---|")
        for k in kinds:
            g, w, t = (x / n * 1e6 for x in rows[k])
            print(f"| {k}({', '.join(_describe(v) for v in values[k])}) | {g:.0f} | {w:.0f} "
                  f"| {g + w:.0f} | {t:.0f} |")
        both = [sum(rows[k][:2]) / n * 1e6 for k in kinds]
        print(f"median over kinds, grader + worker CPU: {statistics.median(both):.0f} us per call")
    finally:
        if args.profile_worker and proxy._worker is not None:
            _let_worker_exit(proxy._worker)
        proxy.close()
        scratch.cleanup()
        print(f"- load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if gprof is not None:
            gprof.dump_stats(args.profile_grader)
            print(f"grader profile (CPU time): {args.profile_grader}")
        if args.profile_worker:
            if os.path.exists(out):
                shutil.copy(out, args.profile_worker)
                print(f"worker profile (CPU time): {args.profile_worker}")
            else:
                print("the worker wrote no profile")
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _describe(v) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype}{list(v.shape)}"
    return type(v).__name__


if __name__ == "__main__":
    sys.exit(main())
