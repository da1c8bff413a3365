"""Rendering of audit results: plain text, Markdown, self-contained HTML, JSON."""

from __future__ import annotations

import html
import json
from typing import Sequence

from .docs import DocReport
from .spec_audit import SpecReport

KIND_ORDER = {"mismatch": 0, "ambiguous": 1, "unverified": 2, "ok": 3}


def _md(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _where(f) -> str:
    return f"{f.file}:{f.line}:{f.column}" if f.line else f"{f.file}"


# --------------------------------------------------------------------------- docs
def docs_json(reports: Sequence[DocReport], strict: bool) -> str:
    return json.dumps({"strict": strict, "files": [r.to_dict() for r in reports],
                       "summary": docs_summary(reports)}, ensure_ascii=False, indent=2)


def docs_summary(reports: Sequence[DocReport]) -> dict:
    out = {k: sum(r.count(k) for r in reports) for k in KIND_ORDER}
    out["numbers_read"] = sum(len(r.numbers) for r in reports)
    return out


def docs_text(reports: Sequence[DocReport], numbers: bool = True) -> str:
    out = []
    for r in reports:
        how = "detected" if r.lang_detected else "given"
        out.append(f"== {r.file}  (language {r.lang}, {how}; numbers read with Babel locale "
                   f"{r.locale})")
        problems = sorted((f for f in r.findings if f.kind != "ok"),
                          key=lambda f: (KIND_ORDER[f.kind], f.line or 0, f.column or 0))
        out.append(f"   {r.count('mismatch')} mismatch, {r.count('ambiguous')} ambiguous, "
                   f"{r.count('unverified')} unverified, {r.count('ok')} ok; "
                   f"{len(r.numbers)} numbers read")
        for f in problems:
            out.append(f"{f.kind.upper():10} {_where(f)}  [{f.clause}] {f.text!r}")
            under = f" (under {f.locale}: {f.value_locale})" if f.check == "value" else ""
            out.append(f"           read {f.value}{under}; spec needs {f.expected}  "
                       f"({f.check}: {f.fact})")
            if f.note:
                out.append(f"           {f.note}")
        if numbers:
            out.append("   numbers read (line:column  as written  value  under-locale  kind  "
                       "clause  role):")
            for n in r.numbers:
                out.append(f"   {n.line:>4}:{n.column:<4} {n.text!r:16} {n.value:>14} "
                           f"{n.value_locale:>14}  {n.kind:11} {n.clause or '-':14} {n.role}")
        out.append("")
    s = docs_summary(reports)
    out.append(f"total: {s['mismatch']} mismatch, {s['ambiguous']} ambiguous, "
               f"{s['unverified']} unverified, {s['ok']} ok in {len(reports)} document(s)")
    return "\n".join(out) + "\n"


def docs_markdown(reports: Sequence[DocReport], numbers: bool = True) -> str:
    out = ["# Course documents against the spec", ""]
    for r in reports:
        out += [f"## `{r.file}`", "",
                f"Language **{r.lang}** ({'detected' if r.lang_detected else 'given'}), "
                f"numbers read with Babel locale `{r.locale}`: {r.count('mismatch')} mismatch, "
                f"{r.count('ambiguous')} ambiguous, {r.count('unverified')} unverified, "
                f"{r.count('ok')} ok, {len(r.numbers)} numbers read.", ""]
        problems = sorted((f for f in r.findings if f.kind != "ok"),
                          key=lambda f: (KIND_ORDER[f.kind], f.line or 0, f.column or 0))
        if problems:
            out += ["| kind | line:col | text | read | under locale | clause | spec needs | note |",
                    "|---|---|---|---|---|---|---|---|"]
            for f in problems:
                out.append(f"| {f.kind} | {f.line}:{f.column} | `{_md(f.text)}` | {_md(f.value)} "
                           f"| {_md(f.value_locale)} | {f.clause} | {_md(f.expected)} "
                           f"| {_md(f.note)} |")
            out.append("")
        if numbers:
            out += ["<details><summary>Every number read</summary>", "",
                    "| line:col | as written | value | under locale | kind | clause | role |",
                    "|---|---|---|---|---|---|---|"]
            for n in r.numbers:
                out.append(f"| {n.line}:{n.column} | `{_md(n.text)}` | {_md(n.value)} | "
                           f"{_md(n.value_locale)} | {n.kind} | {n.clause or '-'} | {_md(n.role)} |")
            out += ["", "</details>", ""]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- spec
def spec_text(r: SpecReport) -> str:
    if r.error:
        return r.error + "\n"
    out = [f"spec {r.name} ({r.path}): " + ("consistent" if r.ok else "PROBLEMS FOUND")]
    for c in r.checks:
        out.append(f"  {'ok  ' if c.ok else 'FAIL'} {c.kind:9} {c.subject:26} {c.detail}")
    return "\n".join(out) + "\n"


def spec_markdown(r: SpecReport) -> str:
    if r.error:
        return f"# Spec audit: `{r.path}`\n\n**Does not load.** {_md(r.error)}\n"
    out = [f"# Spec audit: {r.name} (`{r.path}`)", "",
           "Consistent." if r.ok else "**Problems found.**", "",
           "| result | kind | subject | clause | detail |", "|---|---|---|---|---|"]
    for c in r.checks:
        out.append(f"| {'ok' if c.ok else 'FAIL'} | {c.kind} | {c.subject} | {c.clause} "
                   f"| {_md(c.detail)} |")
    return "\n".join(out) + "\n"


def spec_json(r: SpecReport) -> str:
    return json.dumps(r.to_dict(), ensure_ascii=False, indent=2)


# --------------------------------------------------------------------------- matrix
_SYMBOL = {"pass": "pass", "fail": "FAIL", "error": "ERROR", "skipped": "skipped",
           "not covered": "not covered", "not run": "not run", "not selected": "not selected",
           "check bug": "CHECK BUG"}


def _cell_text(cell: dict) -> str:
    s = _SYMBOL.get(cell["status"], cell["status"])
    return s + (" (spec audit)" if cell.get("via") else "")


def matrix_json(m: dict) -> str:
    return json.dumps(m, ensure_ascii=False, indent=2, default=str)


def matrix_markdown(m: dict) -> str:
    targets = [t["target"] for t in m["targets"]]
    out = [f"# Traceability matrix: spec {m['spec']}", "",
           f"Spec `{m['spec_path']}`, Hypothesis profile `{m['profile']}`. Clauses with method "
           "`spec` are covered by `andrea-audit spec` (shown as \"(spec audit)\"), not by a "
           "conformance check.", ""]
    for t in m["targets"]:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(m["summary"][t["target"]].items()))
        out.append(f"* **{t['target']}**: {counts}"
                   + (f" — could not run: {t['error']}" if t["error"] else ""))
    if m["uncovered"]:
        out.append(f"* **Not covered by any check:** {', '.join(m['uncovered'])}")
    if m["unknown_clauses"]:
        out.append("* **Checks naming clauses the spec lacks:** "
                   + ", ".join(f"{k} → {c}" for k, c in m["unknown_clauses"]))
    out += ["", "| clause | statement | source | checks | " + " | ".join(targets) + " |",
            "|---|---|---|---|" + "---|" * len(targets)]
    for row in m["clauses"]:
        checks = ", ".join(f"`{c}`" for c in row["checks"]) or (
            "`andrea-audit spec`" if row["covered_by"] else "—")
        cells = " | ".join(_cell_text(row["results"][t]) for t in targets)
        out.append(f"| {row['id']} | {_md(row['statement'])} | {_md(row['source_title'])} "
                   f"| {checks} | {cells} |")
    fails = [(row, t, f) for row in m["clauses"] for t in targets
             for f in row["results"][t]["failures"]]
    if fails:
        out += ["", "## Counterexamples", ""]
        for row, t, f in fails:
            out.append(f"### {row['id']} on `{t}`: `{f['check_id']}` ({f['status']})")
            out += ["", _md(f["message"]), ""]
            if f.get("example"):
                out += ["```", f["example"], "```", ""]
            if f.get("reproducer"):
                out += ["```python", f["reproducer"], "```", ""]
            if f.get("hint"):
                out += [f"Hint: {f['hint']}", ""]
    return "\n".join(out) + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem;color:#1d232b}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.35rem .5rem;vertical-align:top;text-align:left}
