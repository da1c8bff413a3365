"""Grade one submission: find its module, run every check through an isolated worker, score.

    sub = load_submission("alice.py")                  # or a folder with one module, or a .cu file
    report = grade(sub, load_spec(), profile="grading")
    print(formats.render(report, "text"))

``grade`` never raises for anything the submission does; it raises :class:`GraderError` only
when the grader itself cannot run (no such file, kernel grading unavailable, bad options).
"""

from __future__ import annotations

import hashlib
import importlib.util
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from graders.conformance.outcome import Cause
from graders.conformance.registry import (RegistryError, SelectionError, all_checks,
                                          select as select_checks)
from graders.conformance.runner import CheckResult, not_run, run_checks
from spec import Spec

from . import messages as M
from . import scoring
from .proxy import SubmissionProxy
from .sandbox import Limits, choose_mode, prepare

GRADER_VERSION = "1"
SOURCE_SUFFIXES = (".py", ".cu")
MAX_SUBMISSION_BYTES = 5 * 1024 * 1024
PREFERRED_NAMES = ("submission.py", "embedding.py", "solution.py")


class GraderError(Exception):
    """The grader cannot run (as opposed to a submission that fails)."""


@dataclass
class Submission:
    name: str                   # the student's file or folder name
    files: dict[str, bytes]     # relative path -> content
    module: str | None          # the file to import (relative), None if none could be chosen
    kind: str = "python"        # "python" or "kernel"
    problem: str | None = None  # why no module could be chosen (a msgid), with `problem_fields`
    problem_fields: dict | None = None

    @property
    def sha256(self) -> str:
        h = hashlib.sha256()
        for rel in sorted(self.files):
            h.update(rel.encode() + b"\0" + hashlib.sha256(self.files[rel]).digest())
        return h.hexdigest()


def load_submission(path: str | Path) -> Submission:
    """Read a submission: a .py or .cu file, or a folder with one module (helpers allowed)."""
    p = Path(path)
    if not p.exists():
        raise GraderError(f"{path}: no such file or folder")
    if p.is_file():
        if p.suffix not in SOURCE_SUFFIXES:
            raise GraderError(f"{path}: not a .py or .cu file")
        files = {p.name: _read(p)}
        return Submission(p.name, files, p.name, "kernel" if p.suffix == ".cu" else "python")
    files = {}
    total = 0
    for f in sorted(p.rglob("*")):
        rel = f.relative_to(p)
        if any(part.startswith((".", "__pycache__")) for part in rel.parts) or not f.is_file():
            continue
        if f.is_symlink():
            continue
        data = _read(f)
        total += len(data)
        if total > MAX_SUBMISSION_BYTES:
            raise GraderError(f"{path}: larger than {MAX_SUBMISSION_BYTES >> 20} MiB")
        files[rel.as_posix()] = data
    top = [r for r in files if "/" not in r and r.endswith(SOURCE_SUFFIXES)]
    cu = [r for r in top if r.endswith(".cu")]
    py = [r for r in top if r.endswith(".py") and r != "__init__.py"]
    if cu and not py:
        return Submission(p.name, files, cu[0], "kernel")
    if len(py) == 1:
        return Submission(p.name, files, py[0])
    preferred = [n for n in PREFERRED_NAMES if n in py]
    if preferred:
        return Submission(p.name, files, preferred[0])
    if not py:
        return Submission(p.name, files, None, problem=M.NO_MODULE)
    return Submission(p.name, files, None, problem=M.MANY_MODULES,
                      problem_fields={"names": ", ".join(py)})


def _read(f: Path) -> bytes:
    try:
        return f.read_bytes()
    except OSError as exc:
        raise GraderError(f"{f}: cannot read ({exc.strerror})") from None


def contract_functions(spec: Spec) -> list[str]:
    """Every function of the spec's contract, required and optional."""
    return list(spec.contract.names)


def kernel_support() -> tuple[bool, str]:
    try:
        found = importlib.util.find_spec("andrea_gpu.host") is not None
    except (ImportError, ValueError) as exc:
        return False, f"andrea_gpu cannot be imported ({exc})"
    if not found:
        return False, "andrea_gpu.host is not installed"
    return True, ""


def spec_digest(spec: Spec, profile: str) -> str:
    """What a grade depends on besides the submission: spec file, profile, grader version."""
    h = hashlib.sha256(Path(spec.path).read_bytes())
    h.update(f"\0{profile}\0{GRADER_VERSION}".encode())
    return h.hexdigest()


