"""What a batch hands the teacher and the students, built from the gradebook's reports.

* ``write_feedback``: one file per student (Markdown or HTML, in the batch's language),
  named after the submission (``feedback_files``): the score, the groups a student may see,
  the feedback of every check that did not pass (hidden groups left out), the notebook
  notes. No flags, no tool internals.
* ``class_summary.problem_of`` (its own module: the HTML pages read it too): one short
  reason why a submission has no grade or scores 0 (the CSV's ``problem`` column).
* ``check_columns``: the status of every check (passed / failed / error / skipped / not_run).
* ``summary``: the checks failed most often (how many students, the most common message),
  the score distribution as a PNG histogram whose top bin holds only full marks, a text
  report, and summary.html (a sortable table of students; report_pages.py).
* ``similarity_html``: the pairs of submissions flagged ``similar_to`` side by side, their
  shared fragments highlighted, the submissions flagged ``reference_copy``, and those
  flagged ``grader_tamper`` with each place (report_pages.py).

The HTML pages are written by report_pages.py from Jinja2 templates (autoescaped).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from graders.conformance.outcome import Status

from . import messages as M
from .class_summary import failed_checks, histogram_bins, problem_label
from .formats import _num, check_parts, group_status, import_hint, parts_text, report_notes
from .i18n import Translator
from .report import BatchRow, Report

# ----------------------------------------------------------------------------- per student
def check_columns(report: Report | None) -> dict[str, str]:
    return {} if report is None else {c.id: str(c.status) for c in report.checks}


class _Said(str):
    """A line of feedback that holds the submission's own words (a file name, a cell's message,
    a dropped notebook line): inert in Markdown (its markup characters backslash-escaped)."""


class _Block(str):
    """A fenced block of feedback: verbatim, in a fence no line inside it can close."""


# What Markdown (CommonMark, GitHub's raw HTML) would read as markup or HTML inside a line that
# starts with the kit's own words; any ASCII punctuation may be backslash-escaped.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>&~|])")
_BACKTICKS = re.compile(r"`+")


def _md_inline(text: str) -> str:
    """One line of the submission's words, inert in Markdown: markup characters escaped, and a
    line break (a file name may hold one) shown as \\n instead of starting a new line."""
    return _MD_INLINE.sub(r"\\\1", text).replace("\r", "\\r").replace("\n", "\\n")


def _md_block(text: str) -> str:
    """`text` in a code fence longer than its longest run of backticks (CommonMark: only a fence
    at least as long closes it), so a message holding ``` cannot end the block and write
    Markdown, a forged score line or HTML after it."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def feedback_model(report: Report | None, lang: str, name: str = "") -> dict:
    """What a student's feedback file says, in `lang`, whatever its format: the score (left
    out when some group is hidden: it would tell about them), the groups a student may see, why
    the import failed, notebook notes, and per check that did not pass its items
    (formats.check_parts). Both formats are written from this one model."""
    t = Translator(lang)
    if report is None:
        return {"name": name, "failed": t(M.AUTOGRADER_FAILED)}
    sections = report.sections
    hidden = {g.id for g in report.groups if g.visibility == "hidden"}
    # the total would tell about the hidden groups: then it is not shown
    total = (t(M.SCORE_HIDDEN) if hidden else
             t(M.TOTAL_SCORE, score=_num(report.score), max_score=_num(report.max_score)))
    imp = report.import_outcome
    model = {
        "name": name or report.submission, "failed": "", "total": total,
        "groups": [f"{t(g.title)}: {t.number(_num(g.score))} / {t.number(_num(g.points))} "
                   f"({group_status(g, t)})" for g in report.groups if g.id not in hidden],
        "hidden": t(M.HIDDEN_GROUPS, n=len(hidden)) if hidden else "",
        "import_failed": "", "import_detail": "", "import_hint": "", "checks": [],
        "notes": report_notes(report, t)}
    if not imp.ok:
        model.update(import_failed=t(M.IMPORT_FAILED),
                     import_detail=M.import_detail(imp, t, kernel=report.kernel),
                     import_hint=t(import_hint(report)))
    for c in report.checks:
        if c.status in (Status.PASSED, Status.SKIPPED) or c.visibility == "hidden":
            continue
        if c.status == Status.NOT_RUN and not imp.ok:
            continue  # said once above
        model["checks"].append({"number": c.number, "id": c.id,
                                "clauses": ", ".join(c.clauses),
                                "parts": check_parts(c, t, sections)})
    return model


def feedback_text(report: Report | None, lang: str, fmt: str = "md", name: str = "") -> str:
    """A student's feedback file (Markdown or HTML), from :func:`feedback_model`."""
    model = feedback_model(report, lang, name)
    if fmt == "html":
        from .report_pages import feedback_page

        return feedback_page(model, lang)
    if model["failed"]:
        return _as(fmt, [_Said(f"# {model['name']}"), "", model["failed"]], name)
    lines: list[str] = [_Said(f"# {model['name']}"), "", "**" + model["total"] + "**", ""]
    lines += [f"- {g}" for g in model["groups"]]
    if model["hidden"]:
        lines.append(model["hidden"])
    if model["import_failed"]:
        lines += ["", model["import_failed"], "", _Block(model["import_detail"]), "",
                  model["import_hint"]]
    for note in model["notes"]:
        lines += ["", _Said(note)]
    for c in model["checks"]:
        lines += ["", f"## {c['number']} {c['id']} ({c['clauses']})", "",
                  _Block(parts_text(c["parts"]))]
    return _as(fmt, lines, name)


def _as(fmt: str, lines: list[str], title: str) -> str:
    return "\n".join(_md_block(line) if isinstance(line, _Block)
                     else _md_inline(line) if isinstance(line, _Said)
                     else line for line in lines) + "\n"


_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,149}")


#: The files `--report-dir` gets (write_summary, batch.run_batch): a feedback file never takes
#: one of these names, so a teacher may give both options one folder (a student folder named
#: ``summary`` got ``summary.html``, and the class summary, every student's score and flags,
#: went out as that student's feedback).
REPORT_FILES = ("summary.html", "summary.txt", "scores.png", "similarity.html")


def safe_name(name: str, *, plain: bool = True) -> str:
    """The stem of a submission's feedback file: one for each name, never another's.

    A name of lower-case letters, digits, ``.``, ``_`` and ``-`` (not starting with a dot or a
    dash) is its own stem (``alice.py``); any other name gets its characters outside that set
    replaced by ``_`` and ``~`` with ten hex digits of its SHA-256 after it (``" bob.py"`` ->
    ``bob.py~3f2a...``). A plain stem never holds ``~`` and differs from every other plain stem
    in more than case, so no two names share a file, even on a file system that ignores case
    (a leading space took bob's file, and bob's went to ``bob.py-2.md``). `plain=False`: the
    second form for every name."""
    if plain and _PLAIN_NAME.fullmatch(name):
        return name
    import hashlib

    shown = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip("._-")[:100] or "submission"
    return f"{shown}~{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def feedback_file(name: str, fmt: str = "md") -> str:
    """The file name of a submission's feedback (see safe_name); never one of REPORT_FILES
    (``summary`` -> ``summary~8b1a9953c4.html``)."""
    file = f"{safe_name(name)}.{fmt}"
    if file.lower() in REPORT_FILES:
        file = f"{safe_name(name, plain=False)}.{fmt}"
    return file


def feedback_files(rows: list[BatchRow], fmt: str = "md") -> dict[str, str]:
    """submission -> the name of its feedback file (feedback_file: one per name, never
    another's, compared without case too)."""
    out: dict[str, str] = {}
    used: dict[str, str] = {}
    for r in rows:
        file = feedback_file(r.submission, fmt)
        if used.setdefault(file.lower(), r.submission) != r.submission:
            raise RuntimeError(f"two submissions with one feedback file: {file}")  # cannot be
        out[r.submission] = file
    return out


def write_feedback(folder: str | Path, rows: list[BatchRow], lang: str, fmt: str = "md") -> int:
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    names = feedback_files(rows, fmt)
    for r in rows:
        (d / names[r.submission]).write_text(
            feedback_text(r.report, lang, fmt, r.submission), encoding="utf-8")
    return len(rows)


# ----------------------------------------------------------------------------- summary
def _font_families(text: str) -> list[str] | None:
    """Installed font families that together draw every character of `text` (DejaVu Sans,
    matplotlib's own, first), or None when some character has no font here."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    need = {ord(ch) for ch in text if not ch.isspace()}
    families: list[str] = []
    fonts = sorted(font_manager.fontManager.ttflist, key=lambda f: f.name != "DejaVu Sans")
    for f in fonts:
        if not need:
            break
        try:
            have = set(FT2Font(f.fname).get_charmap())
        except (OSError, RuntimeError, ValueError):
            continue
        if need & have:
            need -= have
            if f.name not in families:
                families.append(f.name)
    return None if need else families


def write_histogram_png(path, scores: list[float], top: float, spec_title: str,
                        lang: str = "en") -> None:
    """The score histogram, labelled in `lang`; in English where no installed font draws
    that language's script (Korean needs a Hangul font such as fonts-nanum)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    def labels(t):
        return (histogram_bins(scores, top, t=t), t(M.HISTOGRAM_X, top=_num(top)),
                t(M.HISTOGRAM_Y), t(M.HISTOGRAM_TITLE, title=spec_title, n=len(scores)))

    bins, xlabel, ylabel, title = labels(Translator(lang))
    families = _font_families("".join([xlabel, ylabel, title] + [lbl for lbl, _ in bins]))
    if families is None:
        bins, xlabel, ylabel, title = labels(Translator("en"))
        families = ["DejaVu Sans"]
    with matplotlib.rc_context({"font.family": families}):
        fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
        colors = ["#3b6ea8"] * (len(bins) - 1) + ["#2e8b57"]
        ax.bar(range(len(bins)), [c for _, c in bins], color=colors, edgecolor="white")
        ax.set_xticks(range(len(bins)), [lbl for lbl, _ in bins], rotation=35, ha="right",
                      fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path, format="png")
        plt.close(fig)


def summary_text(rows: list[BatchRow], spec_title: str, lang: str = "en") -> str:
    """The batch's summary as text, in the teacher's language (the batch's --lang); check ids
    and the CSV's problem codes stay as the CSV has them."""
    t = Translator(lang)
    graded = [r for r in rows if r.graded]
    top = max([r.max_score for r in graded if r.max_score] or [100])
    lines = [t(M.SUMMARY_COUNTS, title=spec_title, n=len(rows), graded=len(graded))]
    if graded:
        sc = sorted(r.score for r in graded)
        lines.append(t(M.SUMMARY_STATS, mean=float(sum(sc) / len(sc)),
                       median=float(sc[len(sc) // 2]), full=sum(s >= top for s in sc),
                       zero=sum(s == 0 for s in sc)))
    lines += ["", t(M.SUMMARY_HISTOGRAM)]
    for label, count in histogram_bins([r.score for r in graded], top, t=t):
        lines.append(f"  {label:>16}  {count:4d}  {'#' * count}")
    problems = Counter(r.problem for r in rows if r.problem)
    if problems:
        lines += ["", t(M.SUMMARY_PROBLEMS)]
        lines += [f"  {n:4d}  {problem_label(p, t)}" for p, n in problems.most_common()]
    fails = failed_checks(rows, t)
    lines += ["", t(M.SUMMARY_FAILED),
              f"  {t(M.SUMMARY_CHECK):36} {t(M.SUMMARY_STUDENTS):>8}  {t(M.SUMMARY_MESSAGE)}"]
    for e in fails[:25]:
        lines.append(f"  {e['check']:36} {e['students']:8d}  ({e['message_students']}x) "
                     f"{e['message'][:120]}")
    if not fails:
        lines.append("  " + t(M.SUMMARY_NONE))
    return "\n".join(lines) + "\n"


def write_summary(folder: str | Path, rows: list[BatchRow], spec_title: str,
                  pairs: list[tuple[str, str, float]], lang: str = "en",
                  feedback: dict[str, str] | None = None) -> list[Path]:
    """summary.html (report_pages.summary_page; `feedback`: submission -> link to its
    feedback file, relative to `folder`), scores.png and summary.txt in `folder`."""
    from .report_pages import summary_page

    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    graded = [r for r in rows if r.graded]
    top = max([r.max_score for r in graded if r.max_score] or [100])
    png = d / "scores.png"
    write_histogram_png(png, [r.score for r in graded], top, spec_title, lang)
    (d / "summary.txt").write_text(summary_text(rows, spec_title, lang), encoding="utf-8")
    (d / "summary.html").write_text(summary_page(rows, spec_title, pairs, lang, feedback),
                                    encoding="utf-8")
    return [d / "summary.html", png, d / "summary.txt"]


def similarity_html(pairs: list[tuple[str, str, float]], texts: dict, lang: str = "en", *,
                    references: list[tuple[str, float]] = (),
                    tampered: list[tuple[str, dict]] = (),
                    threshold: float | None = None) -> str:
    """similarity.html (report_pages.similarity_page): `texts`, submission -> its compared
    Python text or [(file, text)]; `references`, (submission, figure) flagged as copies of
    the reference; `tampered`, (submission, flag) whose source reaches into the grader."""
    from .report_pages import similarity_page
    from .similarity import PAIR_THRESHOLD

    return similarity_page(pairs, texts, lang, references=references, tampered=tampered,
                           threshold=PAIR_THRESHOLD if threshold is None else threshold)
