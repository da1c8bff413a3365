"""Grade one submission: find its module, run every check through an isolated worker, score.

    sub = load_submission("alice.py")                  # or a folder with one module, or a .cu file
    report = grade(sub, load_spec(), profile="grading")   # a report.Report
    print(formats.render(report, "text"))

``grade`` never raises for anything the submission does; it raises :class:`GraderError` only
when the grader itself cannot run (no such file, kernel grading unavailable, bad options).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import time
from pathlib import Path
from typing import Callable

from graders.conformance.notes import raised_cell
from graders.conformance.outcome import Cause, FaultKind, Status
from graders.conformance.profiles import check_profile
from graders.conformance.registry import (RegistryError, SelectionError, all_checks,
                                          select as select_checks)
from graders.conformance.sources import cell_at
from graders.conformance.runner import (CheckResult, calls_shown_later, load_impl, not_run,
                                        run_check, run_checks, visibility_rank)
# the submission model (and, for the modules that import them from here, its names and caps)
from graders.conformance.submission import (MAX_FOLDER_ENTRIES, MAX_PATH_CHARS,  # noqa: F401
                                            MAX_SUBMISSION_BYTES, NOTEBOOK_MODULE, Submission,
                                            SubmissionError, printable_name, read_submission)
from spec import Spec

from . import messages as M
from . import scoring
from .session import Session
from .similarity import python_parts, reference_flags
from .report import Report
from .tamper import tamper_flags
from .sandbox import IN_SANDBOX, Limits, SandboxError, choose_mode

GRADER_VERSION = "1"
MAX_MESSAGE_CHARS = 2000        # a check's message and its smallest input, each
MAX_REPRODUCER_CHARS = 8000     # a check's reproducer snippet
REFERENCE = "andrea_ref"


class GraderError(Exception):
    """The grader cannot run (as opposed to a submission that fails)."""


def load_submission(path: str | Path) -> Submission:
    """Read a submission: a .py, .ipynb or .cu file, or a folder with one module or notebook
    (helper modules allowed), as the self-check reads it (graders.conformance.submission);
    GraderError when `path` cannot be read as one."""
    try:
        return read_submission(path)
    except SubmissionError as exc:
        raise GraderError(str(exc)) from None


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


def spec_digest(spec: Spec, profile: str, select=None) -> str:
    """What a grade depends on besides the submission: spec file, profile, grader version, and
    the checks asked for with `--select` (a batch run with `--select vector_norm` to debug kept
    15 / 15 in the gradebook, and the next full run skipped the submission as graded)."""
    h = hashlib.sha256(Path(spec.path).read_bytes())
    h.update(f"\0{profile}\0{GRADER_VERSION}".encode())
    if select:
        h.update(("\0select\0" + "\0".join(sorted(str(s) for s in select))).encode())
    return h.hexdigest()


#: A call into a kernel submission runs on the CPU executor (fibers, guard pages, the race
#: checker, two schedules) unless a GPU exists: it gets this many times the per-call limit,
#: within the per-check and total limits, which stay as they are.
KERNEL_CALL_FACTOR = 4
#: Starting a kernel submission's worker compiles it twice (NVRTC, then g++ with the race
#: checker's instrumentation): twice the start-up limit.
KERNEL_STARTUP_FACTOR = 2


def kernel_limits(limits: Limits) -> Limits:
    """The limits of a kernel submission (see KERNEL_CALL_FACTOR, KERNEL_STARTUP_FACTOR)."""
    import dataclasses

    return dataclasses.replace(
        limits, call_timeout=min(limits.call_timeout * KERNEL_CALL_FACTOR, limits.check_timeout),
        startup_timeout=min(limits.startup_timeout * KERNEL_STARTUP_FACTOR, limits.total_timeout))


def _kernel_hints(results: list[CheckResult], imp: dict | None = None) -> None:
    """Hints of a kernel submission speak of kernels, not Python loops or imports (and of the
    checker's gap where the executor could not build a kernel that compiles for the GPU)."""
    for r in results:
        fault = FaultKind.of((r.details or {}).get("fault"))
        if r.cause == Cause.FAULT and fault == FaultKind.TIMEOUT:
            r.hint = r.hint or M.HINT_TIMEOUT_KERNEL
        elif r.cause == Cause.IMPORT_ERROR:
            error = (imp or {}).get("error")
            r.hint = r.hint or M.import_hint(
                error.get("type") if isinstance(error, dict) else None, True,
                error.get("msg") if isinstance(error, dict) else None)


def grade(sub: Submission, spec: Spec, *, profile: str = "grading", limits: Limits | None = None,
          sandbox: str = "auto", select: list[str] | None = None,
          on_result: Callable[[CheckResult], None] | None = None,
          started: float | None = None) -> Report:
    """Grade `sub`; the report is typed (report.py). `started`: the
    time.monotonic() the grading began (before the submission was read), for the report's
    execution_time; by default, now."""
    limits = limits or Limits()
    start = time.monotonic() if started is None else started
    check_profile(profile)             # the caller's mistakes first, then isolation
    _require_kernel_support(sub, spec)
    if sub.kind == "kernel":
        limits = kernel_limits(limits)
    early = _launch_early(sub, spec, sandbox, limits)
    asked = select
    try:
        checks, select = _checks_for(sub, spec, select)
        mode, note = _isolation(sandbox, spec)
    except BaseException:
        _discard(early)
        raise
    meta = {
        "submission": sub.name, "sha256": sub.sha256, "module": sub.module, "kind": sub.kind,
        "spec": spec.name, "spec_sha256": spec_digest(spec, profile, asked), "profile": profile,
        "grader_version": GRADER_VERSION,
        "isolation": {"mode": mode, "note": note},
        "sections": {k: dict(v) for k, v in spec.sections.items()},
        "notebook": ({"origin": sub.source["origin"], "dropped": sub.source["dropped"],
                      "dropped_total": sub.source.get("dropped_total",
                                                      len(sub.source["dropped"]))}
                     if sub.source else None),
    }
    if sub.module is None:
        run = {"import": {"ok": False, "problem": sub.problem,
                          "fields": sub.problem_fields or {}},
               "results": [_not_run(c) for c in checks]}
    else:
        session = early or Session(mode=mode, **_worker_of(sub, spec, limits))
        run = _run_submission(sub, spec, checks, session, profile, select, on_result)
        if session.mode != "bwrap" and session.scratch is not None:
            run = _named_as_in_the_sandbox(run, session.scratch.root)
    results = [_bounded(r) for r in run.pop("results")]
    if sub.kind == "kernel":
        _kernel_hints(results, run.get("import"))
    meta.update(run)
    meta["not_run"] = [r.check_id for r in results if r.cause == Cause.BUDGET]
    rep = {**meta, **scoring.build(spec, results).to_dict()}
    rep["flags"] = staff_flags(sub)
    rep["execution_time"] = round(time.monotonic() - start, 3)
    # the typed report, read from its JSON form: Report.from_dict is the one place where the
    # submission's words become inert, before anything reads the report (gradebook, every
    # format, feedback files, the batch's reports)
    return Report.from_dict(rep)


def staff_flags(sub: Submission) -> list[dict]:
    """The flags for the staff (never a score, never the student's): a copy of the reference
    (similarity.reference_flags), places that reach into the grader (tamper.tamper_flags)."""
    if sub.kind != "python" or not sub.module:
        return []
    parts = python_parts(sub.files, sub.module, sub.entry)
    notebook = ((NOTEBOOK_MODULE, sub.source.get("origin"), sub.source.get("line_map") or [])
                if sub.source else None)
    # the tamper scan reads the other notebooks cell by cell itself (places by cell)
    return reference_flags(parts) + tamper_flags(
        [p for p in parts if not p[0].endswith(".ipynb")], sub.files, notebook)


def _cell_of(source: dict, line) -> dict:
    """{"cell": N, "line": L} of a line of a notebook's generated module ({} if unknown), as
    the self-check locates it (sources.cell_at)."""
    at = cell_at(source.get("line_map") or [], line)
    return {"cell": at[0], "line": at[1]} if at else {}


def _cells_raised(source: dict, cells: list[dict]) -> list[dict]:
    """{"cell", "line", "type", "msg"} of each notebook cell that raised (its line: where in
    that cell, None when unknown); the cells after it were run. The self-check records them
    the same way (notes.raised_cell), so both say the same notes."""
    line_map = source.get("line_map") or []

    def locate(line):
        return cell_at(line_map, line)

    raised = (raised_cell(locate, c["first"], c["line"], c["type"], c["msg"])
              for c in cells)   # at most 50 (proxy)
    return [c for c in raised if c]


def _not_run(check) -> CheckResult:
    """A check that could not start because the submission did not import (said once, above)."""
    return not_run(check, Cause.IMPORT_ERROR, M.NOT_RUN_IMPORT)


def require_isolation(sandbox: str, profile: str | None = None) -> None:
    """Refuse (GraderError) before anything of a submission is read: an unknown profile, then
    a sandbox mode that cannot isolate (fail closed: bubblewrap missing or refused)."""
    if profile is not None:
        check_profile(profile)
    _isolation(sandbox)


def _isolation(sandbox: str, spec: Spec | None = None) -> tuple[str, str]:
    """The sandbox mode, or the grader's refusal to run untrusted code (fail closed). In
    container mode the spec's file is one of the grader's files the worker may not read."""
    try:
        return choose_mode(sandbox, protect=[spec.path] if spec is not None else [])
    except RuntimeError as exc:
        raise GraderError(str(exc)) from None


def _require_kernel_support(sub: Submission, spec: Spec) -> None:
    if sub.kind != "kernel":
        return
    ok, why = kernel_support()
    if not ok:
        raise GraderError(f"kernel grading unavailable: {why}")
    if spec.kernels is None:
        raise GraderError(f"spec {spec.name} defines no kernel contract ('kernels:')")


def _checks_for(sub: Submission, spec: Spec, select):
    """The checks to run (a kernel is graded on what a kernel implements) and the selection."""
    try:
        every = all_checks(spec)
        if sub.kind == "kernel" and select is None:
            select = [c.id for c in spec.clauses if c.group in spec.kernels.groups]
        chosen = select_checks(every, select)
    except (RegistryError, SelectionError) as exc:
        raise GraderError(str(exc)) from None
    require_consistent_visibility(spec)
    return chosen, select


def require_consistent_visibility(spec: Spec) -> None:
    """Refuse (GraderError) a spec whose groups' visibility would let a verdict students see
    tell about a group they see later: a check that calls a function of such a group
    (``runner.calls_shown_later``)."""
    try:
        later = calls_shown_later(all_checks(spec), spec)
    except RegistryError as exc:
        raise GraderError(str(exc)) from None
    if later:
        check, function = later[0]
        raise GraderError(
            f"spec {spec.name}: check {check.id} ({', '.join(check.clauses)}) calls {function}, "
            "whose group students see later than the check's own group: its result would "
            "tell them about that group before it is shown; give the two groups the same "
            "visibility in the spec's groups")


def _worker_of(sub: Submission, spec: Spec, limits: Limits) -> dict:
    """What a worker session of `sub` is made of (Session's arguments but the mode)."""
    return dict(files=sub.files, module=sub.module, functions=contract_functions(spec),
                limits=limits, kernel=sub.kind == "kernel",
                kernel_contract=spec.raw.get("kernels"),
                cells=(sub.source or {}).get("cells", ""))


def _launch_early(sub, spec, sandbox, limits) -> Session | None:
    """The submission's session with its worker already starting, so that Python, NumPy and
    the submission's import run while this process loads the checks (Session.launch_early);
    None where the submission has no module or the start fails (it then happens in its
    place)."""
    if sub.module is None:
        return None
    return Session.launch_early(sandbox, **_worker_of(sub, spec, limits))


def _discard(session: Session | None) -> None:
    """Stop an early worker that will not be used, and remove its scratch folder."""
    if session is None:
        return
    try:
        session.close()
    except SandboxError as exc:
        raise GraderError(f"the grader's sandbox failed ({exc})") from None


def _run_submission(sub, spec, checks, session: Session, profile, select, on_result) -> dict:
    """Import the submission in its worker and run the checks through the proxy."""
    try:
        session.prepare()
    except OSError as exc:
        raise GraderError(f"{sub.name}: the grader could not prepare its scratch folder "
                          f"({exc.strerror or type(exc).__name__})") from None
    except SandboxError as exc:
        raise GraderError(f"{sub.name}: the grader's sandbox failed ({exc}); this is not the "
                          "submission's fault") from None

    def body(proxy, outcome) -> dict:
        run: dict = {}
        if outcome.ok:
            run["import"] = {"ok": True, "functions": outcome.functions}
            if outcome.cells:
                run["import"]["cells"] = _cells_raised(sub.source or {}, outcome.cells)
            run["results"] = _run_checks(proxy, spec, profile, select, sub.target, on_result)
        else:
            run["import"], run["results"] = _import_failed(sub, outcome, checks, on_result)
        return run

    try:
        return session.run(body)
    except SandboxError as exc:
        raise GraderError(f"{sub.name}: the grader's sandbox failed ({exc}); this is not the "
                          "submission's fault, grade it again") from None


def _run_checks(proxy, spec, profile, select, target, on_result) -> list[CheckResult]:
    """Run the checks; one that errored because the budget refused its calls did not run.

    The checks run by visibility (``in_run_order``): every visible check before any check
    shown after the due date or hidden, so what students see before publication (the visible
    checks' verdicts, what the submission printed, the worker restarts) is complete before a
    hidden check makes its first call and cannot depend on one: the proxy's visible part ends
    when the first of them starts (or with the last check)."""

    def starting(check) -> None:
        if visibility_rank(check, spec) > 0:
            proxy.end_visible_part()
        proxy.begin_check()

    def progress(res: CheckResult) -> None:
        if res.status == Status.ERROR and proxy.budget_refused:
            res = _left_out(res, proxy)
        elif res.cause == Cause.CHECK_BUG:
            res = _confirm_check_bug(res, spec)
        results.append(res)
        if on_result is not None:
            on_result(res)

    results: list[CheckResult] = []
    reported = run_checks(proxy, spec, profile=profile, select=select, target=target,
                          on_start=starting, on_result=progress)
    proxy.end_visible_part()
    order = {r.check_id: i for i, r in enumerate(reported)}   # reporting order
    return sorted(results, key=lambda r: order[r.check_id])


def _confirm_check_bug(res: CheckResult, spec: Spec) -> CheckResult:
    """A check that broke earns its points only when it breaks on the reference too.

    A broken check is the grader's fault and costs nothing; but a submission can break a check
    on purpose with a value no check expects (an int too large for a float, an array of the
    wrong rank) and collect the points. So the check runs again, in this process, on the
    reference (the same profile, so the same inputs): if the reference passes or fails it
    normally, the break came from the submission's value, and the check failed.
    """
    try:
        check = {c.id: c for c in all_checks(spec)}[res.check_id]
        ref = run_check(check, _reference(), spec, target=REFERENCE)
    except Exception:  # noqa: BLE001 - cannot confirm: the submission gets no points for it
        ref = None
    if ref is not None and ref.cause == Cause.CHECK_BUG:
        return res                      # the check is broken for everyone: the grader's bug
    out = CheckResult(res.check_id, res.clauses, Status.FAILED, cause=Cause.WRONG_VALUE)
    out.set_message(M.CHECK_BROKE_ON_RESULT, exception=res.fields.get("exception", "Exception"),
                    error=res.fields.get("error", ""))
    out.duration_s = res.duration_s
    return out


def _reference():
    global _REFERENCE_IMPL
    if _REFERENCE_IMPL is None:
        _REFERENCE_IMPL = load_impl(REFERENCE)
    return _REFERENCE_IMPL


_REFERENCE_IMPL = None


def _left_out(res: CheckResult, proxy) -> CheckResult:
    out = CheckResult(res.check_id, res.clauses, Status.NOT_RUN, cause=Cause.BUDGET)
    out.set_message(M.NOT_RUN_BUDGET, seconds=f"{proxy.budget_seconds:g}")
    return out


def _nvrtc_loads() -> bool:
    """Whether NVRTC loads in the grader. The worker's word that it does not is the word of
    the submission's process (a kernel's static constructor can forge it, to be reported as
    the grader's failure instead of graded): believed only when the grader cannot load it
    either."""
    try:
        from andrea_gpu import nvrtc

        nvrtc.version()
        return True
    except Exception:  # noqa: BLE001 - NvrtcUnavailable, or andrea_gpu missing
        return False


def _import_failed(sub, outcome, checks, on_result) -> tuple[dict, list[CheckResult]]:
    err = outcome.error or {}
    if sub.kind == "kernel" and err.get("type") == "NvrtcUnavailable" and not _nvrtc_loads():
        raise GraderError(f"kernel grading unavailable: {err.get('msg', '')}")
    kind = outcome.fault.kind if outcome.fault is not None else "import"
    if isinstance(outcome.error, dict) and isinstance(outcome.error.get("msg"), str):
        outcome.error["msg"] = sandbox_paths_left_out(outcome.error["msg"])
    if sub.source and isinstance(outcome.error, dict):
        outcome.error.update(_cell_of(sub.source, outcome.error.get("line")))
    imp = {"ok": False, "kind": kind, "error": outcome.error,
           "fault": str(outcome.fault) if outcome.fault is not None else None,
           "fault_detail": (outcome.fault.translatable()
                            if outcome.fault is not None else None)}
    results = [_not_run(c) for c in checks]
    for r in results:
        if on_result is not None:
            on_result(r)
    return imp, results


def sandbox_paths_left_out(text: str) -> str:
    """`text` without the sandbox's folders of the submission's files: the worker runs the
    entry from its copy in /sandbox/work/submission/ (a read beside a notebook that failed said
    "No such file or directory: '/sandbox/work/submission/scale.txt'"), the grader's copy is
    /sandbox/submission/; students read "scale.txt", as in andrea-conform's paths of their own
    folder, and nothing of the tool."""
    from andrea_runtime.worker import FILES_COPY

    from .sandbox import IN_SANDBOX

    return text.replace(f"{IN_SANDBOX}/work/{FILES_COPY}/", "").replace(
        f"{IN_SANDBOX}/submission/", "")


def _named_as_in_the_sandbox(run, root: Path):
    """What the worker said (its output, the messages of its exceptions and faults, in the
    results and the import's outcome), with the host's paths of the scratch folder written as
    bubblewrap names them: ``<root>/work-N/`` as /sandbox/work/, ``<root>/`` as /sandbox/.
    With ``--sandbox container`` and ``none`` the worker runs in a folder of the host
    (``/dev/shm/u7u1qggw/work-0/submission``): a warning's "/dev/shm/u7u1qggw/submission/hw.py:4:"
    and a failed open's path reached the student, the scratch folder and the tool's layout;
    named so, every mode's texts are those of bubblewrap, whose folders
    sandbox_paths_left_out leaves out of what students read (sixth red-team round)."""
    import dataclasses
    import re

    names = sorted({str(root).rstrip("/"), os.path.realpath(root).rstrip("/")}, key=len,
                   reverse=True)
    pattern = re.compile("(?:" + "|".join(re.escape(n) for n in names) + r")(/work-\d+)?(?![\w.-])")

    def plain(text: str) -> str:
        if not any(n in text for n in names):
            return text
        return pattern.sub(lambda m: f"{IN_SANDBOX}/work" if m.group(1) else IN_SANDBOX, text)

    def walk(value):
        if isinstance(value, str):
            return plain(value)
        if isinstance(value, dict):
            return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(walk(v) for v in value)
        if isinstance(value, CheckResult):
            return dataclasses.replace(value, **{
                f: walk(getattr(value, f)) for f in ("message", "example", "reproducer",
                                                     "hint", "fields", "details")})
        return value

    return walk(run)


def _bounded(res: CheckResult) -> CheckResult:
    """Every text of a result cut to a stated size, whatever the submission made it say, and
    without the sandbox's folders (sandbox_paths_left_out)."""
    plain = sandbox_paths_left_out
    res.message = clip(plain(res.message or ""), MAX_MESSAGE_CHARS)
    res.fields = {k: clip(plain(v), MAX_MESSAGE_CHARS) if isinstance(v, str) else v
                  for k, v in res.fields.items()}
    res.details = {k: clip(plain(v), MAX_MESSAGE_CHARS) if isinstance(v, str) else v
                   for k, v in res.details.items()}
    if res.example is not None:
        res.example = clip(res.example, MAX_MESSAGE_CHARS)
    if res.reproducer is not None:
        res.reproducer = clip(res.reproducer, MAX_REPRODUCER_CHARS)
    return res


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    text = str(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit} more characters not shown)"
