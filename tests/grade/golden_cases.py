"""A varied set of grade reports, and everything a user reads of them: the golden outputs.

``cases(spec)`` builds reports as ``grading.grade`` assembles them (its metadata, the import's
outcome, what the worker left behind, ``scoring.build`` on typed check results, copy flags,
the time taken; made inert at the end), without running a worker: a correct submission, a
buggy one (every cause), a syntax error, a folder without one module, a hang at import, a
notebook with dropped lines and raising cells, a kernel with an executor finding, a kernel
that does not compile, hidden and after-the-due-date groups, a used-up budget, a copy flag and a tamper flag.

``outputs(spec, folder)`` renders them in every format and language, as the commands write
them (text, json, junit, gradescope; Markdown and HTML feedback; the batch's gradebook row,
CSV, summary.txt, summary.html and similarity.html through a real SQLite gradebook), and
returns {file name: text}. ``tests/grade/make_golden.py`` writes them under
``tests/grade/golden/``; ``tests/grade/test_golden_reports.py`` renders them again and
compares, so nothing a user sees changes unnoticed.
"""

from __future__ import annotations

import copy
from pathlib import Path

from andrea_gpu.executor import findings
from graders.conformance import hints
from graders.conformance.faults import CallTimeout, WorkerCrashed
from graders.conformance.registry import all_checks
from graders.conformance.runner import CheckResult, _fault, not_run
from graders.conformance.outcome import Cause, Status
from graders.grade import messages as M
from graders.grade import scoring
from graders.grade.tamper import tamper_flags
from tests.grade.reports import SPEC_SHA, assemble

LANGS = ("en", "nl", "ko")
FORMATS = ("text", "json", "junit", "gradescope")

WRONG = ("{name}[{index}]={got!r}, but should be {want!r} (|error| {error:.3g} > allowed "
         "{allowed:.3g}; {bad} of {size} elements off)")

# the checks each case grades: a few per rubric group keeps the outputs small
VISIBLE = ("PAR-TOKEN-01", "EMB-LOOKUP-01", "EMB-LOOKUP-02", "EMB-ERR-01", "EMB-COMB-01",
           "INIT-SHAPE-01", "VEC-DOT-01", "VEC-NORM-01", "VEC-COS-01")
WITH_HIDDEN = VISIBLE + ("BWD-TOK-01", "BWD-SHAPE-01", "POS-SIN-01")


def _checks(spec, clause_ids):
    """The registered checks of these clauses, in the registry's order."""
    want = set(clause_ids)
    return [c for c in all_checks(spec) if want & set(c.clauses)]


def _passed(c, seconds: float = 0.25) -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.PASSED)
    r.duration_s = seconds
    return r


def _wrong(c, name="out", got=1.0, want=2.0) -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.FAILED, cause=Cause.WRONG_VALUE,
                    example="lookup(table=np.array([[1.0, 2.0]], dtype=np.float32), "
                            "token_ids=np.array([0, 0]))",
                    reproducer="import numpy as np\nimport hw\n\nprint(hw.lookup("
                               "np.array([[1.0, 2.0]], dtype=np.float32), np.array([0, 0])))\n"
                               "# or: andrea-conform hw.py --select " + c.id,
                    hint=hints.REPEATED_IDS)
    r.set_message(WRONG, name=name, index="0, 1", got=got, want=want, error=1.0,
                  allowed=1e-6, bad=3, size=1536)
    r.duration_s = 1.5
    return r


def _raised(c, function="lookup", exception="IndexError",
            error="index 8449 is out of bounds for axis 0 with size 8449") -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.FAILED, cause=Cause.RAISED,
                    example=f"{function}(table=np.zeros((3, 2)), token_ids=np.array([3]))",
                    hint=hints.RAISED)
    r.set_message("{function}() raised {exception}: {error}", function=function,
                  exception=exception, error=error)
    r.details.update(function=function, exception=exception)
    return r


def _missing(c, function) -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.FAILED, cause=Cause.MISSING_FUNCTION)
    r.set_message("function {function} is missing", function=function)
    r.details["function"] = function
    r.hint = scoring.grade_hint(r)
    return r


def _skipped(c, function, cause=Cause.OPTIONAL_ABSENT) -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.SKIPPED, cause=cause)
    r.set_message("optional function {function} is not provided", function=function)
    r.details["function"] = function
    return r


