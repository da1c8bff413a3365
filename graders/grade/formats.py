"""Render a report: ``gradescope`` (results.json), ``json`` (the same plus details), ``junit``
(JUnit XML) and ``text`` (for a person; rich when writing to a terminal).

Everything a student reads is translated here, from the language-neutral, typed report
(report.Report: every renderer reads its attributes).

Every format is valid and inert for any submission: a Report is only ever read from its JSON
form through :func:`inert_report` (``Report.from_dict``), which shows control characters (ANSI
escapes, NUL, bidi overrides, anything XML 1.0 cannot hold) as visible ``\\x1b``-style
escapes. Text output prints the submission's strings and file names without rich markup or
emoji codes; Gradescope output declares ``output_format: text`` (shown as written, no HTML or
Markdown).
"""

from __future__ import annotations

import io
import json
import math
import xml.etree.ElementTree as ET

from graders.conformance.inert import inert  # noqa: F401 - the one home of what is inert
from graders.conformance.notes import notebook_notes
from graders.conformance.outcome import Cause, Status

from . import messages as M
from .i18n import Translator
from .report import Check, Flag, Group, Report

FORMATS = ("text", "json", "gradescope", "junit")

_NON_FINITE = {"nan": "nan", "inf": "inf", "-inf": "-inf"}


