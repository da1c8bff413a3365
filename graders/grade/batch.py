"""Grade a folder of submissions into an SQLite gradebook, on local cores or a Dask cluster.

    andrea-grade batch submissions/ --jobs 4 --csv scores.csv --histogram scores.png

* every entry of DIR is a submission: a .py or .cu file, or a folder with one module;
* each is graded by its own grader process (a process pool of `--jobs`, or Dask tasks with
  `--scheduler`), which starts its own isolated worker;
* the parent records each result in the gradebook the moment it arrives (one transaction per
  submission), so an interrupted batch loses nothing already graded;
* the key is (sha256 of the submission's files, the submission's name, gradebook_key: sha256
  of spec + profile + grader version + the checks of --select + every limit that can change a
  verdict + the isolation mode): every student has a row of their own, whose report names their
  own file only (a report carries its file's name: the reproducers, the import's messages), so
  identical files handed in under two names are two rows, never one shared row that tells one
  student the other's name; re-running skips what is graded unless `--regrade`, and an edited
  submission is graded again.

Tasks carry the submission's bytes and the spec's text, not paths, so Dask workers on other
machines need only the package installed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sqlite3
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from graders.conformance.sources import SOURCE_SUFFIXES

from .batch_reports import (check_columns, feedback_files, similarity_html,
                            write_feedback, write_histogram_png, write_summary)
from .class_summary import problem_of
from .formats import dumps, inert
from .report_pages import reference_rows, tamper_rows
from .grading import (GraderError, Submission, load_submission, printable_name,
                      require_consistent_visibility, spec_digest)
from .report import BatchRow, Flag, Report, ReportError
from .similarity import PAIR_THRESHOLD, python_parts, similar_pairs
from .sandbox import IsolationUnavailable, Limits, choose_mode

GRADES_TABLE = """
CREATE TABLE IF NOT EXISTS grades (
    sha256      TEXT NOT NULL,
    spec_sha256 TEXT NOT NULL,
    submission  TEXT NOT NULL,
    score       REAL NOT NULL,
    max_score   REAL NOT NULL,
    groups      TEXT NOT NULL,   -- JSON {group id: score}
    report      TEXT NOT NULL,   -- the whole report, JSON
    graded_at   TEXT NOT NULL,
    seconds     REAL NOT NULL,
    PRIMARY KEY (sha256, submission, spec_sha256)
)"""
SCHEMA = GRADES_TABLE + """;
CREATE TABLE IF NOT EXISTS problems (
    submission  TEXT NOT NULL,
    sha256      TEXT,
    spec_sha256 TEXT NOT NULL,
    message     TEXT NOT NULL,
    at          TEXT NOT NULL
);
"""


class BatchError(Exception):
    """The batch cannot run (no such folder, unusable gradebook, no scheduler)."""


#: Limits that shape what a report shows but never a verdict: left out of the gradebook key.
COSMETIC_LIMITS = frozenset({"keep_output_bytes"})

#: The isolation a `--sandbox` value asks for (probe.choose_mode): 'auto' is bubblewrap or a
#: refusal, so 'auto' and 'bwrap' grade alike and share their rows.
_ISOLATION = {"auto": "bwrap", "bwrap": "bwrap", "none": "rlimits", "rlimits": "rlimits",
              "container": "container"}


#: Why a batch is never graded in container mode (one submission per disposable container).
CONTAINER_BATCH_REFUSED = (
    "refusing to grade a batch with --sandbox container: that mode is for a disposable "
    "container that grades one submission, and without a mount or PID namespace every worker "
    "could read the other students' files (the batch folder, their scratch folders, the "
    "gradebook and the reports, all found through /proc); grade a batch with bubblewrap "
    "(--sandbox auto), or one submission per container (the Gradescope zip)")


def gradebook_key(spec, profile: str, select=None, limits: Limits | None = None,
                  sandbox: str = "auto") -> str:
    """The gradebook's key of a run's grades besides the submission and its name: what a
    verdict depends on. The spec, profile, grader version and --select (spec_digest), every
    limit but the cosmetic ones (a debugging run with `--total-timeout 1` or `--memory-mb 64`
    kept its checks not run or out of memory as grades, and the next full run skipped those
    students as already graded), and the isolation mode (a submission reading the grader's
    files passes under `--sandbox none`). Not in it: what only changes how the grades are
    shown or how fast they come (--jobs, --lang, --csv, --feedback-*, --report-dir,
    --similarity-threshold, --scheduler)."""
    limits = limits or Limits()
    h = hashlib.sha256(spec_digest(spec, profile, select).encode())
    for name, value in sorted(asdict(limits).items()):
        if name not in COSMETIC_LIMITS:   # 10 and 10.0 are one limit
            h.update(f"\0{name}={float(value)!r}".encode())
    h.update(f"\0isolation={_ISOLATION.get(sandbox, sandbox)}".encode())
    return h.hexdigest()


def discover(folder: str | Path) -> list[Path]:
    d = Path(folder)
    if not d.is_dir():
        raise BatchError(f"{folder}: not a folder")
    out = []
    for p in sorted(d.iterdir()):
        if p.name.startswith((".", "_")):
            continue
        if (p.is_file() and p.suffix in SOURCE_SUFFIXES) or p.is_dir():
            out.append(p)
    if not out:
        raise BatchError(f"{folder}: no submissions in this folder (expected .py, .ipynb or .cu "
                         "files, or one folder per student)")
    return out


def shown_names(entries: list[Path]) -> dict[Path, str]:
    """The name each submission of a batch is known by (its rows, reports, feedback file):
    its printable name (``printable_name``); where two names read alike once Unicode
    normalisation (NFKC: an é written as e and a combining accent, a full-width letter, a
    ligature) and case are set aside, each of them with its characters beyond ASCII as
    escapes (``cafe\\u0301.py`` beside ``caf\\u00e9.py``; a byte that is not UTF-8 reads
    ``\\xe9``, a backslash of the name itself ``\\\\``): two rows and two feedback files
    never read the same (both read "café.py" before; the CSV's feedback column alone told
    them apart). The same folder gives the same names on every run."""
    import unicodedata

    plain = {p: printable_name(p.name) for p in entries}
    seen: dict[str, set[str]] = {}
    for name in plain.values():
        seen.setdefault(unicodedata.normalize("NFKC", name).casefold(), set()).add(name)

    def escaped(name: str) -> str:   # \\u form always: \\xff is a byte that is not UTF-8
        return "".join(c if ord(c) < 0x80 else f"\\u{ord(c):04x}" if ord(c) < 0x10000
                       else f"\\U{ord(c):08x}" for c in name)

    return {p: escaped(name) if len(seen[unicodedata.normalize("NFKC", name).casefold()]) > 1
            else name for p, name in plain.items()}


def open_gradebook(path: str | Path) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(str(path), timeout=30)
        con.execute("PRAGMA journal_mode=WAL")
        con.executescript(SCHEMA)
        _upgrade(con)
    except sqlite3.Error as exc:
        raise BatchError(f"{path}: cannot open the gradebook ({exc})") from None
    return con


def _upgrade(con: sqlite3.Connection) -> None:
    """A gradebook of an earlier version keyed its rows by content alone (identical files
    shared one row, named after the copy graded last): its rows are kept, each under the name
    it holds, in a table keyed by content and name, so a copy under another name is graded
    again, as itself."""
    keys = [r[1] for r in sorted(con.execute("PRAGMA table_info(grades)"), key=lambda r: r[5])
            if r[5]]
    if keys == ["sha256", "submission", "spec_sha256"]:
        return
    con.execute("BEGIN IMMEDIATE")              # one transaction: all of it, or nothing
    try:
        con.execute("ALTER TABLE grades RENAME TO grades_by_content")
        con.execute(GRADES_TABLE)
        con.execute("INSERT OR REPLACE INTO grades (sha256, spec_sha256, submission, score, "
                    "max_score, groups, report, graded_at, seconds) SELECT sha256, spec_sha256, "
                    "submission, score, max_score, groups, report, graded_at, seconds "
                    "FROM grades_by_content")
        con.execute("DROP TABLE grades_by_content")
    except BaseException:
        con.rollback()
        raise
    con.commit()


def graded(con: sqlite3.Connection, sha: str, spec_sha: str, name: str) -> bool:
    """Whether the gradebook has a grade of these bytes under this name (a row is one
    student's: another name's row of the same bytes is not this student's grade)."""
    return con.execute("SELECT 1 FROM grades WHERE sha256=? AND submission=? AND spec_sha256=?",
                       (sha, name, spec_sha)).fetchone() is not None


def record(con: sqlite3.Connection, report: Report, spec_sha: str, *, name: str | None = None,
           sha: str | None = None) -> None:
    """Record a report (its JSON form, as --format json writes it) in the gradebook, keyed by
    `sha` and `name` (the batch's own reading of the submission; by default the report's)."""
    groups = {g.id: g.score for g in report.groups}
    with con:
        con.execute("INSERT OR REPLACE INTO grades VALUES (?,?,?,?,?,?,?,?,?)", (
            sha or report.sha256, spec_sha, name or report.submission, report.score,
            report.max_score, dumps(groups), dumps(report.to_dict()),
            time.strftime("%Y-%m-%dT%H:%M:%S"), report.execution_time))


def record_problem(con, name: str, sha: str | None, spec_sha: str, message: str) -> None:
    with con:
        con.execute("INSERT INTO problems VALUES (?,?,?,?,?)",
                    (inert(name), sha, spec_sha, inert(str(message))[:2000],
                     time.strftime("%Y-%m-%dT%H:%M:%S")))


# ----------------------------------------------------------------------------- one task
def grade_task(payload: dict) -> dict:
    """Grade one submission from plain data (runs in a pool process or on a Dask worker)."""
    from spec import SPEC_DIR, load_spec

    from .grading import grade

    sub = Submission(**payload["submission"])
    with tempfile.TemporaryDirectory(prefix="andrea-spec-") as tmp:
        bundled = SPEC_DIR / payload["spec_file"]
        if bundled.is_file() and bundled.read_text(encoding="utf-8") == payload["spec_text"]:
            spec = load_spec(bundled)   # the bundled spec: feedback names it, not a temp file
        else:
            spec_file = Path(tmp) / payload["spec_file"]
            spec_file.write_text(payload["spec_text"], encoding="utf-8")
            spec = load_spec(spec_file)
        try:
            report = grade(sub, spec, profile=payload["profile"],
                           limits=Limits(**payload["limits"]), sandbox=payload["sandbox"],
                           select=payload["select"])
        except GraderError as exc:
            return {"ok": False, "name": sub.name, "sha256": sub.sha256, "message": str(exc)}
    from graders.conformance import replay

    # how many properties this process replayed so far (0 where replay is off): for tests
    # and benchmarks, not recorded in the gradebook
    return {"ok": True, "report": report.to_dict(), "replayed": replay.KEPT.hits}


def _payload(sub: Submission, spec, profile, limits, sandbox, select) -> dict:
    return {
        "submission": {"name": sub.name, "files": sub.files, "module": sub.module,
                       "kind": sub.kind, "problem": sub.problem,
                       "problem_fields": sub.problem_fields, "source": sub.source,
                       "digest": sub.digest},
        "spec_text": Path(spec.path).read_text(encoding="utf-8"),
        "spec_file": Path(spec.path).name, "profile": profile, "limits": asdict(limits),
        "sandbox": sandbox, "select": select,
    }


# ----------------------------------------------------------------------------- executors
def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity; all of them where that is not
    known): one grading slot each. A slot is one grader process and its worker taking turns,
    so a slot keeps about one core busy."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _run_local(payloads, jobs, on_done, *, task=None, initializer=None):
    """Run `task` (default: grade_task) on each payload in a pool of `jobs` processes;
    on_done(payload, result) as each finishes (andrea-audit suite runs mutants with it)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx,
                             initializer=initializer or _pool_process) as pool:
        futures = {pool.submit(task or grade_task, p): p for p in payloads}
        try:
            for fut in as_completed(futures):
                on_done(futures[fut], _result(fut))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _pool_process() -> None:
    """A pool process grades submission after submission: it keeps the inputs each property
    drew for the first and replays them for the next (graders/conformance/replay.py)."""
    from graders.conformance import replay

    replay.enable()


def _run_dask(payloads, address, on_done, *, task=None):
    try:
        from distributed import Client, as_completed
    except ImportError as exc:
        raise BatchError(f"--scheduler needs dask.distributed ({exc})") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise BatchError(f"cannot reach the Dask scheduler at {address} ({exc})") from None
    try:
        futures = {}
        for p in payloads:
            f = client.submit(task or grade_task, p, pure=False)
            futures[f] = p
        for fut in as_completed(list(futures)):
            on_done(futures[fut], _result(fut))
    finally:
        client.close()


def _result(fut) -> dict:
    try:
        return fut.result()
    except Exception as exc:  # noqa: BLE001 - a grader process died: record, keep going
        return {"ok": False, "message": f"grader task failed: {type(exc).__name__}: {exc}"}


# ----------------------------------------------------------------------------- the batch
def run_batch(folder, spec, *, jobs: int = 1, db=None, regrade: bool = False, csv_path=None,
              histogram=None, scheduler=None, profile: str = "grading",
              limits: Limits | None = None, sandbox: str = "auto", lang: str = "en",
              select=None, progress: bool = True, feedback_dir=None,
              feedback_format: str = "md", report_dir=None,
              similarity_threshold: float = PAIR_THRESHOLD) -> str:
    """Grade every submission in `folder`; returns a one-paragraph summary.

    `feedback_dir`: one feedback file per student (in `lang`); `report_dir`: summary.html,
    scores.png, summary.txt and similarity.html (pairs flagged ``similar_to``).
    """
    limits = limits or Limits()
    try:   # a spec whose visibility would leak a later group: refused once, up front
        require_consistent_visibility(spec)
    except GraderError as exc:
        raise BatchError(str(exc)) from None
    if _ISOLATION.get(sandbox) == "container":
        raise BatchError(CONTAINER_BATCH_REFUSED)
    entries = discover(folder)
    if scheduler is None:  # local graders: refuse untrusted code once, up front (fail closed)
        try:
            choose_mode(sandbox, protect=[spec.path])
        except IsolationUnavailable as exc:
            raise BatchError(str(exc)) from None
    db = Path(db) if db else Path(folder).resolve().parent / "gradebook.sqlite"
    con = open_gradebook(db)
    spec_sha = gradebook_key(spec, profile, select, limits, sandbox)
    todo, skipped, names, problems = [], 0, [], 0
    sources: dict[str, list[tuple[str, str]]] = {}   # the Python files compared, by submission
    shown = shown_names(entries)
    for p in entries:
        try:
            if p.is_symlink():  # it would read whatever it points to, the reference included
                raise GraderError(f"{p.name}: a symbolic link; links in a batch folder are "
                                  "not followed")
            sub = load_submission(p)
            sub.name = shown[p]
        except GraderError as exc:
            record_problem(con, shown[p], None, spec_sha, printable_name(str(exc)))
            names.append((shown[p], None))
            problems += 1
            continue
        names.append((sub.name, sub.sha256))
        if sub.kind == "python" and sub.module:
            sources[sub.name] = python_parts(sub.files, sub.module, sub.entry)
        if not regrade and graded(con, sub.sha256, spec_sha, sub.name):
            skipped += 1
            continue
        todo.append(_payload(sub, spec, profile, limits, sandbox, select))

    done = over_budget = 0
    bar = ProgressBar(len(todo), progress)

    def on_done(payload, res):
        nonlocal done, problems, over_budget
        note = None
        report = None
        if res.get("ok"):   # a task's report comes as its JSON form (a Dask worker's too)
            try:
                report = Report.from_dict(res["report"])
            except ReportError as exc:
                res = {"ok": False, "sha256": payload["submission"].get("digest"),
                       "message": f"the grader task's report is malformed: {exc}"}
        sub = payload["submission"]
        if report is not None:
            record(con, report, spec_sha, name=sub["name"], sha=sub.get("digest"))
            done += 1
            left = report.not_run
            if left:
                over_budget += 1
                note = (f"used up its {limits.total_timeout:g} s budget: {len(left)} check(s) "
                        f"not run ({', '.join(left[:5])}{', ...' if len(left) > 5 else ''})")
        else:
            record_problem(con, sub["name"], sub.get("digest"), spec_sha, res.get("message", ""))
            problems += 1
        bar.advance(payload["submission"]["name"], note)

    start = time.monotonic()
    try:
        if todo:
            if scheduler:
                _run_dask(todo, scheduler, on_done)
            else:
                _run_local(todo, max(1, min(jobs, len(todo))), on_done)
    finally:
        bar.close()
    rows = scores(con, names, spec_sha, list(spec.groups))
    pairs = similar_pairs(sources, similarity_threshold)   # each file apart (fingerprints_of)
    _flag(rows, pairs)
    if csv_path:
        write_csv(csv_path, rows, list(spec.groups),
                  feedback=feedback_format if feedback_dir else None)
    if histogram:
        write_histogram(histogram, rows, spec, lang)
    if feedback_dir:
        write_feedback(feedback_dir, rows, lang, feedback_format)
    if report_dir:
        links = None
        if feedback_dir:   # each student's feedback file, relative to the report folder
            links = {name: os.path.relpath(Path(feedback_dir) / file, report_dir)
                     for name, file in feedback_files(rows, feedback_format).items()}
        write_summary(report_dir, rows, spec.title, pairs, lang, feedback=links)
        # the code as the figure read it: the page shows every line inert (report_pages)
        (Path(report_dir) / "similarity.html").write_text(
            similarity_html(pairs, sources, lang, references=reference_rows(rows),
                            tampered=tamper_rows(rows), threshold=similarity_threshold),
            encoding="utf-8")
    con.close()
    graded_scores = [r.score for r in rows if r.graded]
    mean = sum(graded_scores) / len(graded_scores) if graded_scores else 0.0
    budget = (f"{over_budget} used up their time budget (checks not run, listed in their "
              "reports); " if over_budget else "")
    return (f"graded {done}, skipped {skipped} already graded, {problems} problem(s); "
            f"{budget}{len(graded_scores)} of {len(entries)} submissions have a grade, mean "
            f"{mean:.2f}; {time.monotonic() - start:.1f} s; gradebook {db}")


def scores(con, names, spec_sha, group_ids) -> list[BatchRow]:
    """One row per submission: score, group scores, report, and why it has no grade or 0 (the
    one place a batch's rows are built from the gradebook)."""
    rows = []
    for name, sha in names:
        r = None
        if sha is not None:
            r = con.execute("SELECT score, max_score, groups, graded_at, report FROM grades "
                            "WHERE sha256=? AND submission=? AND spec_sha256=?",
                            (sha, name, spec_sha)).fetchone()
        if r is not None:
            groups = _row_json(r[2], name, sha, "groups")
            report = _row_report(r[4], name, sha)
            row = BatchRow(name, sha, score=r[0], max_score=r[1], graded_at=r[3], report=report,
                           groups={g: groups.get(g) for g in group_ids},
                           problem=problem_of(report), checks=check_columns(report),
                           flag_list=list(report.flags))
        else:
            # this student's problem with these bytes (none: that they could not be read),
            # not one of an earlier version of the file
            p = con.execute("SELECT message FROM problems WHERE submission=? AND spec_sha256=? "
                            "AND sha256 IS ? ORDER BY rowid DESC LIMIT 1",
                            (name, spec_sha, sha)).fetchone()
            row = BatchRow(name, sha, problem=problem_of(
                None, p[0].splitlines()[0][:200] if p and p[0] else None))
        rows.append(row)
    return rows


def _row_json(text, name: str, sha: str, column: str):
    """A JSON column of a gradebook row (BatchError naming the row if it is not JSON)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise BatchError(f"the gradebook's row of {name} (sha256 {sha[:12]}) is malformed: "
                         f"its {column} is not JSON ({exc}); grade it again with --regrade") \
            from None
    if column == "groups" and not isinstance(value, dict):
        raise BatchError(f"the gradebook's row of {name} (sha256 {sha[:12]}) is malformed: "
                         "its groups are not an object; grade it again with --regrade")
    return value


def _row_report(text, name: str, sha: str) -> Report:
    """The report of a gradebook row (BatchError naming the row and the field if it is
    malformed: a row edited by hand, or written by another version of the grader)."""
    try:
        return Report.from_dict(_row_json(text, name, sha, "report"))
    except ReportError as exc:
        raise BatchError(f"the gradebook's row of {name} (sha256 {sha[:12]}) is malformed: "
                         f"{exc}; grade it again with --regrade") from None


#: ``similar_to`` flags listed on one row (its most similar others first); the rest are counted
#: in one ``similar_to_more`` flag (300 identical files made every row name the 299 others: a
#: 6 MB CSV and a 9.5 MB summary.html; similarity.html lists every pair up to its own cap)
MAX_SIMILAR_FLAGS = 10


def _flag(rows: list[BatchRow], pairs) -> None:
    """Add ``similar_to`` flags (both ways; at most MAX_SIMILAR_FLAGS a row, then a count)
    and the CSV's one-cell summary of the flags. `pairs` come most similar first."""
    by_name = {r.submission: r for r in rows}
    listed: dict[str, int] = {}
    more: dict[str, int] = {}
    for a, b, sim in pairs:
        for me, other in ((a, b), (b, a)):
            if me not in by_name:
                continue
            if listed.get(me, 0) >= MAX_SIMILAR_FLAGS:
                more[me] = more.get(me, 0) + 1
                continue
            listed[me] = listed.get(me, 0) + 1
            by_name[me].flag_list.append(Flag("similar_to", {
                "kind": "similar_to", "other": other, "similarity": sim,
                "message": f"{sim:.0%} of the smaller file's code fingerprints are shared "
                           f"with {other}"}))
    for me, n in more.items():
        by_name[me].flag_list.append(Flag("similar_to_more", {
            "kind": "similar_to_more", "count": n,
            "message": f"{n} more submissions are similar to this one (similarity.html)"}))
    for r in rows:
        r.flags = "; ".join(_flag_cell(f) for f in r.flag_list)


def _flag_cell(f: Flag) -> str:
    """One flag in the CSV's flags cell: its kind and figure (a reach into the grader: how many
    places, and the first one). A flag's own fields are JSON data, by its kind."""
    if f.kind == "similar_to":
        return f"{f.kind} {f.data['other']} {f.similarity:.2f}"
    if f.kind == "similar_to_more":
        return f"{f.kind} {f.data.get('count', 0)}"
    if f.kind == "grader_tamper":
        places = f.data.get("places")
        first = places[0] if isinstance(places, list) and places and \
            isinstance(places[0], dict) else {}
        at = f"{first.get('file', '?')}:{first.get('line', '?')}"
        return f"{f.kind} {f.data.get('count', 0)} ({', '.join(f.data.get('rules') or [])}; {at})"
    return f"{f.kind} {f.similarity or 0:.2f}"


# A spreadsheet treats a cell starting with one of these as a formula (CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A value safe for a spreadsheet: text that could start a formula gets a leading ', and
    control characters are shown as escapes; numbers stay numbers."""
    if not isinstance(value, str):
        return value
    from .formats import inert

    text = inert(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def write_csv(path, rows: list[BatchRow], group_ids, feedback: str | None = None) -> None:
    """One row per submission; with `feedback` (the feedback files' format), a column
    ``feedback`` naming each submission's feedback file."""
    check_ids: list[str] = []
    for r in rows:
        for c in r.checks:
            if c not in check_ids:
                check_ids.append(c)
    cols = ["submission", *(["feedback"] if feedback else []), "score", "max_score",
            *group_ids, "problem", "flags", *check_ids, "sha256", "graded_at"]
    files = feedback_files(rows, feedback) if feedback else {}
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            cells = {"submission": r.submission, "sha256": r.sha256, "score": r.score,
                     "max_score": r.max_score, "graded_at": r.graded_at, **r.groups,
                     "problem": r.problem, "flags": r.flags, **r.checks}
            if feedback:
                cells["feedback"] = files[r.submission]
            w.writerow({k: csv_cell(v) for k, v in cells.items()})


def write_histogram(path, rows: list[BatchRow], spec, lang: str = "en") -> None:
    """PNG histogram of the scores; full marks have a bin of their own."""
    vals = [r.score for r in rows if r.graded]
    top = max([r.max_score for r in rows if r.max_score] or [100])
    write_histogram_png(path, vals, top, spec.title, lang)


class ProgressBar:
    """A rich progress bar (or nothing when disabled or not a terminal)."""

    def __init__(self, total: int, enabled: bool):
        self.p = None
        if enabled and total:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn)

            self.p = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(),
                              TimeElapsedColumn(), TextColumn("{task.description}",
                                                              markup=False))
            self.p.start()
            self.task = self.p.add_task("", total=total)

    def advance(self, name: str, note: str | None = None) -> None:
        """One more submission done; a `note` (it used up its time budget) stays on screen
        above the bar."""
        if self.p is not None:
            from .formats import inert

            if note:
                self.p.console.print(f"{inert(name)}: {note}", markup=False, highlight=False)
            self.p.update(self.task, advance=1, description=inert(name))

    def close(self) -> None:
        if self.p is not None:
            self.p.stop()
