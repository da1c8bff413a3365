"""Cost of grading: isolated grade vs the in-process conformance run, then a batch.

    .venv/bin/python benchmarks/bench_grade.py                    # ratio (3 pairs) + batch of 50, 2 jobs
    .venv/bin/python benchmarks/bench_grade.py --pairs 5 --n 0    # the ratio only
    .venv/bin/python benchmarks/bench_grade.py --pairs 0 --n 300  # the batch only
    .venv/bin/python benchmarks/bench_grade.py --pairs 0 --n 0 --steady 4 --sandbox none

Ratio: `andrea-grade FILE` (checks in the grader, the submission in a sandboxed worker) against
`andrea-conform FILE` (the same checks and examples, the submission imported in-process), run
as alternating pairs of fresh commands on the same file, so both see the same machine. Wall time
and CPU time (user + sys of the command and every child it waited for) are printed per pair,
with best and median. A worker under bubblewrap is never waited for by the grader (bubblewrap's
monitor exits without reaping its init), so its CPU time is taken from the report's
`worker_cpu_s` (read by the grader from /proc before it stops the worker) and added. On a
shared machine CPU time is the steadier of the two: wall time also counts waiting for a core.

Steady: one process grades the correct example 2R times, as a batch's pool process does, with
the replay of kept draws off and on alternating (graders/conformance/replay.py); CPU time of
the grader and of its worker per grade.

Batch: one correct submission copied N times with a distinct comment each (none is skipped as
already graded), graded by `andrea-grade batch --jobs J`; with `--buggy K` every K-th copy is
the bundled buggy submission instead (failing checks run in Hypothesis and shrink: see
graders/conformance/replay.py). Peak memory: the largest resident set of any single process
(getrusage), and per kind of process (the batch's parent, a pool process, a worker) sampled
from /proc while the batch runs.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"
BUGGY = ROOT / "examples" / "submissions" / "buggy_student.py"
PY = sys.executable


MEMORY: list[MemorySampler] = []


def run(cmd: list[str], ok_codes=(0,), worker_cpu: bool = False,
        sample_memory: bool = False) -> tuple[float, float, float]:
    """(wall s, CPU s of the command and its waited-for children, peak RSS MiB of any of them).

    `worker_cpu`: the command prints a JSON grade report; a bubblewrap worker's CPU time (which
    no rusage counts) is added from its `worker_cpu_s`. `sample_memory`: the peak RSS of each
    kind of process is sampled while it runs (MEMORY)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE if worker_cpu else
                            subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = MemorySampler(proc.pid) if sample_memory else None
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t
    if sampler is not None:
        sampler.stop()
        MEMORY.append(sampler)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok_codes:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if worker_cpu:
        report = json.loads(stdout)["report"]
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


class MemorySampler:
    """Peak resident memory of a command's processes, by kind, sampled from /proc.

    Every `every` seconds it walks the descendants of `root` and reads each one's VmHWM (the
    kernel's own peak RSS of that process) and VmRSS. Kinds: the batch's parent, its pool
    processes (graders), the grading workers (worker.py; bubblewrap's own processes are
    counted with them: they are the worker's sandbox). `total` is the largest sum of VmRSS
    of all of them at one sample: the batch's footprint.
    """

    def __init__(self, root: int, every: float = 0.2):
        import threading

        self.root, self.every = root, every
        self.peak: dict[str, float] = {}
        self.total = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def sample(self) -> None:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        stat = f.read()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(b")", 1)[1].split()[1])
        tree, todo = {self.root}, [self.root]
        while todo:
            pid = todo.pop()
            for child, parent in parents.items():
                if parent == pid and child not in tree:
                    tree.add(child)
                    todo.append(child)
        total = 0.0
        for pid in tree:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
                with open(f"/proc/{pid}/status") as f:
                    status = dict(line.split(":", 1) for line in f if ":" in line)
            except OSError:
                continue
            if "VmHWM" not in status:
                continue
            kind = ("parent" if pid == self.root else "worker" if b"worker.py" in cmd
                    or b"bwrap" in cmd else "grader" if b"multiprocessing" in cmd else "other")
            hwm = int(status["VmHWM"].split()[0]) / 1024
            total += int(status["VmRSS"].split()[0]) / 1024
            self.peak[kind] = max(self.peak.get(kind, 0.0), hwm)
        self.total = max(self.total, total)