def _faulted(c, exc, hint=None) -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.PASSED)
    _fault(r, exc)
    r.example = "dot(u=np.ones(3), v=np.ones(3))"
    r.duration_s = 10.0
    r.hint = hint
    return r


def _check_bug(c) -> CheckResult:
    r = CheckResult(c.id, c.clauses, Status.ERROR, cause=Cause.CHECK_BUG)
    r.set_message("internal error in check {check}: {exception}: {error}", check=c.id,
                  exception="ZeroDivisionError", error="division by zero")
    return r


def _kernel_finding(c) -> CheckResult:
    said = {"msgid": findings.MSG_OOB_ACCESS,
            "fields": {"kernel": "andrea_lookup", "argument": {
                "msgid": findings.MSG_ARGUMENT, "fields": {"index": 0, "name": "table"}},
                "offset": 4096, "nbytes": 4096, "thread": {
                    "msgid": findings.MSG_THREAD,
                    "fields": {"bx": 1, "by": 0, "bz": 0, "tx": 3, "ty": 0, "tz": 0}}}}
    r = CheckResult(c.id, c.clauses, Status.FAILED, cause=Cause.RAISED, hint=hints.RAISED,
                    example="lookup(table=np.zeros((2, 4), dtype=np.float32), "
                            "token_ids=np.array([1], dtype=np.int32))")
    r.set_message("{function}() raised {exception}: {error}", function="lookup",
                  exception="KernelError", error="kernel andrea_lookup: out-of-bounds access")
    r.fields["error_said"] = said
    r.details.update(function="lookup", exception="KernelError")
    return r


def _budget(c, seconds="120") -> CheckResult:
    return not_run(c, Cause.BUDGET, M.NOT_RUN_BUDGET, seconds=seconds)


def _import_not_run(c) -> CheckResult:
    return not_run(c, Cause.IMPORT_ERROR, M.NOT_RUN_IMPORT)


def _hidden_spec(spec):
    """The spec with its vectors group shown only after the due date, and the backward group
    hidden (points and all)."""
    hidden = copy.copy(spec)
    groups = {g: dict(info) for g, info in spec.groups.items()}
    groups["backward"]["visibility"] = "hidden"
    groups["vectors"]["visibility"] = "after_due_date"
    object.__setattr__(hidden, "groups", groups)
    return hidden


