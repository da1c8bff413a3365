"""graders/grade/report.py: the typed grade report. Its JSON form is the one grade() has always
written (the same run gives the same bytes), it reads back equal (Hypothesis, and every
report of the golden corpus, written before the report was typed), and a malformed one is a
ReportError naming the field; a malformed gradebook row is one line naming the row."""

from __future__ import annotations

import copy
import json
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.conformance.outcome import Cause, Status
from graders.grade import batch, cli
from graders.grade.formats import dumps, inert, inert_report
from graders.grade.grading import grade, load_submission
from graders.grade.report import (Check, ClauseSection, CellRaised, Counts, DroppedLine, Flag,
                                  Group, ImportErrorInfo, ImportFailed, Imported, Isolation,
                                  NoModule, Notebook, Report, ReportError, Said, WorkerRun)
from tests.grade.golden_cases import cases
from tests.grade.make_golden import GOLDEN

from .conftest import CORRECT, LIMITS, SANDBOX

# ----------------------------------------------------------------------------- strategies
TEXT = st.text(max_size=12).map(inert)   # what a report holds: inert text (from_dict makes it so)
RAW = st.text(max_size=12)
NAME = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e), min_size=1, max_size=8)
NUM = st.one_of(st.integers(-10**6, 10**6),
                st.floats(allow_nan=False, allow_infinity=False, width=64))
JSON = st.recursive(st.none() | st.booleans() | NUM | TEXT,
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(NAME, inner, max_size=3), max_leaves=8)
FIELDS = st.dictionaries(NAME, JSON, max_size=4)
SAID = st.builds(Said, NAME, FIELDS)


def _opt(s):
    return st.none() | s


ERROR = st.builds(ImportErrorInfo, TEXT, TEXT, line=_opt(st.integers(1, 10**6)),
                  text=_opt(TEXT), bases=_opt(st.lists(TEXT, max_size=3).map(tuple)),
                  said=_opt(st.lists(SAID, max_size=2).map(tuple)),
                  cell=_opt(st.integers(1, 500)))
IMPORT = st.one_of(
    st.builds(Imported, st.lists(NAME, max_size=4).map(tuple),
              _opt(st.lists(st.builds(CellRaised, st.integers(1, 99),
                                      _opt(st.integers(1, 99)), TEXT, TEXT),
                            max_size=3).map(tuple))),
    st.builds(NoModule, TEXT, FIELDS),
    st.builds(ImportFailed, NAME, _opt(ERROR), _opt(TEXT), _opt(SAID)))
SECTION = st.builds(ClauseSection, NAME, NAME, TEXT,
                    st.dictionaries(st.sampled_from(["en", "nl", "ko"]), TEXT, max_size=3))
CHECK = st.builds(
    Check, NAME, st.lists(NAME, max_size=2).map(tuple), st.lists(NAME, max_size=2).map(tuple),
    TEXT, st.sampled_from(list(Status)), _opt(st.sampled_from(list(Cause))), st.booleans(),
    TEXT, _opt(TEXT), FIELDS, FIELDS, _opt(TEXT), _opt(TEXT), _opt(TEXT),
    st.lists(SECTION, max_size=2).map(tuple), NUM, NUM, st.dictionaries(NAME, NUM, max_size=2),
    st.sampled_from(["visible", "hidden", "after_due_date"]), NUM)
GROUP = st.builds(Group, NAME, TEXT, NUM, NUM, st.integers(0, 99), st.integers(0, 99),
                  st.integers(0, 99), st.sampled_from(["visible", "hidden", "after_due_date"]))
FLAG = st.builds(lambda kind, extra: Flag(kind, {"kind": kind, **extra}), NAME,
                 st.fixed_dictionaries({}, optional={"similarity": NUM, "message": TEXT,
                                                     "other": TEXT, "places": JSON}))
REPORT = st.builds(
    Report, TEXT, NAME, _opt(TEXT), st.sampled_from(["python", "kernel"]), NAME, NAME, NAME,
    NAME, st.builds(Isolation, NAME, TEXT),
    st.dictionaries(NAME, st.dictionaries(st.sampled_from(["en", "nl", "ko"]), TEXT), max_size=3),
    _opt(st.builds(Notebook, TEXT, st.lists(st.builds(DroppedLine, st.integers(1, 99),
                                                      st.integers(1, 99), NAME, TEXT),
                                            max_size=3).map(tuple), st.integers(0, 10**6))),
    IMPORT,
    _opt(st.builds(WorkerRun, TEXT, st.integers(0, 9), TEXT, st.integers(0, 9), NUM,
                   st.lists(TEXT, max_size=3).map(tuple))),
    st.lists(NAME, max_size=3).map(tuple), NUM, NUM, st.lists(GROUP, max_size=3).map(tuple),
    st.lists(NAME, max_size=2).map(tuple), st.lists(CHECK, max_size=3).map(tuple),
    st.builds(Counts, *[st.integers(0, 99)] * 5), st.integers(0, 9),
    st.lists(FLAG, max_size=2).map(tuple), NUM)


