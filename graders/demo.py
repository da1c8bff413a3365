"""`make demo`: the conformance suite on a bundled correct and a bundled buggy submission.

    python -m graders.demo
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from graders.conformance import cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "submissions"
#: The course's documents beside the checkout, where the course team's workspace puts them; a
#: fresh clone has none (README, "Audits": where they come from).
COURSE_TEXT = EXAMPLES.parent.parent.parent / "shared" / "seeds"


def _audit_docs_line() -> str:
    if COURSE_TEXT.is_dir() and any(COURSE_TEXT.glob("*.txt")):
        return "andrea-audit docs ../shared/seeds/*.txt         # course text vs spec\n"
    return ("andrea-audit docs COURSE_TEXT.txt ...           # the course's documents vs the "
            "spec (not in this repository: README, Audits)\n")


def main() -> int:
    console = Console()
    runs = [("correct", EXAMPLES / "correct_student.py", 0),
            ("buggy (one classic backward bug)", EXAMPLES / "buggy_student.py", 1)]
    ok = True
    for title, path, expected in runs:
        console.print(Rule(f"andrea-conform {path.relative_to(EXAMPLES.parent.parent)}  [{title}]"))
        code = cli.main([str(path)])
        console.print(f"exit status {code} (expected {expected})\n")
        ok &= code == expected
    console.print(Rule("next"))
    console.print("source .venv/bin/activate                      # then the commands below\n"
                  "andrea-conform andrea_ref                      # the reference conforms\n"
                  "pytest --pyargs graders.conformance --andrea-impl PATH # the same checks under pytest\n"
                  + _audit_docs_line() +
                  "andrea-grade examples/submissions/buggy_student.py --format text\n"
                  "andrea-grade student-kit --output dist/        # the students' self-check wheel\n"
                  "andrea-grade gradescope-zip --output autograder.zip  # the Gradescope autograder",
                  markup=False, soft_wrap=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
