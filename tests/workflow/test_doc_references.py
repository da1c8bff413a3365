"""The tests the documentation names exist: every ``tests/...py::test_name`` of the README, the
docs/ pages and the corpora's READMEs is a test defined in that file, every ``tests/...py`` they
name is a file, and every test a table row names on its own (`test_name`: the attack table of
docs/grading.md) is defined in some test file. A
test renamed or moved (the attack tests were regrouped by threat) must take its references
along."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
               *(ROOT / "examples").rglob("README.md"), *(ROOT / "tests").rglob("*.md"),
               *(ROOT / "packaging").rglob("README.md")])
PATH_REF = re.compile(r"(tests/[\w/]+\.py)(?:::(test_\w+))?")
BARE_REF = re.compile(r"`(test_\w+)(?:\[[^\]`]*\])?`")


def _defined(path: Path) -> set[str]:
    return set(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(encoding="utf-8"), re.M))


def test_every_named_test_file_and_test_exists():
    every = set().union(*(_defined(p) for p in (ROOT / "tests").rglob("test_*.py")))
    wrong = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in PATH_REF.finditer(text):
            path, name = ROOT / m.group(1), m.group(2)
            if not path.is_file():
                wrong.append(f"{doc.name}: {m.group(0)}: no such file")
            elif name and name not in _defined(path):
                wrong.append(f"{doc.name}: {m.group(0)}: no such test in that file")
        rows = "\n".join(ln for ln in text.splitlines() if ln.startswith("|"))
        for m in BARE_REF.finditer(rows):   # (elsewhere `test_shapes` is a field of the spec)
            if m.group(1) not in every:
                wrong.append(f"{doc.name}: {m.group(1)}: no test of that name")
    assert wrong == [], "\n".join(wrong)