def batch(n: int, jobs: int, profile: str, sandbox: str, buggy: int = 0) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        for i in range(n):
            source = BUGGY if buggy and i % buggy == buggy - 1 else CORRECT
            shutil.copy(source, subs / f"student{i:03d}.py")
            with open(subs / f"student{i:03d}.py", "a") as f:
                f.write(f"\n# student {i}\n")
        wall, cpu, peak = run([PY, "-m", "graders.grade.cli", "batch", str(subs), "--jobs",
                               str(jobs), "--profile", profile, "--sandbox", sandbox, "--db",
                               str(Path(tmp) / "gb.sqlite"), "--no-progress"],
                              sample_memory=True)
        # A worker under bubblewrap is never waited for, so no rusage counts it: add the CPU
        # time the grader read from /proc for each report's workers (report["worker_cpu_s"]).
        con = sqlite3.connect(str(Path(tmp) / "gb.sqlite"))
        unreaped = 0.0
        for (text,) in con.execute("SELECT report FROM grades"):
            report = json.loads(text)
            if report["isolation"]["mode"] == "bwrap":
                unreaped += report.get("worker_cpu_s", 0.0)
        con.close()
        cpu += unreaped
    mix = f", every {buggy}th buggy" if buggy else ""
    print(f"batch of {n} ({profile}, {jobs} jobs, sandbox {sandbox}{mix}): {wall:.1f} s wall, "
          f"{wall / n:.2f} s per submission, {cpu / n:.2f} s CPU per submission; 300 would take "
          f"about {wall / n * 300 / 60:.1f} min at this rate (target <= 8), or "
          f"{cpu / n * 300 / jobs / 60:.1f} min from the CPU time on {jobs} free cores; peak RSS "
          f"of one process {peak:.0f} MiB")
    if MEMORY:
        m = MEMORY[-1]
        kinds = ", ".join(f"{k} {m.peak[k]:.0f} MiB" for k in ("parent", "grader", "worker")
                          if k in m.peak)
        print(f"  peak RSS by process (sampled every {m.every} s): {kinds}; all together at "
              f"most {m.total:.0f} MiB; per job (a grader and its worker) about "
              f"{m.peak.get('grader', 0) + m.peak.get('worker', 0):.0f} MiB")
    if unreaped:
        print(f"  (CPU time includes {unreaped / n:.2f} s per submission of bubblewrap workers, "
              "from the reports' worker_cpu_s)")


def steady(rounds: int, profile: str, sandbox: str) -> None:
    """One process grades the correct example again and again, as a batch's pool process does,
    alternating replay off and on (graders/conformance/replay.py): CPU time per grade of the
    grader process and of its worker, side by side in one run."""
    from graders.conformance import replay
    from graders.grade.grading import grade, load_submission
    from spec import load_spec

    spec, sub = load_spec(), load_submission(CORRECT)

    def one() -> tuple[float, float]:
        a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        report = grade(sub, spec, profile=profile, sandbox=sandbox)
        c, d = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        assert report["score"] == report["max_score"], report["score"]
        return (c.ru_utime + c.ru_stime - a.ru_utime - a.ru_stime,
                d.ru_utime + d.ru_stime - b.ru_utime - b.ru_stime)

    one()                       # imports, caches of the checks (KS critical values)
    replay.enable()
    one()                       # keeps the draws
    rows = {"hypothesis": [], "replayed": []}
    for i in range(rounds):
        for name in (("hypothesis", "replayed") if i % 2 == 0 else ("replayed", "hypothesis")):
            replay.enable(name == "replayed")
            rows[name].append(one())
    for name, r in rows.items():
        g = [x[0] for x in r]
        w = [x[1] for x in r]
        print(f"one process, {profile}, sandbox {sandbox}, draws {name}: grader CPU best "
              f"{min(g):.2f} s (median {statistics.median(g):.2f}), worker CPU best {min(w):.2f} s "
              f"(median {statistics.median(w):.2f}), per grade over {len(r)} grades")
    print(f"  kept: {len(replay.KEPT)} properties, {replay.KEPT.bytes / 2**20:.1f} MiB")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50, help="batch size (0: no batch)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3, help="grade/conform pairs (0: no ratio)")
    ap.add_argument("--profile", default="grading")
    ap.add_argument("--submission", type=Path, default=CORRECT)
    ap.add_argument("--steady", type=int, default=0, metavar="R",
                    help="grades of the correct example in this process, replay off and on "
                    "alternating, R of each (0: none); --sandbox none counts the worker's CPU")
    ap.add_argument("--buggy", type=int, default=0, metavar="K",
                    help="every K-th submission of the batch is the buggy example (0: none)")
    ap.add_argument("--sandbox", default="auto", help="passed to the batch (none: count the "
                    "workers' CPU time too)")
    args = ap.parse_args()
    print(f"- python {sys.version.split()[0]}, {os.cpu_count()} logical CPUs "
          f"({len(os.sched_getaffinity(0))} usable); load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.pairs:
        ratio(args.submission.resolve(), args.profile, args.pairs)
    if args.steady:
        steady(args.steady, args.profile, args.sandbox)
    if args.n:
        batch(args.n, args.jobs, args.profile, args.sandbox, args.buggy)
    print(f"- load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
