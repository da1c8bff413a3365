"""The grade report, typed: what ``grading.grade`` returns and every format, page and summary reads.

    report = grade(sub, spec)              # a Report
    report.score, report.checks[0].status, report.import_outcome.ok, report.worker.restarts
    data = report.to_dict()                # the JSON of `--format json` and of the gradebook
    Report.from_dict(data) == report       # a gradebook row read back

Small frozen dataclasses, one per part: :class:`Report`, its :class:`Group` rows and
:class:`Check` rows (with their :class:`ClauseSection`), the import's outcome
(:class:`Imported`, :class:`NoModule` when no module could be chosen, :class:`ImportFailed`
with its :class:`ImportErrorInfo` and :class:`Said` sentences), the :class:`Notebook` part
(:class:`DroppedLine`, :class:`CellRaised`), :class:`Isolation`, what the worker left
behind (:class:`WorkerRun`), the status :class:`Counts` and the staff's :class:`Flag`.

``to_dict()`` gives the report's JSON form exactly as the grader has always written it (the
field names, their order, the numbers as they were computed); ``from_dict()`` reads that form
back and checks every field's type, so a malformed report (a gradebook row edited by hand or
cut short) is a :class:`ReportError` naming the field (``report.checks[3].status: ...``),
never a traceback in a renderer. ``from_dict()`` is also the one place where the values a
submission controls (messages, file names, what it printed) are made inert
(formats.inert_report): ``grading.grade`` builds its report with it, and so does every reader
of a gradebook row, so every renderer reads inert text.

What a check's message template is filled with (``Check.fields``, ``Check.details``), a
problem's values and an executor sentence's values are plain JSON data (str, int, float,
bool, None, lists, dicts with string keys), checked as such.

A batch reads the gradebook into one :class:`BatchRow` per student (``batch.scores``): the
score, the group scores and the report of the gradebook's row, or why there is none; the CSV,
the class summary, the feedback files and the report pages read its attributes.

For tests and scripts, ``report["checks"]`` reads the JSON form's value (a KeyError for a
field the report does not have; there is no ``get`` with a default); the kit's own code reads
attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from graders.conformance.outcome import Cause, Status


class ReportError(ValueError):
    """A report's JSON form is malformed; the message names the field and what is wrong."""


# ----------------------------------------------------------------------------- reading
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               list: "a list", dict: "an object", type(None): "null"}


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    for t, name in _TYPE_NAMES.items():
        if type(value) is t:
            return name
    return type(value).__name__


class _Reader:
    """One JSON object of a report, read field by field under its path (``report.checks[3]``)."""

    def __init__(self, data, path: str, *, required=(), optional=()):
        if not isinstance(data, dict):
            raise ReportError(f"{path}: expected an object, got {_kind(data)}")
        unknown = [k for k in data if k not in required and k not in optional]
        if unknown:
            raise ReportError(f"{path}: unknown field {unknown[0]!r}")
        missing = [k for k in required if k not in data]
        if missing:
            raise ReportError(f"{path}: missing field {missing[0]!r}")
        self.data, self.path = data, path

    def has(self, key: str) -> bool:
        return key in self.data

    def at(self, key: str) -> str:
        return f"{self.path}.{key}"

    def _typed(self, key: str, types: tuple, what: str, none: bool = False):
        value = self.data[key]
        if value is None and none:
            return None
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            raise ReportError(f"{self.at(key)}: expected {what}"
                              f"{' or null' if none else ''}, got {_kind(value)}")
        return value

    def str(self, key: str, *, none: bool = False) -> str | None:
        return self._typed(key, (str,), "a string", none)

    def int(self, key: str, *, none: bool = False) -> int | None:
        return self._typed(key, (int,), "an integer", none)

    def num(self, key: str) -> float:
        return self._typed(key, (int, float), "a number")

    def bool(self, key: str) -> bool:
        return self._typed(key, (bool,), "true or false")

    def strs(self, key: str) -> tuple[str, ...]:
        items = self._typed(key, (list, tuple), "a list")
        for i, v in enumerate(items):
            if not isinstance(v, str):
                raise ReportError(f"{self.at(key)}[{i}]: expected a string, got {_kind(v)}")
        return tuple(items)

    def each(self, key: str, read) -> tuple:
        items = self._typed(key, (list, tuple), "a list")
        return tuple(read(v, f"{self.at(key)}[{i}]") for i, v in enumerate(items))

    def json(self, key: str, *, none: bool = False) -> dict | None:
        value = self._typed(key, (dict,), "an object", none)
        return None if value is None else _json(value, self.at(key))

    def enum(self, key: str, enum, *, none: bool = False):
        value = self.str(key, none=none)
        if value is None:
            return None
        try:
            return enum(value)
        except ValueError:
            allowed = ", ".join(str(m) for m in enum)
            raise ReportError(f"{self.at(key)}: {value!r} is not one of {allowed}") from None

    def texts(self, key: str) -> dict[str, str]:
        """An object of strings (a clause's statement per language)."""
        value = self._typed(key, (dict,), "an object")
        for k, v in value.items():
            if not isinstance(v, str):
                raise ReportError(f"{self.at(key)}.{k}: expected a string, got {_kind(v)}")
        return dict(value)


