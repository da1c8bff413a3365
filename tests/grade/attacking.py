"""What the attack tests (tests/grade/test_attacks_<threat>.py) share: grading one attack file
of ``tests/attacks/<threat>/``, reading what it printed, and a fresh interpreter's peak memory."""
from __future__ import annotations

import json
from pathlib import Path

from graders.grade import formats
from tests.attacks import CORPUS
from tests.helpers import fast_limits

from .conftest import grade_path

ROOT = Path(__file__).resolve().parents[2]
#: The limits of the verdicts' audit attacks (one call may take its time, the import its own).
AUDIT_LIMITS = fast_limits(call_timeout=1.5, startup_timeout=8.0)
#: What a student must never read: the grader's own code and its wire.
INTERNALS = ("worker.py", "Traceback", "/sandbox/runtime", "chan.send")


def grade_attack(name, spec, select):
    """The attack file `name`.py graded in bubblewrap on `select`: its report, and its checks
    by id."""
    rep = grade_path(CORPUS / f"{name}.py", spec, select=select, limits=AUDIT_LIMITS,
                     sandbox="bwrap")
    return rep, {c["id"]: c for c in rep["checks"]}


def student_text(rep) -> str:
    """What a student reads of a report: the text and the Gradescope output."""
    return "\n".join(formats.render(rep, fmt, "en") for fmt in ("text", "gradescope"))


def by_id(rep) -> dict:
    return {c["id"]: c for c in rep["checks"]}


def printed_report(rep: dict, tag: str) -> dict:
    """The JSON an attack printed on its line ``TAG {...}`` (what it saw from inside)."""
    line = next(x for x in rep["submission_output"].splitlines() if x.startswith(tag + " "))
    return json.loads(line.split(" ", 1)[1])


def vm_hwm_mib(code: str) -> tuple[float, str]:
    """Run `code` in a fresh interpreter; its peak resident memory (VmHWM, MiB) and output."""
    import subprocess
    import sys

    code += ("\nfor line in open('/proc/self/status'):\n"
             "    if line.startswith('VmHWM:'): print('HWM', int(line.split()[1]) / 1024)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    hwm = [float(x.split()[1]) for x in out.stdout.splitlines() if x.startswith("HWM ")]
    assert hwm, (out.stdout[-2000:], out.stderr[-2000:])
    return hwm[0], out.stdout