def cases(spec) -> dict[str, tuple[object, dict]]:
    """name -> (the spec it was graded against, the report as grade() returns it)."""
    out = {}
    checks = _checks(spec, VISIBLE)
    ok_import = {"ok": True, "functions": ["cosine_similarity", "dot", "embed",
                                           "init_table", "lookup", "norm"]}

    out["correct"] = (spec, assemble(
        spec, [_passed(c) for c in checks], name="alice.py", module="alice.py",
        imp=ok_import))

    res = []
    for c in checks:
        first = c.clauses[0]
        if first == "EMB-LOOKUP-01":
            res.append(_wrong(c, name="out\x1b[2J", got=1.0, want=2.0))
        elif first == "EMB-LOOKUP-02":
            res.append(_raised(c))
        elif first == "EMB-ERR-01":
            r = CheckResult(c.id, c.clauses, Status.FAILED, cause=Cause.WRONG_EXCEPTION,
                            example="lookup(table=np.zeros((3, 2)), token_ids=np.array([-1]))",
                            hint=hints.WRAP_AROUND)
            r.set_message("{function}() raised {got}({error!r}), but should raise {want}",
                          function="lookup", got="ValueError", error="bad id", want="IndexError")
            res.append(r)
        elif first == "EMB-COMB-01":
            res.append(_missing(c, "embed"))
        elif first == "INIT-SHAPE-01":
            res.append(_check_bug(c))
        elif first == "VEC-DOT-01":
            res.append(_faulted(c, CallTimeout.said(M.FAULT_TIMEOUT, function="dot",
                                                    what="dot()", seconds=10),
                                hint=M.HINT_TIMEOUT))
        elif first == "VEC-COS-01":
            res.append(_skipped(c, "cosine_similarity", Cause.MISSING_ELSEWHERE))
        else:
            res.append(_passed(c))
    out["buggy"] = (spec, assemble(
        spec, res, name="bob \u202egnp.py", module="bob.py", imp=ok_import,
        output="/sandbox/submission/bob.py:21: RuntimeWarning: overflow\nstep 1\n",
        restarts=1, faults=["dot(): did not finish within 10 s"]))

    out["syntax_error"] = (spec, assemble(
        spec, [_import_not_run(c) for c in checks], name="carol.py", module="carol.py",
        imp={"ok": False, "kind": "import",
             "error": {"type": "SyntaxError", "msg": "invalid syntax", "line": 8,
                       "text": "def lookup(table, token_ids:"},
             "fault": None, "fault_detail": None},
        output="", seconds=0.5))

    out["no_module"] = (spec, assemble(
        spec, [_import_not_run(c) for c in checks], name="dave", module=None,
        imp={"ok": False, "problem": M.MANY_MODULES, "fields": {"names": "a.py, b.py"}},
        worker=False, seconds=0.01))

    hang = CallTimeout.said(M.FAULT_TIMEOUT, what=M.WHAT_IMPORT, seconds=20)
    out["import_timeout"] = (spec, assemble(
        spec, [_import_not_run(c) for c in checks], name="erin.py", module="erin.py",
        imp={"ok": False, "kind": "timeout", "error": None, "fault": str(hang),
             "fault_detail": hang.translatable()},
        output="loading...\n", seconds=20.5))

    nb_checks = _checks(spec, VISIBLE)
    nb_res = [(_missing(c, "norm") if c.clauses[0] == "VEC-NORM-01" else _passed(c))
              for c in nb_checks]
    out["notebook"] = (spec, assemble(
        spec, nb_res, name="frank.ipynb", module="notebook_submission.py",
        imp={"ok": True, "functions": ["dot", "lookup"],
             "cells": [{"cell": 4, "line": 3, "type": "NameError",
                        "msg": "name 'np' is not defined"},
                       {"cell": 7, "line": None, "type": "ZeroDivisionError",
                        "msg": "division by zero"}]},
        notebook={"origin": "frank.ipynb",
                  "dropped": [{"cell": 2, "line": 1, "kind": "magic",
                               "text": "%matplotlib inline"},
                              {"cell": 3, "line": 5, "kind": "shell",
                               "text": "!pip install tqdm"}],
                  "dropped_total": 3}))

    kernel_checks = [c for c in checks if c.clauses[0].startswith("EMB-")]
    k_res = []
    for c in kernel_checks:
        if c.clauses[0] == "EMB-LOOKUP-01":
            k_res.append(_kernel_finding(c))
        elif c.clauses[0] == "EMB-COMB-01":
            k_res.append(_faulted(c, WorkerCrashed.said(M.FAULT_SIGNAL, function="embed",
                                                        what="embed()", signal=M.SIGNAL_SEGV),
                                  hint=M.HINT_CRASH))
        else:
            k_res.append(_passed(c))
    out["kernel"] = (spec, assemble(
        spec, k_res, name="embed.cu", module="embed.cu", kind="kernel",
        imp={"ok": True, "functions": ["embed", "lookup"]}))

    refused = [{"msgid": findings.MSG_REFUSED_LINE,
                "fields": {"file": "embed.cu", "line": 2, "problem": {
                    "msgid": findings.MSG_FORBIDDEN_DIRECTIVE,
                    "fields": {"directive": "pragma"}}}}]
    out["kernel_refused"] = (spec, assemble(
        spec, [_import_not_run(c) for c in kernel_checks], name="gina.cu", module="gina.cu",
        kind="kernel",
        imp={"ok": False, "kind": "import",
             "error": {"type": "CompileError", "msg": "embed.cu:2: #include <fstream>",
                       "said": refused},
             "fault": None, "fault_detail": None}))

    hidden_spec = _hidden_spec(spec)
    h_checks = _checks(hidden_spec, WITH_HIDDEN)
    h_res = []
    for c in h_checks:
        if c.clauses[0] == "BWD-TOK-01":
            h_res.append(_wrong(c, name="grad_token"))
        elif c.clauses[0] == "VEC-NORM-01":
            h_res.append(_raised(c, function="norm", exception="ValueError", error="bad"))
        elif c.clauses[0] == "POS-SIN-01":
            h_res.append(_skipped(c, "sinusoidal_positions"))
        else:
            h_res.append(_passed(c))
    out["hidden"] = (hidden_spec, assemble(
        hidden_spec, h_res, name="hana.py", module="hana.py", imp=ok_import,
        output="visible print\nhidden print\n", visible_output="visible print\n",
        restarts=2, visible_restarts=0))

    b_res = []
    for i, c in enumerate(checks):
        if i < 3:
            b_res.append(_passed(c, seconds=30.0))
        elif i == 3:
            b_res.append(_faulted(c, CallTimeout.said(M.FAULT_TIMEOUT, function="embed",
                                                      what="embed()", seconds=10),
                                  hint=M.HINT_TIMEOUT))
        else:
            b_res.append(_budget(c))
    out["budget"] = (spec, assemble(
        spec, b_res, name="ivan.py", module="ivan.py", imp=ok_import, seconds=121.5))

    out["flagged"] = (spec, assemble(
        spec, [_passed(c) for c in checks], name="jack.py", module="jack.py", imp=ok_import,
        flags=[{"kind": "reference_copy", "similarity": 0.97, "threshold": 0.6,
                "message": "97% of this submission's code fingerprints are the reference "
                           "implementation's"}] + tamper_flags(
            [("jack.py", "import sys\n\nimport numpy as np\nsys.modules['numpy'].x = 1\n"),
             ("lib/z.py", "import zlib\nexec(zlib.decompress(b'...'))  # <b>\n")])))
    return out


