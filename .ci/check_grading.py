"""The grading path end to end under the running Python (make pythons): andrea-grade grades a
correct, a buggy and a notebook submission; each score must be what it is under any version.
Isolated with bubblewrap where it can run; elsewhere these trusted examples opt out explicitly
(--sandbox none), as the test suite does."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = (
    ("examples/submissions/correct_student.py", lambda s: s == 100),
    ("examples/submissions/buggy_student.py", lambda s: 0 < s < 100),
    ("tests/corpus/correct/notebook_magics.ipynb", lambda s: s == 100),
)


def main() -> int:
    from graders.grade.sandbox import probe_bwrap

    sandbox = "auto" if probe_bwrap()[0] else "none"
    bad = 0
    for rel, ok in CASES:
        p = subprocess.run([sys.executable, "-m", "graders.grade.cli", str(ROOT / rel),
                            "--profile", "dev", "--format", "json", "--sandbox", sandbox],
                           capture_output=True, text=True, cwd=ROOT, timeout=600)
        try:
            score = json.loads(p.stdout)["score"]
        except (ValueError, KeyError):
            score = None
        good = p.returncode == 0 and score is not None and ok(score)
        bad += not good
        print(f"{'ok' if good else 'FAILED'}: {rel}: score {score} (Python "
              f"{sys.version.split()[0]}, --sandbox {sandbox})"
              + ("" if good else f"\n{p.stderr.strip()[-2000:]}"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