def _json(value, path: str):
    """`value` checked to be plain JSON data (and copied: the report does not share it)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ReportError(f"{path}: a key that is not a string ({k!r})")
            out[k] = _json(v, f"{path}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_json(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise ReportError(f"{path}: {_kind(value)} is not JSON data")


# ----------------------------------------------------------------------------- the parts
@dataclass(frozen=True)
class Isolation:
    """How the submission was isolated: ``bwrap``, ``container`` or ``rlimits``, and why."""

    mode: str
    note: str

    def to_dict(self) -> dict:
        return {"mode": self.mode, "note": self.note}

    @classmethod
    def from_dict(cls, data, path: str = "isolation") -> "Isolation":
        r = _Reader(data, path, required=("mode", "note"))
        return cls(r.str("mode"), r.str("note"))


@dataclass(frozen=True)
class DroppedLine:
    """A notebook line left out (an IPython magic, a shell command, ...)."""

    cell: int
    line: int
    kind: str
    text: str

    def to_dict(self) -> dict:
        return {"cell": self.cell, "line": self.line, "kind": self.kind, "text": self.text}

    @classmethod
    def from_dict(cls, data, path: str) -> "DroppedLine":
        r = _Reader(data, path, required=("cell", "line", "kind", "text"))
        return cls(r.int("cell"), r.int("line"), r.str("kind"), r.str("text"))


@dataclass(frozen=True)
class Notebook:
    """A notebook submission: the file handed in, and the lines left out (the first ones
    listed, `dropped_total` counting all)."""

    origin: str
    dropped: tuple[DroppedLine, ...]
    dropped_total: int

    def to_dict(self) -> dict:
        return {"origin": self.origin, "dropped": [d.to_dict() for d in self.dropped],
                "dropped_total": self.dropped_total}

    @classmethod
    def from_dict(cls, data, path: str = "notebook") -> "Notebook":
        r = _Reader(data, path, required=("origin", "dropped", "dropped_total"))
        return cls(r.str("origin"), r.each("dropped", DroppedLine.from_dict),
                   r.int("dropped_total"))


@dataclass(frozen=True)
class Said:
    """A sentence as a catalog msgid and its values (a fault's detail, the kit's refusal of a
    kernel file), translated where it is shown."""

    msgid: str
    fields: dict[str, Any]

    def to_dict(self) -> dict:
        return {"msgid": self.msgid, "fields": _json(self.fields, "fields")}

    @classmethod
    def from_dict(cls, data, path: str) -> "Said":
        r = _Reader(data, path, required=("msgid", "fields"))
        return cls(r.str("msgid"), r.json("fields"))


@dataclass(frozen=True)
class CellRaised:
    """A notebook cell that raised while the notebook ran (the cells after it ran); `line`
    is where in that cell, None when unknown."""

    cell: int
    line: int | None
    type: str
    msg: str

    def to_dict(self) -> dict:
        return {"cell": self.cell, "line": self.line, "type": self.type, "msg": self.msg}

    @classmethod
    def from_dict(cls, data, path: str) -> "CellRaised":
        r = _Reader(data, path, required=("cell", "line", "type", "msg"))
        return cls(r.int("cell"), r.int("line", none=True), r.str("type"), r.str("msg"))


@dataclass(frozen=True)
class ImportErrorInfo:
    """The worker's account of an import error (bounded by the proxy): the exception's type
    and message, the line and its text, the builtin bases, the kit's sentences refusing a
    kernel file, and for a notebook the cell (`line` is then the line in that cell)."""

    type: str
    msg: str
    line: int | None = None
    text: str | None = None
    bases: tuple[str, ...] | None = None
    said: tuple[Said, ...] | None = None
    cell: int | None = None

    def to_dict(self) -> dict:
        out: dict = {"type": self.type, "msg": self.msg}
        if self.line is not None:
            out["line"] = self.line
        if self.text is not None:
            out["text"] = self.text
        if self.bases is not None:
            out["bases"] = list(self.bases)
        if self.said is not None:
            out["said"] = [s.to_dict() for s in self.said]
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    @classmethod
    def from_dict(cls, data, path: str) -> "ImportErrorInfo":
        r = _Reader(data, path, required=("type", "msg"),
                    optional=("line", "text", "bases", "said", "cell"))
        return cls(r.str("type"), r.str("msg"),
                   line=r.int("line") if r.has("line") else None,
                   text=r.str("text") if r.has("text") else None,
                   bases=r.strs("bases") if r.has("bases") else None,
                   said=r.each("said", Said.from_dict) if r.has("said") else None,
                   cell=r.int("cell") if r.has("cell") else None)


@dataclass(frozen=True)
class Imported:
    """The submission imported: the contract functions it defines, and for a notebook the
    cells that raised (None: none was recorded)."""

    functions: tuple[str, ...]
    cells: tuple[CellRaised, ...] | None = None

    ok = True

    def to_dict(self) -> dict:
        out: dict = {"ok": True, "functions": list(self.functions)}
        if self.cells is not None:
            out["cells"] = [c.to_dict() for c in self.cells]
        return out


@dataclass(frozen=True)
class NoModule:
    """No module could be chosen from the submission (none, several, a kit's name): a msgid
    and its values."""

    problem: str
    fields: dict[str, Any]

    ok = False
    cells = None

    def to_dict(self) -> dict:
        return {"ok": False, "problem": self.problem, "fields": _json(self.fields, "fields")}


@dataclass(frozen=True)
class ImportFailed:
    """The import failed: `kind` ``import`` (an exception, with `error`) or a fault's kind
    (timeout, crash, resources, output, forbidden), with its text and its sentence."""

    kind: str
    error: ImportErrorInfo | None
    fault: str | None
    fault_detail: Said | None

    ok = False
    cells = None

    def to_dict(self) -> dict:
        return {"ok": False, "kind": self.kind,
                "error": None if self.error is None else self.error.to_dict(),
                "fault": self.fault,
                "fault_detail": None if self.fault_detail is None
                else self.fault_detail.to_dict()}


ImportOutcome = Union[Imported, NoModule, ImportFailed]


def import_outcome_from_dict(data, path: str = "import") -> ImportOutcome:
    """The import's outcome from its JSON form (``ok``, then the fields of its kind)."""
    if not isinstance(data, dict):
        raise ReportError(f"{path}: expected an object, got {_kind(data)}")
    if "ok" not in data:
        raise ReportError(f"{path}: missing field 'ok'")
    if not isinstance(data["ok"], bool):
        raise ReportError(f"{path}.ok: expected true or false, got {_kind(data['ok'])}")
    if data["ok"]:
        r = _Reader(data, path, required=("ok", "functions"), optional=("cells",))
        return Imported(r.strs("functions"),
                        r.each("cells", CellRaised.from_dict) if r.has("cells") else None)
    if "problem" in data:
        r = _Reader(data, path, required=("ok", "problem", "fields"))
        return NoModule(r.str("problem"), r.json("fields"))
    r = _Reader(data, path, required=("ok", "kind", "error", "fault", "fault_detail"))
    error = r.data["error"]
    detail = r.data["fault_detail"]
    return ImportFailed(
        r.str("kind"),
        None if error is None else ImportErrorInfo.from_dict(error, r.at("error")),
        r.str("fault", none=True),
        None if detail is None else Said.from_dict(detail, r.at("fault_detail")))


@dataclass(frozen=True)
class WorkerRun:
    """What the submission's worker left behind: what it printed and its restarts (all of
    them, and those of the import and the visible checks: what students may see before every
    group is published), its CPU time, the faults seen."""

    submission_output: str
    restarts: int
    visible_output: str
    visible_restarts: int
    worker_cpu_s: float
    faults: tuple[str, ...]

    KEYS = ("submission_output", "restarts", "visible_output", "visible_restarts",
            "worker_cpu_s", "faults")

    def to_dict(self) -> dict:
        return {"submission_output": self.submission_output, "restarts": self.restarts,
                "visible_output": self.visible_output, "visible_restarts": self.visible_restarts,
                "worker_cpu_s": self.worker_cpu_s, "faults": list(self.faults)}

    @classmethod
    def read(cls, r: _Reader) -> "WorkerRun":
        return cls(r.str("submission_output"), r.int("restarts"), r.str("visible_output"),
                   r.int("visible_restarts"), r.num("worker_cpu_s"), r.strs("faults"))


@dataclass(frozen=True)
class Group:
    """A rubric group's row: its points split over its checks, the score they earned."""

    id: str
    title: str
    points: float
    score: float
    passed: int
    skipped: int
    checks: int
    visibility: str

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "points": self.points, "score": self.score,
                "passed": self.passed, "skipped": self.skipped, "checks": self.checks,
                "visibility": self.visibility}

    @classmethod
    def from_dict(cls, data, path: str) -> "Group":
        r = _Reader(data, path, required=("id", "title", "points", "score", "passed", "skipped",
                                          "checks", "visibility"))
        return cls(r.str("id"), r.str("title"), r.num("points"), r.num("score"),
                   r.int("passed"), r.int("skipped"), r.int("checks"), r.str("visibility"))


