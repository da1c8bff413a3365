"""The batch's HTML pages: ``summary.html`` and ``similarity.html`` for the teacher, and the
students' HTML feedback (``--feedback-format html``).

Each page is one self-contained file: inline CSS, inline SVG and a few lines of inline script
(sorting a table by a column); nothing is loaded from elsewhere, no font is needed. Pages are
written from Jinja2 templates (``templates/*.html``) with autoescaping on, and every value a
template prints is first made inert (``formats.inert``: control characters, ANSI escapes and
bidi overrides shown as visible escapes). Each page also declares a Content-Security-Policy
that loads nothing and runs only the page's own script (named by its hash), so a name or a
message that got through as markup still could not run or fetch anything.

Every sentence comes from the catalogs (``messages.py``), in the batch's language.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from . import messages as M
from .class_summary import failed_checks, histogram_bins, problem_label
from .formats import _num, inert, tamper_place
from .i18n import Translator
from .report import BatchRow
from .similarity import (K, PAIR_THRESHOLD, REFERENCE_THRESHOLD, common_fingerprints,
                         file_fragments, reference_fragments)

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_PAIRS = 100          # pairs shown in full (about 0.1 MB a pair of 250-line files); the CSV
                         # lists every pair
MAX_LINES = 3000         # lines of one submission shown beside another
MAX_LINE_CHARS = 400     # characters of one line shown (a 5 MiB one-line file)
PAGE_ROWS = 12_000       # lines of code on one page, all sides together (each output < 5 MB)
PAGE_CHARS = 2_000_000   # characters of code on one page, all sides together
MAX_FAILED = 25          # rows of "checks failed most often"

# Fragment colours: a light background for the code, a stronger edge beside the line number.
COLOURS = (("#ffe08a", "#d9a400"), ("#b9e4ff", "#2f8fd0"), ("#c8f0c0", "#3c9a32"),
           ("#ffc9d6", "#d0507a"), ("#e2d2ff", "#7b52c7"), ("#ffd3a8", "#d97a1c"),
           ("#c4f1ea", "#23998a"), ("#e8e0c8", "#8c7a45"))

# Sorts a table.sortable by the column whose heading button was clicked: by each cell's
# data-sort, as numbers where both are numbers, else as text in the page's language.
SORT_SCRIPT = """
(function () {
  var lang = document.documentElement.lang;
  function key(row, col) { return row.cells[col].getAttribute('data-sort') || ''; }
  function compare(a, b) {
    var x = parseFloat(a), y = parseFloat(b);
    if (!isNaN(x) && !isNaN(y)) { return x - y; }
    if (isNaN(x) !== isNaN(y)) { return isNaN(x) ? 1 : -1; }
    return a.localeCompare(b, lang);
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector('button');
      if (!button) { return; }
      button.addEventListener('click', function () {
        var up = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(key(r1, col), key(r2, col));
          return up ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
"""


def csp(script: str | None) -> str:
    """The pages' Content-Security-Policy: nothing loaded from anywhere (images only as data:
    URLs), inline style, and no script but `script` (by its SHA-256)."""
    src = "'none'"
    if script:
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        src = f"'sha256-{digest}'"
    return (f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src {src}; "
            "base-uri 'none'; form-action 'none'")


def _inert(value):
    from markupsafe import Markup

    if isinstance(value, str) and not isinstance(value, Markup):
        return inert(value)
    return value


@lru_cache(maxsize=1)
def _env():
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                              undefined=jinja2.StrictUndefined, finalize=_inert,
                              trim_blocks=True, lstrip_blocks=True)


def _render(template: str, lang: str, title: str, script: str | None = SORT_SCRIPT,
            **context) -> str:
    from markupsafe import Markup

    return _env().get_template(template).render(
        lang=lang, title=title, csp=csp(script), script=Markup(script) if script else None,
        **context)


def href(path: str) -> str:
    """A relative link to a file the batch wrote (its name percent-encoded)."""
    return quote(path.replace("\\", "/"), safe="/")


def _pct(t: Translator, share: float) -> str:
    return t("{share:.0%}", share=share)


# ----------------------------------------------------------------------------- anchors
def pair_id(i: int) -> str:
    return f"pair-{i + 1}"


def reference_id(i: int) -> str:
    return f"ref-{i + 1}"


def reference_rows(rows: list[BatchRow]) -> list[tuple[str, float]]:
    """(submission, figure) of the rows flagged ``reference_copy``, in the rows' order: the
    order both pages number them in."""
    out = []
    for r in rows:
        for f in r.flag_list:
            if f.kind == "reference_copy":
                out.append((r.submission, float(f.similarity or 0)))
                break
    return out


def tamper_id(i: int) -> str:
    return f"tamper-{i + 1}"


def tamper_rows(rows: list[BatchRow]) -> list[tuple[str, dict]]:
    """(submission, flag) of the rows flagged ``grader_tamper`` (their source reaches into the
    grader: graders/grade/tamper.py), in the rows' order: the order both pages number them in."""
    out = []
    for r in rows:
        for f in r.flag_list:
            if f.kind == "grader_tamper":
                out.append((r.submission, f.to_dict()))
                break
    return out


# ----------------------------------------------------------------------------- summary.html
def _histogram(bins: list[tuple[str, int]], t: Translator, top: float, n: int) -> dict:
    width, height, left, base = 640, 290, 44, 200
    peak = max([c for _, c in bins] + [1])
    step = max(1, -(-peak // 5))
    ticks = [{"y": base - round(v / peak * (base - 16)), "label": str(v)}
             for v in range(0, peak + 1, step)]
    slot = (width - left - 8) / len(bins)
    bars = []
    for i, (label, count) in enumerate(bins):
        h = round(count / peak * (base - 16))
        x = left + i * slot + 3
        bars.append({"x": round(x, 1), "y": base - h, "w": round(slot - 6, 1), "h": h,
                     "cx": round(x + (slot - 6) / 2, 1), "label": label, "count": count,
                     "colour": "#2e8b57" if i == len(bins) - 1 else "#3b6ea8"})
    return {"width": width, "height": height, "left": left, "base": base, "ticks": ticks,
            "bars": bars, "alt": t(M.HISTOGRAM_ALT), "xlabel": t(M.HISTOGRAM_X, top=_num(top)),
            "ylabel": t(M.HISTOGRAM_Y)}


def _group_columns(rows: list[BatchRow], t: Translator) -> list[dict]:
    """The rubric's groups that carry points, in the reports' order."""
    seen: dict[str, dict] = {}
    for r in rows:
        for g in (r.report.groups if r.report is not None else ()):
            if g.id not in seen and g.points:
                seen[g.id] = {"id": g.id, "title": t(g.title), "points": g.points}
    return list(seen.values())


def summary_page(rows: list[BatchRow], spec_title: str, pairs: list[tuple[str, str, float]],
                 lang: str = "en", feedback: dict[str, str] | None = None) -> str:
    """summary.html: counts, the score histogram, why submissions have no grade, the checks
    failed most often, a sortable table of students (score, group scores, problem, flags, a
    link to their feedback file, `feedback`: submission -> relative link) and the similar
    pairs, with links into similarity.html."""

    t = Translator(lang)
    graded = [r for r in rows if r.graded]
    top = max([r.max_score for r in graded if r.max_score] or [100])
    stats = ""
    if graded:
        sc = sorted(r.score for r in graded)
        stats = t(M.SUMMARY_STATS, mean=float(sum(sc) / len(sc)), median=float(sc[len(sc) // 2]),
                  full=sum(s >= top for s in sc), zero=sum(s == 0 for s in sc))
    groups = _group_columns(rows, t)
    row_id = {r.submission: f"s-{i + 1}" for i, r in enumerate(rows)}
    pair_index = {tuple(sorted((a, b))): i for i, (a, b, _) in enumerate(pairs[:MAX_PAIRS])}
    ref_index = {name: i for i, (name, _) in enumerate(reference_rows(rows)[:MAX_PAIRS])}
    tamper_index = {name: i for i, (name, _) in enumerate(tamper_rows(rows)[:MAX_PAIRS])}
    students = []
    for r in rows:
        by_group = {g.id: g for g in (r.report.groups if r.report is not None else ())}
        cells = []
        for g in groups:
            got = by_group[g["id"]].score if g["id"] in by_group else r.groups.get(g["id"])
            cells.append({"text": "" if got is None else f"{_num(got)}",
                          "sort": "" if got is None else got})
        flags = []
        for f in r.flag_list:
            if f.kind == "reference_copy":
                flags.append({"label": t(M.REPORT_FLAG_REFERENCE,
                                         share=float(f.similarity or 0)),
                              "href": f"similarity.html#{reference_id(ref_index[r.submission])}"
                              if r.submission in ref_index else "similarity.html"})
            elif f.kind == "grader_tamper":
                flags.append({"label": t(M.REPORT_FLAG_TAMPER, n=int(f.data.get("count", 0))),
                              "href": f"similarity.html#{tamper_id(tamper_index[r.submission])}"
                              if r.submission in tamper_index else "similarity.html"})
            elif f.kind == "similar_to":
                other = str(f.data.get("other", ""))
                key = tuple(sorted((r.submission, other)))
                i = pair_index.get(key)
                flags.append({"label": t(M.REPORT_FLAG_SIMILAR, share=float(f.similarity or 0),
                                         other=other),
                              "href": "similarity.html" + (f"#{pair_id(i)}" if i is not None
                                                           else "")})
            elif f.kind == "similar_to_more":
                flags.append({"label": t(M.REPORT_FLAG_SIMILAR_MORE,
                                         n=int(f.data.get("count", 0))),
                              "href": "similarity.html"})
        score = r.score
        students.append({
            "id": row_id[r.submission], "name": r.submission,
            "score": t(M.REPORT_NOT_GRADED) if score is None
            else f"{_num(score)} / {_num(r.max_score or 0)}",
            "score_sort": "" if score is None else score, "groups": cells,
            "problem": problem_label(r.problem, t) if r.problem else "",
            "flags": flags, "flag_sort": len(flags) or "",
            "feedback": href(feedback[r.submission])
            if feedback and r.submission in feedback else None})
    def mean(values: list[float]) -> str:   # a mean over the graded, in the reader's locale
        return t("{value:.2f}", value=sum(values) / len(values)) if values else ""

    by_id = [{g.id: g.score for g in (r.report.groups if r.report is not None else ())}
             for r in graded]
    means = {"score": mean([r.score for r in graded]),
             "groups": [mean([b[g["id"]] for b in by_id if g["id"] in b]) for g in groups]}
    fails = failed_checks(rows, t)[:MAX_FAILED]
    most = max([e["students"] for e in fails] + [1])
    problems = Counter(r.problem for r in rows if r.problem)
    labels = {
        "scores": t(M.REPORT_SCORES), "problems": t(M.REPORT_PROBLEMS), "none": t(M.SUMMARY_NONE),
        "failed": t(M.SUMMARY_FAILED_TITLE), "check": t(M.SUMMARY_CHECK),
        "clauses": t(M.SUMMARY_CLAUSES), "students": t(M.SUMMARY_STUDENTS),
        "message": t(M.SUMMARY_MESSAGE), "students_title": t(M.REPORT_STUDENTS),
        "sort_hint": t(M.REPORT_SORT_HINT), "submission": t(M.REPORT_SUBMISSION),
        "score": t(M.REPORT_SCORE), "problem": t(M.REPORT_PROBLEM), "flags": t(M.REPORT_FLAGS),
        "open_feedback": t(M.REPORT_OPEN_FEEDBACK), "mean": t(M.REPORT_MEAN),
        "names_link": t(M.REPORT_NAMES_LINK),
        "similar": t(M.SIMILAR_TITLE), "pairs_count": t(M.SUMMARY_PAIRS, n=len(pairs)),
        "similarity_report": t(M.SUMMARY_SIMILARITY), "similarity": t(M.REPORT_SIMILARITY),
        "compare": t(M.REPORT_COMPARE), "no_pair": t(M.SIMILAR_NONE)}
    return _render(
        "summary.html", lang, t(M.SUMMARY_TITLE, title=spec_title), t=labels,
        counts=t(M.SUMMARY_COUNTS, title=spec_title, n=len(rows), graded=len(graded)),
        stats=stats,
        hist=_histogram(histogram_bins([r.score for r in graded], top, t=t), t, top,
                        len(graded)),
        problems=[{"n": n, "label": problem_label(p, t)} for p, n in problems.most_common()],
        fails=[{"check": e["check"], "clauses": ", ".join(e["clauses"]),
                "students": e["students"], "width": max(2, round(e["students"] / most * 120)),
                "message": e["message"],
                "message_students": t(M.REPORT_MESSAGE_STUDENTS, n=e["message_students"])}
               for e in fails],
        groups=groups, students=students, with_feedback=feedback is not None, mean=means,
        pairs=[{"a": a, "b": b, "sim": sim, "share": _pct(t, sim), "a_row": row_id.get(a, ""),
                "b_row": row_id.get(b, ""), "href": f"similarity.html#{pair_id(i)}"}
               for i, (a, b, sim) in enumerate(pairs[:MAX_PAIRS])],
        more_pairs=t(M.REPORT_MORE_PAIRS, n=len(pairs) - MAX_PAIRS)
        if len(pairs) > MAX_PAIRS else "")


# ----------------------------------------------------------------------------- similarity.html
def _parts(source) -> list[tuple[str, str]]:
    if isinstance(source, str):
        return [("", source)] if source else []
    return list(source or [])


def _starts(parts: list[tuple[str, str]]) -> dict[str, int]:
    """file -> the line its first line is in the page's numbering of the submission's lines
    (its files one after the other, as _side lays them out)."""
    out, at = {}, 1
    for name, text in parts:
        out[name] = at
        at += text.count("\n") + 1
    return out


def _label(t: Translator, parts, file: str, first: int, last: int) -> str:
    if len(parts) > 1:
        return t(M.SIMILAR_LINES_IN, file=file, first=first, last=last)
    return t(M.SIMILAR_LINES, first=first, last=last)


def _shown(parts, max_rows: int = MAX_LINES, max_chars: int = PAGE_CHARS):
    """(file, line in the file, line in the page's numbering, text) of each line shown of a
    submission: at most `max_rows` lines and `max_chars` characters of code (a line is cut
    at MAX_LINE_CHARS or the rest of the budget), so a page stays under 5 MB whatever the
    files hold."""
    at, shown = 1, 0
    for file, text in parts:
        lines = text.split("\n")
        for n, line in enumerate(lines, 1):
            if shown >= max_rows or max_chars <= 0:
                return
            line = line.removesuffix("\r")
            if len(line) > min(max_chars, MAX_LINE_CHARS):
                line = line[:min(max_chars, MAX_LINE_CHARS)] + " \u2026"
            max_chars -= len(line)
            shown += 1
            yield file, n, at + n - 1, line
        at += len(lines)


def _last_shown(parts, **budget) -> int:
    """The page's number of the last line shown (0 for none)."""
    last = 0
    for _, _, last, _ in _shown(parts, **budget):
        pass
    return last


def _side(t: Translator, name: str, parts, marks: list[tuple[int, int, int, str, str]],
          **budget) -> dict:
    """One submission's code with line numbers (_shown): `marks` (first, last, fragment
    number, own anchor, the other side's anchor) colours lines and links each to the other
    side."""
    colour: dict[int, tuple[int, str, int]] = {}
    anchors: dict[int, list[str]] = {}
    for first, last, k, own, other in marks:
        anchors.setdefault(first, []).append(own)
        for line in range(first, last + 1):
            colour.setdefault(line, ((k - 1) % len(COLOURS), other, k))
    out: list[dict] = []
    shown = 0
    for file, n, at, line in _shown(parts, **budget):
        if not out or out[-1]["file"] != file:
            out.append({"file": file, "lines": []})
        c, own = colour.get(at), anchors.get(at, [])
        out[-1]["lines"].append({
            "n": n, "text": line, "anchors": own, "colour": c[0] if c else None,
            "href": c[1] if c else None,
            # the fragment's name on its first line only (pages stay small)
            "title": t(M.SIMILAR_FRAGMENT, n=c[2]) if c and own else ""})
        shown += 1
    total = sum(text.count("\n") + 1 for _, text in parts)
    return {"name": name, "parts": out, "files": _files(t, parts),
            "cut": t(M.SIMILAR_CUT, n=shown) if total > shown else ""}


def _files(t: Translator, parts) -> str:
    if not parts:
        return t(M.SIMILAR_NO_PYTHON)
    return t(M.SIMILAR_FILES, files=", ".join(f for f, _ in parts if f) or "-")


def similarity_page(pairs: list[tuple[str, str, float]], sources: dict, lang: str = "en", *,
                    references: list[tuple[str, float]] = (),
                    tampered: list[tuple[str, dict]] = (),
                    threshold: float = PAIR_THRESHOLD) -> str:
    """similarity.html: a sortable list of the similar pairs, then per pair the two
    submissions side by side with line numbers, the fragments they share highlighted in the
    same colour on both sides (a click on a line number jumps to the other side), the figure
    and what was compared; then the submissions flagged as copies of the reference
    (`references`: (submission, figure)), their fragments naming the reference's file and
    lines; then the submissions whose source reaches into the grader (`tampered`:
    (submission, its ``grader_tamper`` flag)), each place with its file, line and code.
    `sources`: submission -> [(file, text)] (or its joined text), every submission of the
    batch (the boilerplate they share is not highlighted)."""
    t = Translator(lang)
    parts = {name: _parts(src) for name, src in sources.items()}
    # the boilerplate similar_pairs sets aside (each file's fingerprints apart)
    common = common_fingerprints(parts) if pairs else frozenset()
    shown = []
    references = list(references)[:MAX_PAIRS]
    sides = 2 * len(pairs[:MAX_PAIRS]) + len(references) or 1
    budget = {"max_rows": max(20, min(MAX_LINES, PAGE_ROWS // sides)),
              "max_chars": max(2000, PAGE_CHARS // sides)}
    max_frags = max(5, PAGE_ROWS // sides)   # fragments listed per pair or reference
    for i, (a, b, sim) in enumerate(pairs[:MAX_PAIRS]):
        pid = pair_id(i)
        pa, pb = parts.get(a, []), parts.get(b, [])
        sa, sb = _starts(pa), _starts(pb)
        # a fragment is listed when its first line is shown on both sides (its anchors exist)
        va, vb = _last_shown(pa, **budget), _last_shown(pb, **budget)
        rows, marks_a, marks_b = [], [], []
        for fa, fb, f in file_fragments(pa, pb, ignore=common):
            a0, a1 = sa[fa] + f.a[0] - 1, sa[fa] + f.a[1] - 1    # in the page's numbering
            b0, b1 = sb[fb] + f.b[0] - 1, sb[fb] + f.b[1] - 1
            if a0 > va or b0 > vb:
                continue
            if len(rows) >= max_frags:
                break
            k = len(rows) + 1
            a_id, b_id = f"{pid}-a-f{k}", f"{pid}-b-f{k}"
            marks_a.append((a0, a1, k, a_id, b_id))
            marks_b.append((b0, b1, k, b_id, a_id))
            rows.append({"colour": (k - 1) % len(COLOURS), "a_id": a_id, "b_id": b_id,
                         "tokens": f.tokens, "a_lines": _label(t, pa, fa, *f.a),
                         "b_lines": _label(t, pb, fb, *f.b)})
        shown.append({
            "id": pid, "a": a, "b": b, "sim": sim, "share": _pct(t, sim),
            "figure": t(M.SIMILAR_FIGURE, share=float(sim), threshold=float(threshold)),
            "fragments_about": t(M.SIMILAR_FRAGMENTS_ABOUT, n=len(rows)), "fragments": rows,
            "side_a": _side(t, a, pa, marks_a, **budget),
            "side_b": _side(t, b, pb, marks_b, **budget)})
    refs = []
    for i, (name, sim) in enumerate(references):
        rid = reference_id(i)
        p = parts.get(name, [])
        sp = _starts(p)
        rows, marks = [], []
        visible = _last_shown(p, **budget)
        for fa, ref, f in reference_fragments(p):
            a0, a1 = sp[fa] + f.a[0] - 1, sp[fa] + f.a[1] - 1
            if a0 > visible:
                continue
            if len(rows) >= max_frags:
                break
            k = len(rows) + 1
            a_id, b_id = f"{rid}-a-f{k}", f"{rid}-r-f{k}"
            marks.append((a0, a1, k, a_id, b_id))
            rows.append({"colour": (k - 1) % len(COLOURS), "a_id": a_id, "b_id": b_id,
                         "tokens": f.tokens, "a_lines": _label(t, p, fa, *f.a),
                         "b_lines": t(M.SIMILAR_LINES_IN, file=ref, first=f.b[0],
                                      last=f.b[1])})
        refs.append({
            "id": rid, "name": name, "share": _pct(t, sim),
            "figure": t(M.SIMILAR_REFERENCE_FIGURE, share=float(sim),
                        threshold=float(REFERENCE_THRESHOLD)),
            "fragments_about": t(M.SIMILAR_FRAGMENTS_ABOUT, n=len(rows)), "fragments": rows,
            "side": _side(t, name, p, marks, **budget)})
    tamper = []
    for i, (name, flag) in enumerate(list(tampered)[:MAX_PAIRS]):
        places = [p for p in flag.get("places") or [] if isinstance(p, dict)]
        count = int(flag.get("count", len(places)))
        tamper.append({
            "id": tamper_id(i), "name": name, "count": count,
            "rules": ", ".join(str(r) for r in flag.get("rules") or []),
            "places": [{"where": tamper_place(p, t),
                        "rule": str(p.get("rule", "")), "code": str(p.get("code", "")),
                        "source": str(p.get("source", ""))} for p in places],
            "more": t(M.SIMILAR_TAMPER_MORE, n=count - len(places))
            if count > len(places) else ""})
    labels = {
        "tamper_title": t(M.SIMILAR_TAMPER_TITLE), "tamper_about": t(M.SIMILAR_TAMPER_ABOUT),
        "tamper_none": t(M.SIMILAR_TAMPER_NONE), "tamper_place": t(M.SIMILAR_TAMPER_PLACE),
        "tamper_rule": t(M.SIMILAR_TAMPER_RULE), "tamper_code": t(M.SIMILAR_TAMPER_CODE),
        "pairs_title": t(M.SIMILAR_PAIRS_TITLE), "submission": t(M.REPORT_SUBMISSION),
        "similarity": t(M.REPORT_SIMILARITY), "fragments": t(M.REPORT_FRAGMENTS),
        "length": t(M.SIMILAR_LENGTH), "no_pair": t(M.SIMILAR_NONE),
        "reference_title": t(M.SIMILAR_REFERENCE_TITLE),
        "reference_about": t(M.SIMILAR_REFERENCE_ABOUT),
        "reference_none": t(M.SIMILAR_REFERENCE_NONE), "reference": t(M.SIMILAR_REFERENCE),
        "back": t(M.SIMILAR_BACK)}
    return _render(
        "similarity.html", lang, t(M.SIMILAR_TITLE), t=labels, about=t(M.SIMILAR_ABOUT),
        how=t(M.SIMILAR_HOW, k=K), pairs=shown, references=refs, tampered=tamper,
        colours=[{"bg": bg, "edge": edge} for bg, edge in COLOURS],
        more_pairs=t(M.REPORT_MORE_PAIRS, n=len(pairs) - MAX_PAIRS)
        if len(pairs) > MAX_PAIRS else "")


# ----------------------------------------------------------------------------- feedback
def feedback_page(model: dict, lang: str) -> str:
    """A student's feedback as a page, from batch_reports.feedback_model: the score, the groups
    they may see, why the import failed, notebook notes, and per check that did not pass its
    items, prose that wraps and code (the smallest input, the reproducer) kept as code."""
    checks = [{**c, "anchor": f"check-{k + 1}",
               "parts": [{"label": label, "text": text, "kind": kind}
                         for label, text, kind in c["parts"]]}
              for k, c in enumerate(model.get("checks", []))]
    return _render("feedback.html", lang, model["name"], None, **{
        "total": "", "groups": [], "hidden": "", "import_failed": "", "import_detail": "",
        "import_hint": "", "notes": [], **model, "checks": checks})
