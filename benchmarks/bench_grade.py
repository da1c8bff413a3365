"""Wall time and peak memory of andrea-grade: one correct submission, then a batch.

    .venv/bin/python benchmarks/bench_grade.py                 # 1 grade + batch of 50, 2 jobs
    .venv/bin/python benchmarks/bench_grade.py --n 10 --profile ci

Peak memory is the largest resident set of the grader process and of any single child
(worker or pool process), from getrusage; the batch copies one correct submission N times
with a distinct comment each, so none is skipped as already graded.
"""
from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"
PY = sys.executable


def run(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--profile", default="grading")
    args = ap.parse_args()
    wall, peak = run([PY, "-m", "graders.grade.cli", str(CORRECT), "--profile", args.profile,
                      "--format", "json"])
    print(f"one grade ({args.profile}): {wall:.1f} s wall, peak RSS {peak:.0f} MiB")
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        for i in range(args.n):
            shutil.copy(CORRECT, subs / f"student{i:03d}.py")
            with open(subs / f"student{i:03d}.py", "a") as f:
                f.write(f"\n# student {i}\n")
        wall, peak = run([PY, "-m", "graders.grade.cli", "batch", str(subs), "--jobs",
                          str(args.jobs), "--profile", args.profile, "--db",
                          str(Path(tmp) / "gb.sqlite"), "--no-progress"])
    print(f"batch of {args.n} ({args.profile}, {args.jobs} jobs): {wall:.1f} s wall, "
          f"{wall / args.n:.1f} s per submission, peak RSS of one process {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