def grade(sub: Submission, spec: Spec, *, profile: str = "grading", limits: Limits | None = None,
          sandbox: str = "auto", select: list[str] | None = None,
          on_result: Callable[[CheckResult], None] | None = None) -> dict:
    """Grade `sub`; the report is a plain dict (see scoring.py)."""
    limits = limits or Limits()
    start = time.monotonic()
    try:
        mode, note = choose_mode(sandbox)
    except RuntimeError as exc:
        raise GraderError(str(exc)) from None
    if sub.kind == "kernel":
        ok, why = kernel_support()
        if not ok:
            raise GraderError(f"kernel grading unavailable: {why}")
    try:
        if sub.kind == "kernel" and spec.kernels is None:
            raise GraderError(f"spec {spec.name} defines no kernel contract ('kernels:')")
        if sub.kind == "kernel" and select is None:  # only what a kernel implements is graded
            select = [c.id for c in spec.clauses if c.group in spec.kernels.groups]
        checks = select_checks(all_checks(spec), select)
    except (RegistryError, SelectionError) as exc:
        raise GraderError(str(exc)) from None
    meta = {
        "submission": sub.name, "sha256": sub.sha256, "module": sub.module, "kind": sub.kind,
        "spec": spec.name, "spec_sha256": spec_digest(spec, profile), "profile": profile,
        "grader_version": GRADER_VERSION,
        "isolation": {"mode": mode, "note": note},
        "sections": {k: dict(v) for k, v in spec.sections.items()},
    }
    output, restarts, faults = "", 0, []
    if sub.module is None:
        imp = {"ok": False, "problem": sub.problem, "fields": sub.problem_fields or {}}
        results = [_not_run(c) for c in checks]
    else:
        scratch = prepare(sub.files, sub.module, kernel=sub.kind == "kernel",
                          kernel_contract=spec.raw.get("kernels"))
        proxy = SubmissionProxy(scratch, limits, mode, contract_functions(spec))
        try:
            outcome = proxy.start()
            if outcome.ok:
                imp = {"ok": True, "functions": outcome.functions}

                def progress(res: CheckResult) -> None:
                    proxy.begin_check()
                    if on_result is not None:
                        on_result(res)

                proxy.begin_check()
                results = run_checks(proxy, spec, profile=profile, select=select,
                                     target=sub.module, on_result=progress)
            else:
                err = outcome.error or {}
                if sub.kind == "kernel" and err.get("type") == "NvrtcUnavailable":
                    raise GraderError(f"kernel grading unavailable: {err.get('msg', '')}")
                kind = outcome.fault.kind if outcome.fault is not None else "import"
                imp = {"ok": False, "kind": kind, "error": outcome.error,
                       "fault": str(outcome.fault) if outcome.fault is not None else None}
                results = [_not_run(c) for c in checks]
                for r in results:
                    if on_result is not None:
                        on_result(r)
        finally:
            proxy.close()
            output = proxy.output.text()
            restarts, faults = proxy.restarts, list(proxy.faults)
            scratch.cleanup()
    meta.update({"import": imp, "submission_output": output, "restarts": restarts,
                 "faults": faults[:20]})
    rep = scoring.build(spec, results, meta=meta)
    rep["execution_time"] = round(time.monotonic() - start, 3)
    return rep


def _not_run(check) -> CheckResult:
    """A check that could not start because the submission did not import (said once, above)."""
    return not_run(check, Cause.IMPORT_ERROR, M.NOT_RUN_IMPORT)


def import_detail(imp: dict, t=None) -> str:
    """Why the import failed, in the translator's language (English without one)."""
    t = t or (lambda msgid, **kw: msgid.format(**kw) if kw else msgid)
    if imp.get("problem"):
        return t(imp["problem"], **(imp.get("fields") or {}))
    if imp.get("fault"):
        return imp["fault"]
    err = imp.get("error") or {}
    typ, msg, line = err.get("type", "Error"), err.get("msg", ""), err.get("line")
    text = (t(M.IMPORT_ERROR_AT, type=typ, line=line, msg=msg) if line
            else t(M.IMPORT_ERROR, type=typ, msg=msg))
    if err.get("text"):
        text += "\n    " + str(err["text"]).strip()
    return text