# ----------------------------------------------------------------------------- round trips
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPORT)
def test_a_report_reads_back_equal_from_its_json_form(report):
    data = report.to_dict()
    assert Report.from_dict(data) == report
    assert Report.from_dict(json.loads(json.dumps(data))) == report   # through JSON text
    assert Report.from_dict(data).to_dict() == data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPORT, RAW, RAW)
def test_reading_a_report_makes_the_submissions_words_inert(report, said, name):
    """Whatever a report's JSON form holds (an escape code in a message, a lone surrogate in a
    file name), the report read from it holds the inert text, so every renderer does."""
    data = report.to_dict()
    data["submission"] = name
    data["import"] = {"ok": True, "functions": [], "cells": [
        {"cell": 1, "line": None, "type": "ValueError", "msg": said}]}
    read = Report.from_dict(data)
    assert read.to_dict() == inert_report(read.to_dict())
    assert read.submission == inert(name) and read.import_outcome.cells[0].msg == inert(said)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.gradebook.json")))
def test_every_gradebook_row_of_the_golden_corpus_reads_back_byte_for_byte(name):
    """Written before the report was typed (tests/grade/golden/): read back, written again,
    the same bytes; the JSON format's report is the same object."""
    text = (GOLDEN / name).read_text(encoding="utf-8")
    report = Report.from_dict(json.loads(text))
    assert dumps(report.to_dict()) == text
    stem = name.removesuffix(".gradebook.json")
    shown = json.loads((GOLDEN / f"{stem}.json.en.json").read_text(encoding="utf-8"))
    assert shown["report"] == report.to_dict()


def test_the_corpus_reports_are_typed_throughout(spec):
    for name, (_, data) in cases(spec).items():
        report = Report.from_dict(data)
        assert report.to_dict() == data and list(report.to_dict()) == list(data), name
        assert all(isinstance(c.status, Status) for c in report.checks), name
        assert report["score"] == data["score"] and report["checks"] == data["checks"]
        with pytest.raises(KeyError):
            report["no such field"]


@pytest.mark.parametrize("submission", ["module", "no_module"])
def test_grade_builds_the_model_from_the_json_it_always_wrote(spec, tmp_path, monkeypatch,
                                                               submission):
    """What grade() assembles (the report's JSON as it was before the model) is exactly the
    model's to_dict: the same keys, in the same order, the same values."""
    seen = []
    real = Report.from_dict.__func__

    def spy(cls, data, *args, **kwargs):
        seen.append(copy.deepcopy(data))
        return real(cls, data, *args, **kwargs)

    monkeypatch.setattr(Report, "from_dict", classmethod(spy))
    if submission == "module":
        path = CORRECT
    else:
        path = tmp_path / "two"
        path.mkdir()
        for f in ("a.py", "b.py"):
            (path / f).write_text("x = 1\n", encoding="utf-8")
    report = grade(load_submission(path), spec, profile="dev", limits=LIMITS, sandbox=SANDBOX,
                   select=["VEC-DOT-01"])
    (data,) = seen
    assert report.to_dict() == data and list(report.to_dict()) == list(data)
    assert dumps(report.to_dict()) == dumps(data)
    assert (report.worker is None) == (submission == "no_module")


# ----------------------------------------------------------------------------- malformed
def _valid(spec) -> dict:
    return cases(spec)["notebook"][1]


def _set(data, path, value):
    *head, last = path
    for k in head:
        data = data[k]
    if value is _DELETE:
        del data[last]
    else:
        data[last] = value


_DELETE = object()