th{background:#f0f3f6;position:sticky;top:0}
tr:nth-child(even) td{background:#fafbfc}
td.pass{background:#dcf5e3!important;color:#14532d}
td.fail,td.error,td.not-run{background:#fde2e1!important;color:#7f1d1d;font-weight:600}
td.skipped,td.not-selected{background:#f3f4f6!important;color:#4b5563}
td.not-covered{background:#fff4ce!important;color:#713f12;font-weight:600}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;border:1px solid #d0d7de}
.id{white-space:nowrap;font-weight:600}.small{color:#57606a;font-size:.85rem}
"""


def matrix_html(m: dict) -> str:
    e = html.escape
    targets = [t["target"] for t in m["targets"]]
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>Traceability matrix: {e(m['spec'])}</title>",
             f"<style>{_CSS}</style></head><body>",
             f"<h1>Traceability matrix: spec {e(m['spec'])}</h1>",
             f"<p class=\"small\">Spec <code>{e(m['spec_path'])}</code>, Hypothesis profile "
             f"<code>{e(m['profile'])}</code>. Clauses with method <code>spec</code> are covered "
             "by <code>andrea-audit spec</code>, not by a conformance check.</p><ul>"]
    for t in m["targets"]:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(m["summary"][t["target"]].items()))
        parts.append(f"<li><b>{e(t['target'])}</b>: {e(counts)}"
                     + (f" — could not run: {e(t['error'])}" if t["error"] else "") + "</li>")
    if m["uncovered"]:
        parts.append(f"<li><b>Not covered by any check:</b> {e(', '.join(m['uncovered']))}</li>")
    parts.append("</ul><table><thead><tr><th>Clause</th><th>Statement</th><th>Source</th>"
                 "<th>Checks</th>" + "".join(f"<th>{e(t)}</th>" for t in targets)
                 + "</tr></thead><tbody>")
    for row in m["clauses"]:
        checks = "<br>".join(f"<code>{e(c)}</code>" for c in row["checks"]) or (
            "<code>andrea-audit spec</code>" if row["covered_by"] else "—")
        cells = []
        for t in targets:
            cell = row["results"][t]
            cls = cell["status"].replace(" ", "-")
            link = (f' <a href="#f-{e(row["id"])}-{e(t)}">details</a>'
                    if cell["failures"] else "")
            cells.append(f"<td class=\"{cls}\">{e(_cell_text(cell))}{link}</td>")
        parts.append(f"<tr><td class=\"id\">{e(row['id'])}</td><td>{e(row['statement'])}</td>"
                     f"<td>{e(row['source_title'])}</td><td>{checks}</td>{''.join(cells)}</tr>")
    parts.append("</tbody></table>")
    fails = [(row, t) for row in m["clauses"] for t in targets
             if row["results"][t]["failures"]]
    if fails:
        parts.append("<h2>Counterexamples</h2>")
        for row, t in fails:
            parts.append(f"<h3 id=\"f-{e(row['id'])}-{e(t)}\">{e(row['id'])} on "
                         f"<code>{e(t)}</code></h3>")
            for f in row["results"][t]["failures"]:
                parts.append(f"<p><code>{e(f['check_id'])}</code> ({e(f['status'])}): "
                             f"{e(f['message'] or '')}</p>")
                if f.get("example"):
                    parts.append(f"<pre>{e(f['example'])}</pre>")
                if f.get("reproducer"):
                    parts.append(f"<pre>{e(f['reproducer'])}</pre>")
                if f.get("hint"):
                    parts.append(f"<p class=\"small\">Hint: {e(f['hint'])}</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
