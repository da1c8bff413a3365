"""Write the golden outputs of tests/grade/golden_cases.py under tests/grade/golden/.

    .venv/bin/python -m tests.grade.make_golden

Run it only when a change of what users read is meant (a new sentence, a fixed translation):
the diff of tests/grade/golden/ is then that change, for review. test_golden_reports.py
compares the same outputs with these files.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"


def main() -> int:
    from spec import load_spec
    from tests.grade.golden_cases import outputs

    with tempfile.TemporaryDirectory(prefix="andrea-golden-") as tmp:
        files = outputs(load_spec(), Path(tmp))
    shutil.rmtree(GOLDEN, ignore_errors=True)
    GOLDEN.mkdir()
    for name, text in sorted(files.items()):
        (GOLDEN / name).write_text(text, encoding="utf-8", newline="")
    print(f"{len(files)} files in {GOLDEN}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