@dataclass(frozen=True)
class ClauseSection:
    """A clause a check judges: the course section it comes from, its statement (in English
    and per language)."""

    clause: str
    section: str
    statement: str
    statements: dict[str, str]

    def statement_in(self, lang: str) -> str:
        return self.statements.get(lang) or self.statement

    def to_dict(self) -> dict:
        return {"clause": self.clause, "section": self.section, "statement": self.statement,
                "statements": dict(self.statements)}

    @classmethod
    def from_dict(cls, data, path: str) -> "ClauseSection":
        r = _Reader(data, path, required=("clause", "section", "statement", "statements"))
        return cls(r.str("clause"), r.str("section"), r.str("statement"), r.texts("statements"))


@dataclass(frozen=True)
class Check:
    """One check's row: its verdict (status and cause), its message (English, and as a
    template with its values), the smallest failing call, the reproducer, the hint's msgid,
    the clauses' sections, the points it earned of its share."""

    id: str
    clauses: tuple[str, ...]
    groups: tuple[str, ...]
    number: str
    status: Status
    cause: Cause | None
    problem: bool
    message: str
    template: str | None
    fields: dict[str, Any]
    details: dict[str, Any]
    example: str | None
    reproducer: str | None
    hint: str | None
    sections: tuple[ClauseSection, ...]
    score: float
    max_score: float
    shares: dict[str, float]
    visibility: str
    duration_s: float

    @property
    def group(self) -> str:
        """The group it is listed under (its first; '' for none)."""
        return self.groups[0] if self.groups else ""

    def to_dict(self) -> dict:
        return {
            "id": self.id, "clauses": list(self.clauses), "groups": list(self.groups),
            "number": self.number, "status": str(self.status),
            "cause": None if self.cause is None else str(self.cause), "problem": self.problem,
            "message": self.message, "template": self.template,
            "fields": _json(self.fields, "fields"), "details": _json(self.details, "details"),
            "example": self.example, "reproducer": self.reproducer, "hint": self.hint,
            "sections": [s.to_dict() for s in self.sections], "score": self.score,
            "max_score": self.max_score, "shares": dict(self.shares),
            "visibility": self.visibility, "duration_s": self.duration_s,
        }

    @classmethod
    def from_dict(cls, data, path: str) -> "Check":
        r = _Reader(data, path, required=(
            "id", "clauses", "groups", "number", "status", "cause", "problem", "message",
            "template", "fields", "details", "example", "reproducer", "hint", "sections",
            "score", "max_score", "shares", "visibility", "duration_s"))
        shares = r._typed("shares", (dict,), "an object")
        for g, v in shares.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ReportError(f"{r.at('shares')}.{g}: expected a number, got {_kind(v)}")
        return cls(
            r.str("id"), r.strs("clauses"), r.strs("groups"), r.str("number"),
            r.enum("status", Status), r.enum("cause", Cause, none=True), r.bool("problem"),
            r.str("message"), r.str("template", none=True), r.json("fields"),
            r.json("details"), r.str("example", none=True), r.str("reproducer", none=True),
            r.str("hint", none=True), r.each("sections", ClauseSection.from_dict),
            r.num("score"), r.num("max_score"), dict(shares), r.str("visibility"),
            r.num("duration_s"))


