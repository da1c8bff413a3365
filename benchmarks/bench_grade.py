"""Cost of grading: isolated grade vs the in-process conformance run, then a batch.

    .venv/bin/python benchmarks/bench_grade.py                    # ratio (3 pairs) + batch of 50, 2 jobs
    .venv/bin/python benchmarks/bench_grade.py --pairs 5 --n 0    # the ratio only
    .venv/bin/python benchmarks/bench_grade.py --pairs 0 --n 300  # the batch only

Ratio: `andrea-grade FILE` (checks in the grader, the submission in a sandboxed worker) against
`andrea-conform FILE` (the same checks and examples, the submission imported in-process), run
as alternating pairs of fresh commands on the same file, so both see the same machine. Wall time
and CPU time (user + sys of the command and every child it waited for) are printed per pair,
with best and median. A worker under bubblewrap is never waited for by the grader (bubblewrap's
monitor exits without reaping its init), so its CPU time is taken from the report's
`worker_cpu_s` (read by the grader from /proc before it stops the worker) and added. On a
shared machine CPU time is the steadier of the two: wall time also counts waiting for a core.

Batch: one correct submission copied N times with a distinct comment each (none is skipped as
already graded), graded by `andrea-grade batch --jobs J`. Peak memory is the largest resident set
of any single process (the batch's parent, a pool process or a worker), from getrusage.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"
PY = sys.executable


def run(cmd: list[str], ok_codes=(0,), worker_cpu: bool = False) -> tuple[float, float, float]:
    """(wall s, CPU s of the command and its waited-for children, peak RSS MiB of any of them).

    `worker_cpu`: the command prints a JSON grade report; a bubblewrap worker's CPU time (which
    no rusage counts) is added from its `worker_cpu_s`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE if worker_cpu else
                          subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok_codes:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if worker_cpu:
        report = json.loads(proc.stdout)["report"]
        if report["isolation"]["mode"] == "bwrap":   # otherwise waited for, so counted above
            cpu += report.get("worker_cpu_s", 0.0)
    return wall, cpu, max(after.ru_maxrss, before.ru_maxrss) / 1024


def ratio(submission: Path, profile: str, pairs: int) -> None:
    conform = [PY, "-m", "graders.conformance.cli", str(submission), "--profile", profile,
               "--format", "json"]
    grade = [PY, "-m", "graders.grade.cli", str(submission), "--profile", profile,
             "--format", "json"]
    run(conform), run(grade)  # warm-up: page cache, .pyc files
    rows = {"conform": [], "grade": []}
    for i in range(pairs):
        order = (("conform", conform), ("grade", grade))
        for name, cmd in order if i % 2 == 0 else order[::-1]:
            rows[name].append(run(cmd, worker_cpu=name == "grade")[:2])
        (cw, cc), (gw, gc) = rows["conform"][-1], rows["grade"][-1]
        print(f"pair {i + 1}: in-process {cw:.2f} s wall / {cc:.2f} s CPU, isolated {gw:.2f} s "
              f"wall / {gc:.2f} s CPU; ratio wall {gw / cw:.2f}, CPU {gc / cc:.2f}")
    for what, k in (("wall", 0), ("CPU", 1)):
        c = [r[k] for r in rows["conform"]]
        g = [r[k] for r in rows["grade"]]
        print(f"{what}: in-process best {min(c):.2f} s (median {statistics.median(c):.2f}), "
              f"isolated best {min(g):.2f} s (median {statistics.median(g):.2f}); "
              f"ratio of bests {min(g) / min(c):.2f}, of medians "
              f"{statistics.median(g) / statistics.median(c):.2f} (target <= 1.2)")


def batch(n: int, jobs: int, profile: str, sandbox: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        for i in range(n):
            shutil.copy(CORRECT, subs / f"student{i:03d}.py")
            with open(subs / f"student{i:03d}.py", "a") as f:
                f.write(f"\n# student {i}\n")
        wall, cpu, peak = run([PY, "-m", "graders.grade.cli", "batch", str(subs), "--jobs",
                               str(jobs), "--profile", profile, "--sandbox", sandbox, "--db",
                               str(Path(tmp) / "gb.sqlite"), "--no-progress"])
    print(f"batch of {n} ({profile}, {jobs} jobs, sandbox {sandbox}): {wall:.1f} s wall, "
          f"{wall / n:.2f} s per submission, {cpu / n:.2f} s CPU per submission; 300 would take "
          f"about {wall / n * 300 / 60:.1f} min at this rate (target <= 8), or "
          f"{cpu / n * 300 / jobs / 60:.1f} min from the CPU time on {jobs} free cores; peak RSS "
          f"of one process {peak:.0f} MiB")
    if sandbox != "none":
        print("  (CPU time: a worker that bubblewrap's init did not reap before it was killed is "
              "not counted; --sandbox none counts every worker)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50, help="batch size (0: no batch)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3, help="grade/conform pairs (0: no ratio)")
    ap.add_argument("--profile", default="grading")
    ap.add_argument("--submission", type=Path, default=CORRECT)
    ap.add_argument("--sandbox", default="auto", help="passed to the batch (none: count the "
                    "workers' CPU time too)")
    args = ap.parse_args()
    print(f"- python {sys.version.split()[0]}, {os.cpu_count()} logical CPUs "
          f"({len(os.sched_getaffinity(0))} usable); load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.pairs:
        ratio(args.submission.resolve(), args.profile, args.pairs)
    if args.n:
        batch(args.n, args.jobs, args.profile, args.sandbox)
    print(f"- load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
