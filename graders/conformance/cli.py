"""andrea-conform: run the conformance suite against one implementation.

    andrea-conform andrea_ref
    andrea-conform path/to/submission.py --spec gpt2-small --profile thorough
    andrea-conform mine.py --select 'EMB-*' --format json
    andrea-conform hw.ipynb --lang nl            # the report in Dutch (or ko: Korean)
    andrea-conform hw.ipynb --format json --output report.json

Exit status: 0 when every check passes (skipped optional checks are fine), 1 when any check
fails, 2 when the run cannot start (unknown spec, import failure, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.markup import escape

from graders import keep_cwd_clean
from spec import SpecError, load_spec

from .error_inputs import ERROR_INPUTS, listing
from .options import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Parser, add_lang, add_output,
                      add_spec, seconds, spec_error_line)
from .profiles import DEFAULT_PROFILE, PROFILES
from .registry import RegistryError, SelectionError, all_checks, select as select_checks
from .explain import LABEL, explain, summary_line
from .i18n import LANGUAGES, Translator
from .limits import CALL_SECONDS, CHECK_SECONDS, TOTAL_SECONDS, CallLimits
from .runner import (ERROR, FAILED, NOT_RUN, PASSED, SKIPPED, ImplementationLoadError,
                     load_impl, remove_import_rules, run_checks)
from .notes import notebook_notes
from .messages import (MSG_CONFORMS, MSG_CONFORM_HEADER, MSG_DOES_NOT_CONFORM, MSG_NOTE,
                       MSG_NO_NVRTC)

STYLE = {PASSED: "green", FAILED: "bold red", ERROR: "bold magenta", SKIPPED: "yellow",
         NOT_RUN: "magenta"}


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="andrea-conform", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", nargs="?", help="implementation: module name, a .py file, a .ipynb notebook, "
                        "or a folder holding one of them")
    add_spec(p)
    p.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES),
                   help="Hypothesis profile (default: %(default)s)")
    p.add_argument("--select", action="append", metavar="ID",
                   help="only checks whose id or clause matches (fnmatch; repeatable)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_output(p, help="write the report here instead of stdout")
    p.add_argument("--list", action="store_true", help="list the checks and their clauses, then exit")
    add_lang(p, LANGUAGES)
    # the grader's time limits (the same options and defaults as andrea-grade's)
    p.add_argument("--call-timeout", type=seconds, default=CALL_SECONDS, metavar="S",
                   help="wall seconds per call into the submission, as the grader charges "
                        "them (%(default)g)")
    p.add_argument("--check-timeout", type=seconds, default=CHECK_SECONDS, metavar="S",
                   help="wall seconds per check, all its calls (%(default)g)")
    p.add_argument("--total-timeout", type=seconds, default=TOTAL_SECONDS, metavar="S",
                   help="wall seconds for every call of the run, the grader's budget "
                        "(%(default)g)")
    return p


def main(argv: list[str] | None = None) -> int:
    keep_cwd_clean()
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:   # --help (0), a usage error (2): returned, as the other commands do
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    out = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        spec = load_spec(args.spec)
        checks = select_checks(all_checks(spec), args.select)
    except SpecError as exc:
        err.print(escape(spec_error_line("andrea-conform", exc)))
        return EXIT_USAGE
    except (RegistryError, SelectionError) as exc:
        err.print(f"andrea-conform: {escape(str(exc))}")
        return EXIT_USAGE
    if args.list:
        for c in checks:
            out.print(f"{c.id:40} {', '.join(c.clauses):32} {escape(c.doc)}")
        chosen = {cl for c in checks for cl in c.clauses}
        lines = [ln for ln, e in zip(listing(), ERROR_INPUTS) if e.clause in chosen]
        if lines:
            out.print(f"\nerror inputs ({len(lines)}): the bad arguments the errors checks "
                      "try, and the exception each must raise")
            for ln in lines:
                out.print(escape(ln))
        return EXIT_OK
    if not args.target:
        err.print("andrea-conform: give the implementation to check, e.g. andrea-conform andrea_ref")
        return EXIT_USAGE
    if args.output:
        from pathlib import Path

        if not Path(args.output).resolve().parent.is_dir():
            err.print(f"andrea-conform: --output {escape(args.output)}: the folder does not exist")
            return EXIT_USAGE
        try:
            written = open(args.output, "w", encoding="utf-8")   # noqa: SIM115 - closed below
        except OSError as exc:
            err.print(f"andrea-conform: --output {escape(args.output)}: cannot write "
                      f"({escape(exc.strerror or str(exc))})")
            return EXIT_USAGE
        out = Console(file=written, highlight=False, soft_wrap=True)
    else:
        written = None
    t = Translator(args.lang)
    # --format json: stdout is the report alone; what the submission prints goes to stderr
    report = _StdoutToStderr() if args.format == "json" else None
    try:
        return _conform(args, spec, t, out, err, report, written)
    finally:
        if report is not None:
            report.restore()
        if written is not None:
            written.close()
        remove_import_rules()


def _conform(args, spec, t, out, err, report, written=None) -> int:
    try:
        impl = load_impl(args.target, submission_rules=True)
    except ImplementationLoadError as exc:
        err.print(f"andrea-conform: {escape(exc.translated(t))}")
        return EXIT_USAGE
    # a kernel (a .cu, or a folder of them) is checked on what a kernel implements, as graded
    read = getattr(impl, "__andrea_submission__", None)
    kernel = read is not None and read.kind == "kernel"
    if kernel and args.select is None and spec.kernels is not None:
        args.select = [c.id for c in spec.clauses if c.group in spec.kernels.groups]

    source = getattr(impl, "__andrea_source__", None)   # a notebook: what the grader says of it
    notes = (notebook_notes(source.to_dict(), getattr(impl, "__andrea_cells_raised__", None), t)
             if source is not None else [])
    if kernel and getattr(impl, "nvrtc_skipped", False) is True:   # the grader compiles more
        notes.append(t(MSG_NO_NVRTC))

    def show(r):
        if args.format == "text":
            out.print(f"[{STYLE[r.status]}]{escape(t(LABEL[r.status])):5}[/] "
                      f"{', '.join(r.clauses):34} {r.check_id} [dim]{r.duration_s:.2f}s[/]")
            if r.status in (FAILED, ERROR, NOT_RUN):
                out.print(explain(r, spec, args.lang), style="red", markup=False)
                out.print()

    if args.format == "text":
        out.print("andrea-conform: " + escape(t(MSG_CONFORM_HEADER, target=args.target,
                                                spec=spec.name, profile=args.profile)))
        for n in notes:
            out.print(f"[yellow]{escape(t(MSG_NOTE))}[/]: {escape(n)}")
    results = run_checks(impl, spec, profile=args.profile, select=args.select,
                         target=args.target, on_result=show,
                         limits=None if kernel
                         else CallLimits(args.call_timeout, args.check_timeout,
                                         total=args.total_timeout))
    ok = all(r.status not in (FAILED, ERROR, NOT_RUN) for r in results)
    if args.format == "json":
        stream = report.restore() if written is None else written
        json.dump({"target": args.target, "spec": spec.name, "profile": args.profile,
                   "passed": ok, "notes": notes, "results": [r.to_dict() for r in results]},
                  stream, indent=2)
        stream.write("\n")
        stream.flush()
    else:
        out.print((f"[green]{escape(t(MSG_CONFORMS))}[/]: " if ok
                   else f"[bold red]{escape(t(MSG_DOES_NOT_CONFORM))}[/]: ")
                  + escape(summary_line(results, args.lang)))
    return EXIT_OK if ok else EXIT_FINDINGS


class _StdoutToStderr:
    """Sends what is printed to stderr (Python's sys.stdout and, where it is the process's
    file descriptor 1, that too: a C library's output) until :meth:`restore`, which gives back
    the stream stdout was."""

    def __init__(self):
        import os

        self.stream = sys.stdout
        self.saved_fd = None
        try:
            self.stream.flush()
            if self.stream.fileno() == 1:
                sys.stderr.flush()
                self.saved_fd = os.dup(1)
                os.dup2(2, 1)
        except (AttributeError, OSError, ValueError):   # not a file (a test's capture)
            self.saved_fd = None
        sys.stdout = sys.stderr
        self.done = False

    def restore(self):
        import os

        if not self.done:
            self.done = True
            try:
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            if self.saved_fd is not None:
                os.dup2(self.saved_fd, 1)
                os.close(self.saved_fd)
            sys.stdout = self.stream
        return self.stream


if __name__ == "__main__":
    sys.exit(main())