@pytest.mark.parametrize("path, value, says", [
    (("checks", 1, "status"), 5, "report.checks[1].status: expected a string, got an integer"),
    (("checks", 1, "status"), "great", "report.checks[1].status: 'great' is not one of passed"),
    (("checks", 0, "cause"), "bad luck", "report.checks[0].cause: 'bad luck' is not one of"),
    (("checks", 0, "problem"), 1, "report.checks[0].problem: expected true or false"),
    (("checks", 0, "sections", 0, "statements", "nl"), None,
     "report.checks[0].sections[0].statements.nl: expected a string, got null"),
    (("checks", 0, "fields"), [1], "report.checks[0].fields: expected an object, got a list"),
    (("groups", 0, "points"), "10", "report.groups[0].points: expected a number, got a string"),
    (("groups", 0, "score"), True, "report.groups[0].score: expected a number, got true or false"),
    (("score",), _DELETE, "report: missing field 'score'"),
    (("visible_output",), _DELETE, "report: missing field 'visible_output'"),
    (("scores",), 1, "report: unknown field 'scores'"),
    (("import", "cells", 0, "line"), "3", "report.import.cells[0].line: expected an integer"),
    (("import", "ok"), "yes", "report.import.ok: expected true or false, got a string"),
    (("import", "ok"), False, "report.import: unknown field 'functions'"),
    (("notebook", "dropped", 1), [], "report.notebook.dropped[1]: expected an object, got a list"),
    (("counts", "not_run"), _DELETE, "report.counts: missing field 'not_run'"),
    (("flags",), [{"similarity": 1}], "report.flags[0]: missing field 'kind'"),
    (("flags",), [{"kind": "reference_copy", "similarity": "high"}],
     "report.flags[0].similarity: expected a number, got a string"),
    (("isolation",), "bwrap", "report.isolation: expected an object, got a string"),
    (("sections", "first-layer"), {"en": 1}, "report.sections.first-layer.en: expected a string"),
])
def test_a_malformed_report_names_its_field(spec, path, value, says):
    data = copy.deepcopy(_valid(spec))
    _set(data, path, value)
    with pytest.raises(ReportError) as caught:
        Report.from_dict(data)
    assert str(caught.value).startswith(says), str(caught.value)


def test_a_report_that_is_not_an_object_is_refused():
    for data in (None, [], "report", 3):
        with pytest.raises(ReportError, match=r"^report: expected an object"):
            Report.from_dict(data)


@pytest.mark.parametrize("corrupt, says", [
    (lambda d: d["checks"][0].update(status=5),
     "report.checks[0].status: expected a string, got an integer"),
    (lambda d: d.pop("groups"), "report: missing field 'groups'"),
    (None, "its report is not JSON"),
])
def test_a_malformed_gradebook_row_is_one_line_naming_the_row(spec, tmp_path, capsys, corrupt,
                                                              says):
    """A gradebook row edited by hand (or cut short): `batch` says which row and which field,
    exit status 2, no traceback; --regrade writes the row again."""
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "alice.py").write_bytes(CORRECT.read_bytes())
    sub = load_submission(folder / "alice.py")
    db = tmp_path / "gb.sqlite"
    con = batch.open_gradebook(db)
    report = Report.from_dict(dict(cases(spec)["correct"][1], sha256=sub.sha256,
                                   submission=sub.name))
    batch.record(con, report, batch.gradebook_key(spec, "grading", sandbox="none"))
    data = report.to_dict()
    if corrupt is None:
        text = dumps(data)[:-40]
    else:
        corrupt(data)
        text = json.dumps(data)
    with con:
        con.execute("UPDATE grades SET report=?", (text,))
    con.close()
    code = cli.main(["batch", str(folder), "--db", str(db), "--sandbox", "none",
                     "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "row of alice.py" in err and says in err and "--regrade" in err, err
    assert "Traceback" not in err


def test_the_gradebook_holds_the_json_format_s_report(spec, tmp_path):
    """The gradebook's report column is the JSON of --format json's "report", byte for byte."""
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    con.executescript(batch.SCHEMA)
    report = Report.from_dict(cases(spec)["buggy"][1])
    batch.record(con, report, "s")
    (text,) = con.execute("SELECT report FROM grades").fetchone()
    assert text == dumps(report.to_dict())
    assert Report.from_dict(json.loads(text)) == report


def test_docs_list_the_report_s_fields_in_their_order(spec):
    """docs/grading.md's table of the report's fields names every field of the JSON form, in
    its order (a field added to the model without the docs fails here)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "grading.md").read_text("utf-8")
    table = doc.split("<!-- report fields:", 1)[1].split("<!-- end of report fields -->", 1)[0]
    named = [name for row in table.splitlines()[3:] if row.startswith("| `")
             for name in re.findall(r"`([a-z_0-9]+)`", row.split("|")[1])]
    assert named == list(cases(spec)["buggy"][1]), named