@dataclass(frozen=True)
class Counts:
    """How many checks ended in each status."""

    passed: int
    failed: int
    error: int
    skipped: int
    not_run: int

    def to_dict(self) -> dict:
        return {str(s): getattr(self, s.value) for s in Status}

    @classmethod
    def from_dict(cls, data, path: str = "counts") -> "Counts":
        r = _Reader(data, path, required=tuple(str(s) for s in Status))
        return cls(**{str(s): r.int(str(s)) for s in Status})


assert [str(s) for s in Status] == list(Counts.__dataclass_fields__), "Counts follows Status"


@dataclass(frozen=True)
class Flag:
    """A note for the staff that never changes a score (``reference_copy``, ...): its `kind`
    and its fields as recorded (`data`, in their order; every kind has a ``message``)."""

    kind: str
    data: dict[str, Any]

    @property
    def message(self) -> str:
        return str(self.data.get("message", ""))

    @property
    def similarity(self) -> float | None:
        value = self.data.get("similarity")
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def to_dict(self) -> dict:
        return _json(self.data, "flag")

    @classmethod
    def from_dict(cls, data, path: str) -> "Flag":
        if not isinstance(data, dict):
            raise ReportError(f"{path}: expected an object, got {_kind(data)}")
        r = _Reader(data, path, required=("kind",), optional=tuple(data))
        kind = r.str("kind")
        if r.has("message"):
            r.str("message")
        if r.has("similarity"):
            r.num("similarity")
        return cls(kind, _json(data, path))