def _sources():
    from tests.grade.test_similarity_fragments import DISGUISED, INDEPENDENT, ORIGINAL

    return {"alice.py": [("alice.py", ORIGINAL)], "bob \u202egnp.py": [("bob.py", DISGUISED)],
            "hana.py": [("hana.py", INDEPENDENT)]}


def outputs(spec, folder: Path) -> dict[str, str]:
    """{file name: text} of every output of every case (see the module's docstring);
    `folder` receives the batch's gradebook and files. Each report is read from the JSON
    form grade() assembles (Report.from_dict), as grade() itself does."""
    from graders.grade.report import Report

    from graders.grade import batch
    from graders.grade.batch_reports import feedback_text, summary_text
    from graders.grade.formats import dumps, render
    from graders.grade.report_pages import (reference_rows, similarity_page, summary_page,
                                            tamper_rows)

    out: dict[str, str] = {}
    all_cases = cases(spec)
    for name, (_, rep) in all_cases.items():
        report = Report.from_dict(rep)
        out[f"{name}.gradebook.json"] = dumps(report.to_dict())
        for lang in LANGS:
            for fmt in FORMATS:
                if fmt == "json" and lang != "en":
                    continue   # the report is language-neutral; its translated fields are
                               # the gradescope format's, rendered in every language
                ext = {"text": "txt", "json": "json", "junit": "xml", "gradescope": "json"}[fmt]
                out[f"{name}.{fmt}.{lang}.{ext}"] = render(report, fmt, lang)
            out[f"{name}.feedback.{lang}.md"] = feedback_text(report, lang, "md", name)
            out[f"{name}.feedback.{lang}.html"] = feedback_text(report, lang, "html", name)
    # the batch: every report recorded in a real gradebook, read back, summarised
    con = batch.open_gradebook(folder / "gradebook.sqlite")
    names = []
    for name, (_, rep) in all_cases.items():
        report = Report.from_dict(rep)
        batch.record(con, report, SPEC_SHA)
        names.append((report.submission, report.sha256))
    names.append(("kate.py", None))
    batch.record_problem(con, "kate.py", None, SPEC_SHA, "kate.py: not a .py, .ipynb or .cu file")
    rows = batch.scores(con, names, SPEC_SHA, list(spec.groups))
    con.close()
    for r in rows:
        r.graded_at = "2026-01-01T00:00:00" if r.graded_at else None
    pairs = [("alice.py", "bob \u202egnp.py", 0.91)]
    batch._flag(rows, pairs)
    csv_path = folder / "scores.csv"
    batch.write_csv(csv_path, rows, list(spec.groups), feedback="md")
    out["batch.scores.csv"] = csv_path.read_text(encoding="utf-8")
    for lang in LANGS:
        out[f"batch.summary.{lang}.txt"] = summary_text(rows, spec.title, lang)
        out[f"batch.summary.{lang}.html"] = summary_page(
            rows, spec.title, pairs, lang,
            feedback={r.submission: f"../feedback/{r.submission}.md" for r in rows})
        out[f"batch.similarity.{lang}.html"] = similarity_page(
            pairs, _sources(), lang, references=reference_rows(rows),
            tampered=tamper_rows(rows))
        out[f"batch.feedback-none.{lang}.md"] = feedback_text(None, lang, "md", "kate.py")
    return out