def inert_report(value):
    """A copy of a report (or any part of one) that every output can hold as it is: strings,
    keys included, inert (see `inert`); floats that are not finite (NaN, infinities, which
    RFC 8259 JSON cannot hold) as Python writes them, the strings "nan", "inf", "-inf"; keys
    that are not strings as their text; tuples as lists. The one place where the words of a
    submission become safe: report.Report.from_dict passes every report's JSON form through it
    before anything reads it (grading.grade's report, a gradebook row, a grader task's)."""
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _NON_FINITE[repr(value)]
    if isinstance(value, dict):
        return {inert(k if isinstance(k, str) else str(inert_report(k))): inert_report(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [inert_report(v) for v in value]
    return inert(str(value))


def dumps(value, **options) -> str:
    """RFC 8259 JSON of a report (or any part of one), inert: see `inert_report`."""
    return json.dumps(inert_report(value), allow_nan=False, ensure_ascii=False, **options)


def _section_title(spec_sections: dict, section: str, lang: str) -> str:
    titles = spec_sections.get(section, {})
    return titles.get(lang) or titles.get("en") or section


def _status_label(check: Check, t: Translator) -> str:
    if check.cause == Cause.CHECK_BUG:
        return t(M.PASSED)
    return t(M.NOT_RUN_LABEL) if check.status == Status.NOT_RUN else t(str(check.status))


def _fields(fields: dict) -> dict:
    """Fields as the message needs them: lists that came through JSON are tuples again."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}


# A check's "raised" sentence, and the one for a kernel finding (said without a class name).
_KERNEL_FINDING = {
    "{function}() raised {exception}: {error}": M.KERNEL_FINDING,
    "{function}() raised {got}({error!r}), but should raise {want}": M.KERNEL_FINDING_INSTEAD,
}


def check_message(check: Check, t: Translator) -> str:
    """What went wrong, in the reader's language (the check's template with its values)."""
    template = check.template
    if template:
        fields = _fields(check.fields)
        try:
            if isinstance(fields.get("detail_msg"), dict):   # a fault's detail, translatable
                fields["detail"] = M.fault_detail(fields.pop("detail_msg"), t)
            for key in [k for k in fields if k.endswith("_said")]:   # a kernel's finding
                said = M.executor_said(fields.pop(key))
                if said is not None:
                    fields[key[:-len("_said")]] = M.said_text(said, t)
                    if key == "error_said":   # said in words, without the executor's class
                        template = _KERNEL_FINDING.get(template, template)
            for key in ("exception", "got"):   # Python's exceptions in words, its messages too
                name = fields.get(key)
                if isinstance(name, str) and name in M.EXCEPTION_NAMES:
                    if isinstance(fields.get("error"), str):
                        fields["error"] = M.python_message(name, fields["error"], t)
                    fields[key] = M.exception_name(name, t)
            return t(template, **fields)
        except (KeyError, IndexError, ValueError):
            pass
    return check.message


def check_parts(check: Check, t: Translator, sections: dict, *,
                details: bool = True) -> list[tuple[str, str, str]]:
    """The feedback of one check as (label, text, kind) items, in the order
    :func:`check_feedback` writes them: kind ``text`` (a sentence; an empty label for one that
    stands alone), ``input`` (the smallest failing input, code) or ``code`` (the reproducer).
    The HTML feedback shows the code items as code and the rest as wrapping prose.

    Only a problem the student can act on is shown as "What went wrong"; a skipped optional
    check says that it costs nothing, and a broken check that it is the grader's fault.
    """
    parts = [(t(M.STATUS), _status_label(check, t), "text")]
    cause, problem = check.cause, check.problem
    if cause == Cause.CHECK_BUG:
        parts.append(("", t(M.CHECK_BUG), "text"))
    elif check.status == Status.SKIPPED:
        fn = check.details.get("function") or ""   # JSON data: present for a skipped check
        parts.append(("", t(M.ELSEWHERE_SKIPPED if cause == Cause.MISSING_ELSEWHERE
                            else M.OPTIONAL_SKIPPED, function=fn), "text"))
    elif problem:
        message = check_message(check, t)
        if message:
            parts.append((t(M.WHAT_WENT_WRONG), message, "text"))
        if check.example:
            parts.append((t(M.SMALLEST_INPUT), check.example, "input"))
    for s in check.sections:
        parts.append((t(M.COURSE_SECTION), t(
            M.SECTION_CLAUSE, section=_section_title(sections, s.section, t.lang),
            clause=s.clause, statement=s.statement_in(t.lang)), "text"))
    if problem and check.hint:
        parts.append((t(M.HINT), t(check.hint), "text"))
    if details and problem and check.status == Status.FAILED and check.reproducer:
        parts.append((t(M.REPRODUCE), reproducer(check.reproducer, t), "code"))
    return parts


def check_feedback(check: Check, t: Translator, sections: dict, *, details: bool = True) -> str:
    """The feedback text of one check: what went wrong, smallest input, course section, hint
    (:func:`check_parts`, one item a line; code on the lines after its label)."""
    return parts_text(check_parts(check, t, sections, details=details))


def parts_text(parts: list[tuple[str, str, str]]) -> str:
    """:func:`check_parts` as text: one item a line, code on the lines after its label."""
    lines = []
    for label, text, kind in parts:
        if not label:
            lines.append(text)
        elif kind == "input":
            lines.append(f"{label}:\n    {text}")
        elif kind == "code":
            lines.append(f"{label}:\n{text}")
        else:
            lines.append(f"{label}: {text}")
    return "\n".join(lines)


def reproducer(snippet: str, t: Translator) -> str:
    """The check's reproducer with its closing comment in the reader's language."""
    from graders.conformance.i18n import reproducer_text

    return reproducer_text(snippet, t)


def group_status(g: Group, t: Translator) -> str:
    """"3 of 4 checks passed", counting only checks that ran: a skipped optional check is
    neither passed nor failed; a group of optional checks only says that they were skipped."""
    ran = g.checks - g.skipped
    if ran == 0 and g.skipped:
        return t(M.OPTIONAL_GROUP_SKIPPED)
    return t(M.CHECKS_PASSED, passed=g.passed, total=ran)


def reveals_total(report: Report) -> bool:
    """The total is shown only when every group is visible (else it tells about hidden ones)."""
    return report.reveals_total


def summary(report: Report, t: Translator, *, students: bool = True,
            groups: bool = True) -> str:
    """Top-level output: total, visible groups, import problems, the submission's output.

    For students (`students`), the total is left out when some group is hidden or shown after
    the due date, and only visible groups are listed.
    """
    lines = []
    if not students or reveals_total(report):
        lines.append(t(M.TOTAL_SCORE, score=_num(report.score),
                       max_score=_num(report.max_score)))
    else:
        lines.append(t(M.SCORE_HIDDEN))
    hidden = 0
    for g in report.groups if groups else ():
        if students and g.visibility != "visible":
            hidden += 1
            continue
        lines.append(f"- {t(g.title)}: {t.number(_num(g.score))} / "
                     f"{t.number(_num(g.points))} "
                     f"({group_status(g, t)})")
    if hidden:
        lines.append(t(M.HIDDEN_GROUPS, n=hidden))
    if not groups:
        lines = []
    imp = report.import_outcome
    if not imp.ok:
        lines += ["", t(M.IMPORT_FAILED), M.import_detail(imp, t, kernel=report.kernel),
                  t(import_hint(report))]
    else:
        # for students, judged on the visible checks only: nothing they see may depend on a
        # hidden or after-the-due-date check (this line vanished when only one of those failed)
        shown = [c for c in report.checks if not students or c.visibility == "visible"]
        if shown and not any(c.problem for c in shown):
            lines += ["", t(M.NOTHING_WRONG)]
    lines += report_notes(report, t)
    # restarts and what the submission printed depend on every check's calls: where a group
    # is not visible, students see those of the import and the visible checks only (the
    # report's visible_output, visible_restarts), and not the time taken
    whole = not students or reveals_total(report)
    worker = report.worker
    if worker is not None:
        restarts = worker.restarts if whole else worker.visible_restarts
        printed = worker.submission_output if whole else worker.visible_output
        if restarts:
            lines.append(t(M.RESTARTS, n=restarts))
        if printed:
            lines += ["", t(M.SUBMISSION_OUTPUT, n=len(printed)), submission_output(printed)]
    if whole:
        lines += ["", t(M.GRADING_TOOK, seconds=report.execution_time)]
    return "\n".join(lines).strip("\n")


def import_hint(report: Report) -> str:
    """The hint's msgid under the report's import failure."""
    error = getattr(report.import_outcome, "error", None)
    return M.import_hint(None if error is None else error.type, report.kernel,
                         None if error is None else error.msg)


def report_notes(report: Report, t: Translator) -> list[str]:
    """The notes on a notebook (graders/conformance/notes.py, the one renderer): each cell
    that raised, then the lines left out."""
    cells = report.import_outcome.cells
    return notebook_notes(None if report.notebook is None else report.notebook.to_dict(),
                          None if cells is None else [c.to_dict() for c in cells], t)


def submission_output(printed: str) -> str:
    """What the submission printed, with the sandbox's folder of its files left out of the
    paths Python prints (a warning's "/sandbox/submission/hw.py:21: ..." reads "hw.py:21: ...";
    so does the copy the worker runs in, /sandbox/work/submission/)."""
    from .grading import sandbox_paths_left_out

    return sandbox_paths_left_out(printed)


def _num(x: float):
    return int(x) if float(x).is_integer() else round(x, 2)


def gradescope(report: Report, lang: str = "en", sections: dict | None = None) -> dict:
    """Gradescope's results.json (every text declared plain: ``output_format: text``)."""
    t = Translator(lang)
    sections = sections or report.sections
    tests = []
    for c in report.checks:
        title = t(_group_title(report, c))
        tests.append({
            "name": f"{title}: {c.id} ({', '.join(c.clauses)})",
            "number": c.number,
            "score": c.score, "max_score": c.max_score,
            "status": "failed" if c.problem else "passed",
            "output": _test_output(c, t, sections),
            "output_format": "text",
            "visibility": c.visibility,
        })
    tests.sort(key=lambda x: _number_key(x["number"]))
    flags = [staff_flag(f, t) for f in report.flags]
    return {
        "score": report.score,
        "execution_time": round(report.execution_time, 2),
        "output": summary(report, t),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        # For the staff (Gradescope shows students only the fields above): copy flags, with
        # figures only, never the reference's text; Gradescope stores `extra_data`.
        "flags": flags,
        "extra_data": {"flags": flags},
    }


def _number_key(number: str) -> tuple:
    """"2.10" after "2.9": a test's number compared part by part, as numbers."""
    return tuple(int(p) if p.isdigit() else 0 for p in str(number).split("."))


def staff_flag(flag: Flag, t: Translator) -> dict:
    """A flag for the staff (a copy, a reach into the grader), its message in the report's
    language with its figures and places."""
    out = flag.to_dict()
    places = flag.data.get("places")   # a flag's own fields: JSON data, by its kind
    if flag.kind == "reference_copy" and flag.similarity is not None:
        out["message"] = t(M.FLAG_REFERENCE_COPY, share=round(100 * flag.similarity))
    elif flag.kind == "grader_tamper" and isinstance(places, list):
        places = [p for p in places if isinstance(p, dict)]
        out["message"] = t(M.FLAG_TAMPER, count=t.number(flag.data.get("count", len(places))),
                           rules=", ".join(str(r) for r in flag.data.get("rules") or []),
                           places="; ".join(f"{tamper_place(p, t)} {p.get('code', '')}"
                                         for p in places[:5])
                           + ("; ..." if len(places) > 5 else ""))
    return out


def tamper_place(place: dict, t: Translator) -> str:
    """Where one place of a ``grader_tamper`` flag is: its file, cell (a notebook) and line."""
    fields = {"file": place.get("file", "?"), "line": place.get("line", "?")}
    if place.get("cell"):
        return t(M.TAMPER_PLACE_IN_CELL, cell=place["cell"], **fields)
    return t(M.TAMPER_PLACE, **fields)


def _test_output(check: Check, t: Translator, sections: dict) -> str:
    if check.cause == Cause.IMPORT_ERROR:   # the import error is said once, at the top
        return f"{t(M.STATUS)}: {_status_label(check, t)}\n{t(M.NOT_RUN_IMPORT)}"
    return check_feedback(check, t, sections)


def _group_title(report: Report, check: Check) -> str:
    return report.group_title(check.group) if check.groups else ""


def as_json(report: Report, lang: str = "en") -> dict:
    """The Gradescope fields plus the whole report (groups, per-check details, metadata)."""
    out = gradescope(report, lang)
    out["max_score"] = report.max_score
    out["report"] = report.to_dict()
    out["lang"] = lang
    return out


def _errs(c: Check) -> bool:
    return c.status in (Status.ERROR, Status.NOT_RUN) and c.cause != Cause.CHECK_BUG


def junit(report: Report, lang: str = "en") -> str:
    """JUnit XML that parses whatever the submission printed or named itself."""
    t = Translator(lang)
    sections = report.sections
    counts = report.counts
    suites = ET.Element("testsuites", name=f"andrea-grade {report.submission}",
                        tests=str(len(report.checks)), failures=str(counts.failed),
                        errors=str(counts.error + counts.not_run - report.check_bugs),
                        skipped=str(counts.skipped),
                        time=f"{report.execution_time:.3f}")
    by_group: dict[str, list[Check]] = {}
    for c in report.checks:
        by_group.setdefault(c.group, []).append(c)
    for g in report.groups:
        cs = by_group.get(g.id, [])
        suite = ET.SubElement(
            suites, "testsuite", name=g.id, tests=str(len(cs)),
            failures=str(sum(c.status == Status.FAILED for c in cs)),
            errors=str(sum(_errs(c) for c in cs)),
            skipped=str(sum(c.status == Status.SKIPPED for c in cs)),
            time=f"{sum(c.duration_s for c in cs):.3f}")
        props = ET.SubElement(suite, "properties")
        for k, v in (("title", g.title), ("points", g.points), ("score", g.score),
                     ("visibility", g.visibility)):
            ET.SubElement(props, "property", name=k, value=str(v))
        for c in cs:
            case = ET.SubElement(suite, "testcase", classname=f"andrea.{g.id}", name=c.id,
                                 time=f"{c.duration_s:.3f}")
            text = check_feedback(c, t, sections)
            msg = check_message(c, t)
            first = msg.splitlines()[0][:300] if msg else ""
            if c.status == Status.FAILED:
                ET.SubElement(case, "failure", message=first, type="failed").text = text
            elif _errs(c):
                ET.SubElement(case, "error", message=first, type=str(c.status)).text = text
            elif c.status == Status.SKIPPED:
                ET.SubElement(case, "skipped", message=first)
    out = ET.SubElement(suites, "system-out")
    out.text = summary(report, t, students=False)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")


def text(report: Report, lang: str = "en", *, color: bool = False, width: int = 100) -> str:
    """A person's view: a table of groups and checks, then feedback for each problem."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    t = Translator(lang)
    sections = report.sections
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=color, color_system="auto" if color else None,
                  width=width, highlight=False, emoji=False)
    mode = report.isolation.mode
    isolation = t(M.ISOLATION, mode=t(M.ISOLATION_MODES[mode]) if mode in M.ISOLATION_MODES
                  else mode)
    con.print(f"[bold]andrea-grade[/bold] {escape(report.submission)} "
              f"({escape(report.spec)}, {escape(isolation)})")
    table = Table(show_header=True, header_style="bold")
    for col in (M.GROUP, M.POINTS, M.SCORE, M.STATUS):
        table.add_column(t(col))
    for g in report.groups:
        ok = g.passed == g.checks - g.skipped
        table.add_row(escape(t(g.title)), t.number(_num(g.points)),
                      t.number(_num(g.score)),
                      ("[green]" if ok else "[red]") + group_status(g, t) + "[/]")
    con.print(table)
    con.print(f"[bold]{t(M.TOTAL_SCORE, score=_num(report.score), max_score=_num(report.max_score))}[/bold]")
    import_failed = not report.import_outcome.ok
    for c in report.checks:
        if not c.problem:
            continue
        if import_failed and c.cause == Cause.IMPORT_ERROR:
            continue   # said once, below
        style = {"failed": "red", "error": "magenta", "not_run": "magenta"}.get(str(c.status),
                                                                                 "red")
        con.rule(f"[{style}]{c.number} {escape(c.id)} "
                 f"({escape(', '.join(c.clauses))})[/]", align="left")
        con.print(check_feedback(c, t, sections), markup=False)
    con.print()
    con.print(summary(report, t, students=False, groups=False), markup=False)
    return buf.getvalue()


def render(report: Report, fmt: str, lang: str = "en", *, color: bool = False) -> str:
    if fmt == "gradescope":
        return dumps(gradescope(report, lang), indent=2) + "\n"
    if fmt == "json":
        return dumps(as_json(report, lang), indent=2) + "\n"
    if fmt == "junit":
        return junit(report, lang) + "\n"
    if fmt == "text":
        return text(report, lang, color=color)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