# ----------------------------------------------------------------------------- the report
@dataclass(frozen=True)
class Scores:
    """What ``scoring.build`` computes from the check results: the total, the group rows,
    the check rows, the status counts."""

    score: float
    max_score: float
    groups: tuple[Group, ...]
    groups_without_checks: tuple[str, ...]
    checks: tuple[Check, ...]
    counts: Counts
    check_bugs: int

    def to_dict(self) -> dict:
        return {"score": self.score, "max_score": self.max_score,
                "groups": [g.to_dict() for g in self.groups],
                "groups_without_checks": list(self.groups_without_checks),
                "checks": [c.to_dict() for c in self.checks], "counts": self.counts.to_dict(),
                "check_bugs": self.check_bugs}


_META = ("submission", "sha256", "module", "kind", "spec", "spec_sha256", "profile",
         "grader_version", "isolation", "sections", "notebook", "import")
_SCORES = ("not_run", "score", "max_score", "groups", "groups_without_checks", "checks",
           "counts", "check_bugs", "flags", "execution_time")


@dataclass(frozen=True)
class Report:
    """One graded submission (see the module's docstring)."""

    submission: str                 # the student's file or folder name
    sha256: str                     # the submission's content hash
    module: str | None              # the file imported (None: no module could be chosen)
    kind: str                       # "python" or "kernel"
    spec: str
    spec_sha256: str
    profile: str
    grader_version: str
    isolation: Isolation
    sections: dict[str, dict[str, str]]   # course section id -> its heading per language
    notebook: Notebook | None
    import_outcome: ImportOutcome
    worker: WorkerRun | None        # None where no worker ran (no module could be chosen)
    not_run: tuple[str, ...]        # the checks the time budget left out
    score: float
    max_score: float
    groups: tuple[Group, ...]
    groups_without_checks: tuple[str, ...]
    checks: tuple[Check, ...]
    counts: Counts
    check_bugs: int
    flags: tuple[Flag, ...]
    execution_time: float

    # ------------------------------------------------------------------ reading
    @property
    def kernel(self) -> bool:
        return self.kind == "kernel"

    @property
    def reveals_total(self) -> bool:
        """Every group is visible (else the total tells students about hidden ones)."""
        return all(g.visibility == "visible" for g in self.groups)

    def section_title(self, section: str, lang: str) -> str:
        titles = self.sections.get(section, {})
        return titles.get(lang) or titles.get("en") or section

    def group_title(self, group_id: str) -> str:
        for g in self.groups:
            if g.id == group_id:
                return g.title
        return group_id

    # ------------------------------------------------------------------ JSON form
    def to_dict(self) -> dict:
        """The report's JSON form, exactly as ``--format json`` and the gradebook hold it."""
        out: dict = {
            "submission": self.submission, "sha256": self.sha256, "module": self.module,
            "kind": self.kind, "spec": self.spec, "spec_sha256": self.spec_sha256,
            "profile": self.profile, "grader_version": self.grader_version,
            "isolation": self.isolation.to_dict(),
            "sections": {k: dict(v) for k, v in self.sections.items()},
            "notebook": None if self.notebook is None else self.notebook.to_dict(),
            "import": self.import_outcome.to_dict(),
        }
        if self.worker is not None:
            out.update(self.worker.to_dict())
        out["not_run"] = list(self.not_run)
        out.update(Scores(self.score, self.max_score, self.groups, self.groups_without_checks,
                          self.checks, self.counts, self.check_bugs).to_dict())
        out["flags"] = [f.to_dict() for f in self.flags]
        out["execution_time"] = self.execution_time
        return out

    @classmethod
    def from_dict(cls, data, path: str = "report") -> "Report":
        """Read a report's JSON form (ReportError naming the field if it is malformed), its
        text made inert first (formats.inert_report: control characters, bidi marks and lone
        surrogates as visible escapes): the one place where a submission's words become safe,
        for every report the kit reads (grade()'s, a gradebook row, a grader task's)."""
        from .formats import inert_report

        data = inert_report(data) if isinstance(data, dict) else data
        worker = isinstance(data, dict) and any(k in data for k in WorkerRun.KEYS)
        r = _Reader(data, path, required=_META + (WorkerRun.KEYS if worker else ()) + _SCORES)
        sections = r._typed("sections", (dict,), "an object")
        for k, v in sections.items():
            titles = _Reader(v, f"{r.at('sections')}.{k}", optional=tuple(v or ()))
            for lang in v:
                titles.str(lang)
        notebook = r.data["notebook"]
        return cls(
            r.str("submission"), r.str("sha256"), r.str("module", none=True), r.str("kind"),
            r.str("spec"), r.str("spec_sha256"), r.str("profile"), r.str("grader_version"),
            Isolation.from_dict(r.data["isolation"], r.at("isolation")),
            {k: dict(v) for k, v in sections.items()},
            None if notebook is None else Notebook.from_dict(notebook, r.at("notebook")),
            import_outcome_from_dict(r.data["import"], r.at("import")),
            WorkerRun.read(r) if worker else None,
            r.strs("not_run"), r.num("score"), r.num("max_score"),
            r.each("groups", Group.from_dict), r.strs("groups_without_checks"),
            r.each("checks", Check.from_dict), Counts.from_dict(r.data["counts"], r.at("counts")),
            r.int("check_bugs"), r.each("flags", Flag.from_dict), r.num("execution_time"))

    def __getitem__(self, key: str):
        """The JSON form's value of `key` (a fresh copy; for tests and scripts: KeyError for a
        field the report does not have)."""
        return self.to_dict()[key]


@dataclass
class BatchRow:
    """One student of a batch as the gradebook holds them (built by ``batch.scores``): their
    name and content hash, the score, the maximum and the group scores of their row (None
    where there is no row: a problem), the report, why there is no grade or a 0 (``problem``,
    class_summary.problem_of; empty otherwise), each check's status (the CSV's columns), the
    staff's flags (the report's, then ``similar_to`` added by the batch) and their CSV cell."""

    submission: str
    sha256: str | None = None
    score: float | None = None
    max_score: float | None = None
    graded_at: str | None = None
    report: Report | None = None
    groups: dict[str, Any] = field(default_factory=dict)   # group id -> the row's score
    problem: str = ""
    checks: dict[str, str] = field(default_factory=dict)   # check id -> status
    flag_list: list[Flag] = field(default_factory=list)
    flags: str = ""                                         # the flags' CSV cell

    @property
    def graded(self) -> bool:
        """Whether the student has a score (their row was read from the gradebook)."""
        return self.score is not None
