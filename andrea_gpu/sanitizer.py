"""NVIDIA compute-sanitizer over a kernel submission's launches, where a CUDA device exists.

On a GPU machine the CPU executor's checks (guard pages, the race checker) do not run: the
kernels run on the device. This module adds the device's own checkers instead: it runs a short
exercise of every entry point (every test launch shape, good ids and out-of-range ids) in a
child process under ``compute-sanitizer`` with each tool,

* ``memcheck``: out-of-bounds and misaligned global/shared accesses;
* ``racecheck``: shared-memory hazards (a missing ``__syncthreads()``);
* ``synccheck``: barrier misuse (divergent or partially reached ``__syncthreads()``),

and turns its report into findings per kernel: (tool, kernel, what, where), ``where`` being
``file:line`` of the submission (the exercise compiles with ``--generate-line-info``). The
kernel runtime (``andrea_gpu.host``) raises them as ``KernelError`` feedback at the first
call that launches that kernel, like the executor's errors. compute-sanitizer comes from the
``nvidia-cuda-sanitizer-api`` wheel (``nvidia/cu13/compute-sanitizer/``, part of the ``gpu``
extra) or a CUDA toolkit on PATH.

Without a CUDA device (``cupy.cuda.is_available()`` false) or without compute-sanitizer,
``available()`` says why and nothing runs. This path has not been run on a GPU machine yet.

    python -m andrea_gpu.exercise student.cu contract.json   # the child's side
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TOOLS = ("memcheck", "racecheck", "synccheck")
ERROR_EXIT = 86
LINE_INFO = "--generate-line-info"


@dataclass(frozen=True)
class Finding:
    tool: str
    kernel: str
    what: str
    where: str  # file:line, or "" when the report has none

    def message(self) -> str:
        return str(self.said())

    def said(self):
        """The finding as a catalog sentence (findings.MSG_SANITIZER*); the tool's own words
        (``what``) are quoted as it wrote them."""
        from .executor import findings as F

        if self.where:
            return F.Said(F.MSG_SANITIZER_AT, tool=self.tool, kernel=self.kernel, what=self.what,
                          line=self.where)
        return F.Said(F.MSG_SANITIZER, tool=self.tool, kernel=self.kernel, what=self.what)


def find_sanitizer() -> str | None:
    """The compute-sanitizer executable: from the wheel on sys.path, else PATH."""
    try:
        found = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        found = None
    for root in (found.submodule_search_locations or []) if found else []:
        for exe in sorted(Path(root).glob("*/compute-sanitizer/compute-sanitizer")):
            if os.access(exe, os.X_OK):
                return str(exe)
    return shutil.which("compute-sanitizer")


def available() -> tuple[bool, str]:
    """(True, "") where a CUDA device and compute-sanitizer exist, else (False, why)."""
    from .backend import cuda_available

    if not cuda_available():
        return False, "no CUDA device (cupy.cuda.is_available() is False)"
    if find_sanitizer() is None:
        return False, ("compute-sanitizer not found: install the nvidia-cuda-sanitizer-api wheel "
                       "(the gpu extra) or a CUDA toolkit")
    return True, ""


# ----------------------------------------------------------------------------- report parsing
_SUMMARY = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
            "Program hit", "Saved host backtrace", "Target application", "Host Frame")
_AT = re.compile(r"^at (?:0x[0-9a-f]+ in )?([A-Za-z_]\w*)\+0x[0-9a-f]+(?: in (\S+?):(\d+))?")
_RACE = re.compile(r"Race reported between (\w+) access at ([A-Za-z_]\w*)\+0x[0-9a-f]+"
                   r"(?: in (\S+?):(\d+))?")


def parse_report(tool: str, text: str, kernels) -> list[Finding]:
    """Findings of one compute-sanitizer run's output, for the named kernels only.

    Report lines start with ``=========``; an error is a line right after that prefix (e.g.
    ``Invalid __global__ read of size 4 bytes``), its details are indented below it (``at
    KERNEL+0x1f0 in FILE:LINE``, ``by thread (0,0,0) in block (0,0,0)``). racecheck says
    ``Error: Race reported between Write access at KERNEL+0x.. in FILE:LINE and Read ...``.
    """
    kernels = set(kernels)
    findings: list[Finding] = []
    what = None
    for raw in text.splitlines():
        m = re.match(r"^=+ (\s*)(.*)$", raw)
        if not m:
            continue
        indent, rest = m.group(1), m.group(2).strip()
        race = _RACE.search(rest)
        if race:
            if race.group(2) in kernels:
                where = (f"{os.path.basename(race.group(3))}:{race.group(4)}"
                         if race.group(3) else "")
                findings.append(Finding(tool, race.group(2), "shared-memory data race ("
                                        f"{race.group(1).lower()} access not ordered by a "
                                        "__syncthreads())", where))
            what = None
        elif not indent:
            what = None if (not rest or rest.startswith(_SUMMARY)) else rest.rstrip(".")
        elif what:
            at = _AT.match(rest)
            if at and at.group(1) in kernels:
                where = f"{os.path.basename(at.group(2))}:{at.group(3)}" if at.group(2) else ""
                findings.append(Finding(tool, at.group(1), what, where))
                what = None
    unique: list[Finding] = []
    for f in findings:
        if f not in unique:
            unique.append(f)
    return unique


# ----------------------------------------------------------------------------- running
def run(path, contract_data: dict, *, tools=TOOLS, timeout: float = 120.0,
        env: dict | None = None) -> list[Finding]:
    """Run the exercise of `path` under each tool; the findings of all of them.

    Raises RuntimeError when the sanitizer itself cannot run (a problem of the machine, not of
    the submission).
    """
    exe = find_sanitizer()
    if exe is None:
        raise RuntimeError(available()[1])
    kernels = [e["name"] for e in contract_data.get("entry_points", [])]
    here = str(Path(__file__).resolve().parent.parent)
    child_env = dict(env if env is not None else os.environ)
    child_env["PYTHONPATH"] = os.pathsep.join(
        [here] + [p for p in sys.path if p and os.path.isdir(p)])
    contract_file = Path(child_env.get("TMPDIR", "/tmp")) / f"andrea-contract-{os.getpid()}.json"
    contract_file.write_text(json.dumps(contract_data))
    findings: list[Finding] = []
    try:
        for tool in tools:
            cmd = [exe, "--tool", tool, "--error-exitcode", str(ERROR_EXIT), "--print-limit",
                   "20", sys.executable, "-s", "-S", "-m", "andrea_gpu.exercise",
                   str(path), str(contract_file)]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  env=child_env)
            found = parse_report(tool, proc.stdout + "\n" + proc.stderr, kernels)
            if proc.returncode not in (0, ERROR_EXIT) and not found:
                raise RuntimeError(f"compute-sanitizer {tool} failed (exit {proc.returncode}): "
                                   f"{(proc.stderr or proc.stdout).strip()[-500:]}")
            findings += found
    finally:
        contract_file.unlink(missing_ok=True)
    return findings
