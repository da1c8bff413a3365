"""andrea-audit: where the spec, the implementations and the course documents disagree.

    andrea-audit docs FILE... [--spec S] [--lang nl|ko|en|auto] [--format text|json|markdown]
                              [--strict] [--no-numbers]
    andrea-audit spec [SPEC] [--format text|json|markdown]
    andrea-audit impl TARGET... [--spec S] [--out DIR] [--format markdown,html,json]
                                [--profile P] [--select ID] [--strict]
    andrea-audit suite [--spec S] [--target andrea_ref | andrea_gpu | PATH] [--jobs N]
                       [--scheduler ADDRESS] [--sample N] [--format text|md|html|json]
                       [--output FILE] [--min-score PCT]

Exit status: 0 all agree; 1 findings (docs: a mismatch, or an ambiguity with --strict; spec: the
file does not load or contradicts itself; impl: a clause fails or errors for a target, or with
--strict is not covered; suite: the mutation score is below --min-score); 2 bad usage or
unreadable input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graders import keep_cwd_clean
from graders.conformance.profiles import DEFAULT_PROFILE, PROFILES
from graders.conformance.sources import PYTHON_SUFFIXES
from spec import SpecError, load_spec

from . import render as rep
from .suite import SuiteAuditError

_IMPL_FORMATS = {"markdown": "md", "html": "html", "json": "json"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 with the usage, as argparse does, but catchable
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="andrea-audit", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    d = sub.add_parser("docs", help="check the numbers course documents state against the spec")
    d.add_argument("files", nargs="+", metavar="FILE")
    d.add_argument("--spec", default=None, help="spec name or YAML path (default andrea-120m)")
    d.add_argument("--lang", default="auto", choices=["nl", "ko", "en", "auto"],
                   help="document language (default: detected per file)")
    d.add_argument("--format", default="text", choices=["text", "json", "markdown"])
    d.add_argument("--strict", action="store_true", help="ambiguous numbers fail too (exit 1)")
    d.add_argument("--no-numbers", action="store_true",
                   help="leave the list of every number read out of text/markdown output")

    s = sub.add_parser("spec", help="check the spec's schema, arithmetic and statements")
    s.add_argument("spec", nargs="?", default=None, metavar="SPEC")
    s.add_argument("--format", default="text", choices=["text", "json", "markdown"])

    i = sub.add_parser("impl", help="traceability matrix of clauses x checks x targets")
    i.add_argument("targets", nargs="+", metavar="TARGET",
                   help="module name (andrea_ref) or path to a .py file or package")
    i.add_argument("--spec", default=None, help="spec name or YAML path (default andrea-120m)")
    i.add_argument("--out", default=None, metavar="DIR",
                   help="write audit-impl.md/.html/.json there (default: print to stdout)")
    i.add_argument("--format", default="markdown,html,json",
                   help="comma-separated: markdown, html, json (stdout gets the first)")
    i.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES),
                   help="Hypothesis profile (default: %(default)s)")
    i.add_argument("--select", action="append", metavar="ID",
                   help="run only checks whose id or clause matches (fnmatch; repeatable)")
    i.add_argument("--strict", action="store_true", help="a clause no check covers fails too")

    from .suite_cli import add_suite_parser
    add_suite_parser(sub)
    return p


def main(argv=None) -> int:
    keep_cwd_clean()
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        from .suite_cli import run_suite
        return {"docs": _docs, "spec": _spec, "impl": _impl,
                "suite": run_suite}[args.command](args)
    except _UsageError as exc:
        print(f"andrea-audit {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except SuiteAuditError as exc:
        print(f"andrea-audit {args.command}: error: {exc}", file=sys.stderr)
        return 2


class _UsageError(Exception):
    pass


def _load(spec_arg):
    try:
        return load_spec(spec_arg)
    except SpecError as exc:
        raise _UsageError(f"--spec: {exc}") from None


def _docs(args) -> int:
    from .docs import DocumentError, LexiconError, audit_document

    spec = _load(args.spec)
    reports = []
    for f in args.files:
        try:
            reports.append(audit_document(f, spec, None if args.lang == "auto" else args.lang))
        except (DocumentError, LexiconError) as exc:
            raise _UsageError(str(exc)) from None
    if args.format == "json":
        sys.stdout.write(rep.docs_json(reports, args.strict) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(rep.docs_markdown(reports, not args.no_numbers))
    else:
        sys.stdout.write(rep.docs_text(reports, not args.no_numbers))
    s = rep.docs_summary(reports)
    return 1 if s["mismatch"] or (args.strict and s["ambiguous"]) else 0


def _spec(args) -> int:
    from .spec_audit import audit_spec

    r = audit_spec(args.spec)
    out = {"json": rep.spec_json, "markdown": rep.spec_markdown, "text": rep.spec_text}
    text = out[args.format](r)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0 if r.ok else 1


def _missing_target(target: str) -> str | None:
    """Why `target` names nothing (a path that does not exist, a module that is not installed)."""
    import importlib.util

    path = Path(target)
    if path.exists():
        return None
    if "/" in target or "\\" in target or path.suffix in PYTHON_SUFFIXES:
        return f"{target}: no such file or folder"
    try:
        found = importlib.util.find_spec(target) is not None
    except (ImportError, ValueError):
        found = False
    return None if found else f"{target}: no such file, folder or installed module"


def _impl(args) -> int:
    from .impl import build_matrix, matrix_exit_code

    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in _IMPL_FORMATS]
    if bad or not formats:
        raise _UsageError(f"--format {args.format!r}: choose from markdown, html, json "
                          "(comma-separated)")
    spec = _load(args.spec)
    for target in args.targets:
        missing = _missing_target(target)
        if missing:
            raise _UsageError(missing)
    try:
        m = build_matrix(spec, args.targets, profile=args.profile, select=args.select)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None
    render = {"markdown": rep.matrix_markdown, "html": rep.matrix_html, "json": rep.matrix_json}
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            for f in formats:
                path = out / f"audit-impl.{_IMPL_FORMATS[f]}"
                path.write_text(render[f](m), encoding="utf-8")
                print(f"wrote {path}")
        except OSError as exc:
            raise _UsageError(f"--out {args.out}: cannot write ({exc.strerror or exc})") from None
        for t in m["targets"]:
            counts = ", ".join(f"{v} {k}" for k, v in sorted(m["summary"][t["target"]].items()))
            print(f"{t['target']}: {counts}" + (f" (could not run: {t['error']})"
                                                if t["error"] else ""))
        if m["uncovered"]:
            print("not covered by any check: " + ", ".join(m["uncovered"]))
    else:
        sys.stdout.write(render[formats[0]](m))
    return matrix_exit_code(m, args.strict)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
