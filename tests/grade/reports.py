"""Grade reports built in a test as ``grading.grade`` builds them, without a worker.

    report = report_of(spec, [CheckResult(...), ...], name="hw.py")   # a report.Report
    data = assemble(spec, results, ...)                                # its JSON form

``assemble`` gives the dict ``grade()`` assembles (its metadata, the import's outcome, what the
worker left behind, ``scoring.build`` of the results, flags, the time taken; made inert at the
end, as ``grade()`` does); ``report_of`` reads it as ``grade()`` does (``Report.from_dict``).
"""

from __future__ import annotations

import hashlib

from graders.conformance.outcome import Cause
from graders.grade import scoring
from graders.grade.formats import inert_report
from graders.grade.report import Report

SPEC_SHA = "5" * 64
FUNCTIONS = ["cosine_similarity", "dot", "embed", "init_table", "lookup", "norm"]


def assemble(spec, results, *, name="hw.py", module="hw.py", kind="python", imp=None,
             worker=True, output="", visible_output=None, restarts=0, visible_restarts=None,
             notebook=None, flags=(), faults=(), mode="bwrap", seconds=3.25,
             sha=None) -> dict:
    """A report assembled as grading.grade assembles it (the same keys, in its order):
    `imp` the import's outcome (default: imported), `worker` whether a worker ran (its
    output and restarts, all and those students may see), `sha` the content hash (default:
    the name's)."""
    meta = {
        "submission": name, "sha256": sha or hashlib.sha256(name.encode()).hexdigest(),
        "module": module, "kind": kind,
        "spec": spec.name, "spec_sha256": SPEC_SHA, "profile": "grading",
        "grader_version": "1", "isolation": {"mode": mode, "note": ""},
        "sections": {k: dict(v) for k, v in spec.sections.items()},
        "notebook": notebook,
    }
    run = {"import": imp if imp is not None else {"ok": True, "functions": FUNCTIONS}}
    if worker:
        run.update(submission_output=output, restarts=restarts,
                   visible_output=output if visible_output is None else visible_output,
                   visible_restarts=restarts if visible_restarts is None else visible_restarts,
                   worker_cpu_s=1.234, faults=list(faults))
    meta.update(run)
    meta["not_run"] = [r.check_id for r in results if r.cause == Cause.BUDGET]
    rep = {**meta, **scoring.build(spec, results).to_dict()}
    rep["flags"] = list(flags)
    rep["execution_time"] = seconds
    return inert_report(rep)


def report_of(spec, results, **kwargs) -> Report:
    """The typed report of `results` (see assemble for the keyword arguments)."""
    return Report.from_dict(assemble(spec, results, **kwargs))
