"""The suite audit's result as text, Markdown, HTML or JSON (graders/audit/suite.py makes it)."""

from __future__ import annotations

import html
import json

STATUS_ORDER = ("survived", "unreached", "equivalent", "error", "killed")


def _score(r: dict) -> str:
    return "n/a" if r["score"] is None else f"{100 * r['score']:.1f} %"


def summary_line(r: dict) -> str:
    c = r["counts"]
    sampled = (f" (a sample of {r['run']} of {r['generated']})"
               if r["run"] != r["generated"] else "")
    return (f"mutation score {_score(r)}: {c['killed']} killed, {c['survived']} survived, "
            f"{c.get('unreached', 0)} unreached, {c['equivalent']} likely equivalent"
            + (f", {c['error']} could not run" if c.get("error") else "")
            + f" of {r['run']} mutants{sampled} of {r['target']} (spec {r['spec']})")


def _expected(m: dict) -> str:
    return ", ".join(m["expected_clauses"]) or "-"


def render_text(r: dict) -> str:
    lines = [summary_line(r), ""]
    s = r["settings"]
    lines.append(f"run: {s['jobs']} job(s){' on ' + s['scheduler'] if s.get('scheduler') else ''}"
                 f", profile {s['profile']}, {s['wall_s']} s wall, {s['cpu_s']} s CPU")
    if r.get("original_fails"):
        lines.append("checks the original itself fails (left out for every mutant): "
                     + ", ".join(r["original_fails"]))
    lines += ["", "killed per clause:"]
    for cl, ids in sorted(r["per_clause"].items()):
        lines.append(f"  {cl:<15} {len(ids):>4}")
    lines += ["", "per operator (killed / survived / unreached / equivalent):"]
    for op, c in sorted(r["by_operator"].items()):
        lines.append(f"  {op:<20} {c.get('killed', 0):>4} / {c.get('survived', 0):>3} / "
                     f"{c.get('unreached', 0):>3} / {c.get('equivalent', 0):>3}")
    for status in ("survived", "unreached", "equivalent", "error"):
        group = [m for m in r["mutants"] if m["status"] == status]
        if not group:
            continue
        title = {"survived": "SURVIVED (a check should catch these)",
                 "unreached": "UNREACHED (no input the checks draw runs the changed line)",
                 "equivalent": "LIKELY EQUIVALENT (no drawn input tells them apart)",
                 "error": "COULD NOT RUN"}[status]
        lines += ["", f"{title}: {len(group)}"]
        for m in group:
            lines += ["", f"{m['id']}  [{m['operator']}: {m['bug']}]",
                      f"  in {m['function']} (reached from {', '.join(m['contract_functions'])})",
                      f"  {m['description']}"]
            if status in ("survived", "unreached"):
                lines.append(f"  should have been caught by: {_expected(m)}")
                d = m.get("distinguished")
                if d:
                    lines.append(f"  told apart by: {d['message']}")
                    if d.get("example"):
                        lines.append(f"  input: {d['example']}")
            elif status == "equivalent":
                lines.append(f"  {m['equivalence']['note']}")
            else:
                lines.append(f"  {m.get('message', '')}")
            lines += ["  " + ln for ln in m.get("diff", "").rstrip("\n").splitlines()]
    return "\n".join(lines) + "\n"


