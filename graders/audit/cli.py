"""andrea-audit: where the spec, the implementations and the course documents disagree.

    andrea-audit docs FILE... [--spec S] [--doc-lang nl|ko|en|auto]
                              [--format text|json|markdown] [--output FILE] [--strict]
                              [--no-numbers]
    andrea-audit spec [SPEC] [--format text|json|markdown] [--output FILE]
    andrea-audit impl TARGET... [--spec S] [--output DIR] [--format markdown,html,json]
                                [--profile P] [--select ID] [--strict]
    andrea-audit suite [--spec S] [--target andrea_ref | andrea_gpu | PATH] [--jobs N]
                       [--scheduler ADDRESS] [--sample N] [--format text|markdown|html|json]
                       [--output FILE] [--min-score PCT]

(--doc-lang was --lang, --output was --out, and suite's --format markdown was md: the old
spellings work until the next release, with a note.)

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
from graders.conformance.options import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Parser, add_output,
                                         add_renamed, add_spec, spec_error_line)
from graders.conformance.profiles import DEFAULT_PROFILE, PROFILES
from graders.conformance.sources import PYTHON_SUFFIXES
from spec import SpecError, load_spec

from . import render as rep
from .suite import SuiteAuditError

_IMPL_FORMATS = {"markdown": "md", "html": "html", "json": "json"}


_DOC_LANGS = ["nl", "ko", "en", "auto"]


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="andrea-audit", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    d = sub.add_parser("docs", help="check the numbers course documents state against the spec")
    d.add_argument("files", nargs="+", metavar="FILE")
    add_spec(d)
    d.add_argument("--doc-lang", default="auto", choices=_DOC_LANGS,
                   help="the documents' language (default: detected per file)")
    add_renamed(d, "--lang", "--doc-lang", dest="doc_lang", choices=_DOC_LANGS)
    d.add_argument("--format", default="text", choices=["text", "json", "markdown"])
    d.add_argument("--strict", action="store_true", help="ambiguous numbers fail too (exit 1)")
    d.add_argument("--no-numbers", action="store_true",
                   help="leave the list of every number read out of text/markdown output")
    add_output(d, metavar="FILE", help="write the report there (default: print it)")

    s = sub.add_parser("spec", help="check the spec's schema, arithmetic and statements")
    s.add_argument("spec", nargs="?", default=None, metavar="SPEC")
    s.add_argument("--format", default="text", choices=["text", "json", "markdown"])
    add_output(s, metavar="FILE", help="write the report there (default: print it)")

    i = sub.add_parser("impl", help="traceability matrix of clauses x checks x targets")
    i.add_argument("targets", nargs="+", metavar="TARGET",
                   help="module name (andrea_ref) or path to a .py file or package")
    add_spec(i)
    add_output(i, metavar="DIR", renamed=("--out",),
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
        _check_output(args)
        return {"docs": _docs, "spec": _spec, "impl": _impl,
                "suite": run_suite}[args.command](args)
    except _SpecUnusable as exc:
        print(spec_error_line("andrea-audit", exc.__cause__ or exc), file=sys.stderr)
        return EXIT_USAGE
    except (_UsageError, SuiteAuditError) as exc:
        print(f"andrea-audit {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


class _UsageError(Exception):
    pass


class _SpecUnusable(Exception):
    """--spec names no usable spec (its SpecError is the cause)."""


def _load(spec_arg):
    try:
        return load_spec(spec_arg)
    except SpecError as exc:
        raise _SpecUnusable() from exc


def _docs(args) -> int:
    from .docs import DocumentError, LexiconError, audit_document

    spec = _load(args.spec)
    reports = []
    for f in args.files:
        try:
            reports.append(audit_document(f, spec, None if args.doc_lang == "auto" else args.doc_lang))
        except (DocumentError, LexiconError) as exc:
            raise _UsageError(str(exc)) from None
    if args.format == "json":
        _write(args, rep.docs_json(reports, args.strict) + "\n")
    elif args.format == "markdown":
        _write(args, rep.docs_markdown(reports, not args.no_numbers))
    else:
        _write(args, rep.docs_text(reports, not args.no_numbers))
    s = rep.docs_summary(reports)
    return 1 if s["mismatch"] or (args.strict and s["ambiguous"]) else 0


def _spec(args) -> int:
    from .spec_audit import audit_spec

    from spec.loader import SpecError, load_spec, resolve_spec_path

    try:        # a spec that is not there, or not a file, is bad usage (exit 2) as everywhere
        if not resolve_spec_path(args.spec).is_file():
            load_spec(args.spec)                        # raises, with the loader's own words
    except SpecError as exc:
        raise _UsageError(str(exc)) from None
    r = audit_spec(args.spec)
    out = {"json": rep.spec_json, "markdown": rep.spec_markdown, "text": rep.spec_text}
    text = out[args.format](r)
    _write(args, text if text.endswith("\n") else text + "\n")
    return EXIT_OK if r.ok else EXIT_FINDINGS


def _check_output(args) -> None:
    """--output names a file in a folder that exists (checked before any work)."""
    out = getattr(args, "output", None)
    if out and args.command in ("docs", "spec") and (
            Path(out).is_dir() or not Path(out).resolve().parent.is_dir()):
        raise _UsageError(f"--output {out}: not a file in an existing folder")


def _write(args, text: str) -> None:
    """The report: into --output, or on stdout."""
    if not args.output:
        sys.stdout.write(text)
        return
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _UsageError(f"--output {args.output}: cannot write ({exc.strerror or exc})") from None


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
    if args.output:
        out = Path(args.output)
        try:
            out.mkdir(parents=True, exist_ok=True)
            for f in formats:
                path = out / f"audit-impl.{_IMPL_FORMATS[f]}"
                path.write_text(render[f](m), encoding="utf-8")
                print(f"wrote {path}")
        except OSError as exc:
            raise _UsageError(f"--output {args.output}: cannot write ({exc.strerror or exc})") from None
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