def render_markdown(r: dict) -> str:
    out = [f"# Suite audit: {r['target']}", "", f"**{summary_line(r)}**", ""]
    s = r["settings"]
    out += [f"Profile `{s['profile']}`, {s['jobs']} job(s), {s['wall_s']} s wall, "
            f"{s['cpu_s']} s CPU."]
    if r.get("original_fails"):
        out += ["", "Checks the original itself fails (left out for every mutant): "
                + ", ".join(f"`{c}`" for c in r["original_fails"]) + "."]
    out += ["", "## Killed per clause", "",
            "| clause | mutants killed |", "|---|---|"]
    out += [f"| {cl} | {len(ids)} |" for cl, ids in sorted(r["per_clause"].items())]
    out += ["", "## Per operator", "",
            "| operator | bug | killed | survived | unreached | equivalent |",
            "|---|---|---|---|---|---|"]
    from .mutate import OPERATORS

    for op, c in sorted(r["by_operator"].items()):
        out.append(f"| `{op}` | {OPERATORS.get(op, '')} | {c.get('killed', 0)} | "
                   f"{c.get('survived', 0)} | {c.get('unreached', 0)} | "
                   f"{c.get('equivalent', 0)} |")
    for status, title in (("survived", "Survivors"),
                          ("unreached", "Unreached (no drawn input runs the changed line)"),
                          ("equivalent", "Likely equivalent"),
                          ("error", "Could not run")):
        group = [m for m in r["mutants"] if m["status"] == status]
        if not group:
            continue
        out += ["", f"## {title} ({len(group)})"]
        for m in group:
            out += ["", f"### `{m['id']}`: {m['bug']}", "",
                    f"In `{m['function']}` (reached from "
                    f"{', '.join('`%s`' % f for f in m['contract_functions'])}): "
                    f"`{m['description']}`."]
            if status in ("survived", "unreached"):
                out.append(f"Should have been caught by: {_expected(m)}.")
                d = m.get("distinguished")
                if d:
                    out.append(f"Told apart by `{d['example'] or d['check']}`: {d['message']}")
            elif status == "equivalent":
                out.append(m["equivalence"]["note"] + ".")
            out += ["", "```diff", m.get("diff", "").rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


def render_html(r: dict) -> str:
    e = html.escape
    rows = "".join(f"<tr><td>{e(cl)}</td><td>{len(ids)}</td></tr>"
                   for cl, ids in sorted(r["per_clause"].items()))
    ops = "".join(f"<tr><td><code>{e(op)}</code></td><td>{c.get('killed', 0)}</td>"
                  f"<td>{c.get('survived', 0)}</td><td>{c.get('unreached', 0)}</td>"
                  f"<td>{c.get('equivalent', 0)}</td></tr>"
                  for op, c in sorted(r["by_operator"].items()))
    items = []
    for m in sorted(r["mutants"], key=lambda m: STATUS_ORDER.index(m["status"])
                    if m["status"] in STATUS_ORDER else 9):
        if m["status"] == "killed":
            kb = m["killed_by"]
            what = f"killed by {e(kb.get('check') or '-')} ({e(', '.join(kb.get('clauses') or []))})"
        elif m["status"] in ("survived", "unreached"):
            what = f"{m['status']}; should have been caught by {e(_expected(m))}"
        elif m["status"] == "equivalent":
            what = f"likely equivalent: {e(m['equivalence']['note'])}"
        else:
            what = e(m.get("message", "could not run"))
        diff = (f"<pre>{e(m['diff'])}</pre>" if m.get("diff") else "")
        items.append(f"<tr class='{e(m['status'])}'><td><code>{e(m['id'])}</code></td>"
                     f"<td>{e(m['bug'])}<br><code>{e(m['description'])}</code>{diff}</td>"
                     f"<td>{what}</td></tr>")
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Suite audit: "
            f"{e(r['target'])}</title><style>body{{font-family:sans-serif}}"
            "td{vertical-align:top;border-bottom:1px solid #ddd;padding:4px}"
            ".survived,.unreached{background:#fde8e8}.equivalent{background:#f3f3f3}"
            "pre{font-size:85%}</style></head><body>"
            f"<h1>Suite audit: {e(r['target'])}</h1><p><b>{e(summary_line(r))}</b></p>"
            f"<h2>Killed per clause</h2><table>{rows}</table>"
            "<h2>Per operator</h2><table><tr><th>operator</th><th>killed</th>"
            f"<th>survived</th><th>unreached</th><th>equivalent</th></tr>{ops}</table>"
            f"<h2>Mutants</h2><table>{''.join(items)}</table></body></html>\n")


def render_json(r: dict) -> str:
    return json.dumps(r, indent=1, sort_keys=True) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "html": render_html,
             "json": render_json}
