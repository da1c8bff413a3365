"""andrea-grade: grade untrusted submissions against the spec.

    andrea-grade SUBMISSION [--spec S] [--format text|json|gradescope|junit] [--output PATH]
                            [--lang en|nl|ko] [--profile grading]
                            [--sandbox auto|bwrap|container|none]
    andrea-grade batch DIR [--jobs N] [--db PATH] [--regrade] [--csv PATH] [--histogram PATH]
                           [--scheduler ADDRESS] [--spec S] [--profile P] [--lang L]

Exit status 0 whenever grading completed, whatever the score; 2 with a one-line reason when
the grader itself cannot run (missing file, bad spec, unusable options).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

from graders.conformance.options import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Parser, add_lang,
                                         add_output, add_spec, seconds, spec_error_line)
from graders.conformance.profiles import PROFILES

from .formats import FORMATS, render
from .i18n import LANGUAGES
from .sandbox import Limits

EXIT_GRADER = EXIT_USAGE   # the grader itself cannot run (andrea-grade's exit status 2)
COMMANDS = """other commands:
  andrea-grade batch DIR [--jobs N] [--csv PATH] ...   grade every submission in DIR into a
                                                      gradebook (andrea-grade batch --help)
  andrea-grade gradescope-zip --output autograder.zip  the autograder zip for Gradescope
                                                      (andrea-grade gradescope-zip --help)
  andrea-grade student-kit --output DIR               the students' self-check wheel
                                                      (andrea-selfcheck: no reference inside)
"""


def _common(ap: argparse.ArgumentParser) -> None:
    add_spec(ap)
    ap.add_argument("--profile", default="grading", choices=sorted(PROFILES),
                    help="Hypothesis profile (default: %(default)s)")
    add_lang(ap, LANGUAGES, "the feedback")
    ap.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "container", "none"),
                    help="auto, bwrap: isolate with bubblewrap, or refuse to grade where it "
                         "cannot run (fail closed); container: for a disposable container "
                         "that grades and is thrown away (Gradescope, PrairieLearn, CI), as "
                         "root: the worker runs under a uid of its own and the grader's files "
                         "are made root-only (docs/grading.md); none: no isolation, for "
                         "trusted code only (unsafe)")
    d = Limits()   # the help states the defaults where they are defined
    ap.add_argument("--call-timeout", type=seconds, default=None, metavar="S",
                    help=f"wall seconds per call into the submission ({d.call_timeout:g})")
    ap.add_argument("--check-timeout", type=seconds, default=None, metavar="S",
                    help=f"wall seconds per check ({d.check_timeout:g})")
    ap.add_argument("--total-timeout", type=seconds, default=None, metavar="S",
                    help=f"wall seconds per submission, the budget ({d.total_timeout:g})")
    ap.add_argument("--memory-mb", type=int, default=None,
                    help=f"worker address space ({d.memory_mb})")
    ap.add_argument("--select", action="append", default=None, metavar="ID",
                    help="only these checks (id or clause pattern; for debugging, not grading)")


def _limits(args) -> Limits:
    over = {}
    for opt, field in (("call_timeout", "call_timeout"), ("check_timeout", "check_timeout"),
                       ("total_timeout", "total_timeout"), ("memory_mb", "memory_mb")):
        v = getattr(args, opt)
        if v is not None:
            if v <= 0:
                raise SystemExit(_fail(f"--{opt.replace('_', '-')} must be positive"))
            over[field] = v
    return Limits(**over)


def _fail(reason: str) -> int:
    print(f"andrea-grade: {reason.splitlines()[0] if reason else 'error'}", file=sys.stderr)
    return EXIT_GRADER


def _load_spec(name):
    from spec import SpecError, load_spec

    try:
        return load_spec(name)
    except SpecError as exc:
        print(spec_error_line("andrea-grade", exc), file=sys.stderr)
        raise SystemExit(EXIT_GRADER) from None


def write_atomic(path: str | Path, data: str) -> None:
    """Write `data` to `path` via a temporary file and a rename (replaces symlinks too)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _grade_options(ap) -> None:
    ap.add_argument("submission")
    ap.add_argument("--format", default="text", choices=FORMATS)
    add_output(ap, help="write here instead of stdout")
    _common(ap)


def grade_main(args) -> int:
    started = time.monotonic()   # the report's execution_time: from here to the report
    from .grading import GraderError, grade, load_submission, require_isolation

    spec = _load_spec(args.spec)
    limits = _limits(args)
    if args.output and not Path(args.output).resolve().parent.is_dir():
        return _fail(f"--output {args.output}: the folder does not exist")
    try:
        # refused for lack of isolation before any byte of the submission is read or parsed
        require_isolation(args.sandbox, args.profile)
        sub = load_submission(args.submission)
        report = grade(sub, spec, profile=args.profile, limits=limits, sandbox=args.sandbox,
                       select=args.select, started=started)
    except GraderError as exc:
        return _fail(str(exc))
    except ValueError as exc:  # unknown profile
        return _fail(str(exc))
    color = args.output is None and sys.stdout.isatty()
    out = render(report, args.format, args.lang, color=color)
    if args.output:
        write_atomic(args.output, out)
    else:
        sys.stdout.write(out)
        sys.stdout.flush()
    return EXIT_OK


def _batch_options(ap) -> None:
    ap.add_argument("dir")
    ap.add_argument("--jobs", type=int, default=None,
                    help="submissions graded in parallel (default: the usable cores)")
    ap.add_argument("--db", default=None, help="SQLite gradebook (DIR/../gradebook.sqlite)")
    ap.add_argument("--regrade", action="store_true", help="grade again what is already graded")
    ap.add_argument("--csv", default=None, help="write scores per clause group here")
    ap.add_argument("--histogram", default=None, help="write a PNG histogram of scores here")
    ap.add_argument("--scheduler", default=None, help="address of a Dask scheduler")
    ap.add_argument("--feedback-dir", default=None, metavar="OUT",
                    help="write one feedback file per student here (in --lang)")
    ap.add_argument("--feedback-format", default="markdown", choices=("markdown", "html"),
                    type=_feedback_format,
                    help="feedback files as Markdown (default) or HTML (md: the old spelling "
                         "of markdown)")
    ap.add_argument("--report-dir", default=None, metavar="OUT",
                    help="write summary.html, scores.png, summary.txt and similarity.html here")
    ap.add_argument("--similarity-threshold", type=float, default=None, metavar="X",
                    help="flag pairs of submissions sharing at least this share of code "
                         "fingerprints (0..1, default 0.7)")
    ap.add_argument("--no-progress", action="store_true")
    _common(ap)


def _feedback_format(value: str) -> str:
    """--feedback-format: markdown, as andrea-audit spells it; md still works for one release,
    with a note."""
    if value == "md":
        print("andrea-grade batch: note: --feedback-format md is now --feedback-format markdown; "
              "md will be removed in the next release", file=sys.stderr)
        return "markdown"
    return value


def batch_main(args) -> int:
    from .batch import BatchError, default_jobs, run_batch

    spec = _load_spec(args.spec)
    limits = _limits(args)
    if args.jobs is None:
        args.jobs = default_jobs()
    if args.jobs < 1:
        return _fail("--jobs must be at least 1")
    thr = args.similarity_threshold
    if thr is not None and not 0 < thr <= 1:
        return _fail("--similarity-threshold must be in (0, 1]")
    for opt in ("feedback_dir", "report_dir"):
        d = getattr(args, opt)
        if d and Path(d).exists() and not Path(d).is_dir():
            return _fail(f"--{opt.replace('_', '-')} {d}: not a folder")
    for opt in ("csv", "histogram", "db"):
        f = getattr(args, opt)
        if f and not Path(f).resolve().parent.is_dir():
            return _fail(f"--{opt} {f}: the folder does not exist")
    extra = {"similarity_threshold": thr} if thr is not None else {}
    try:
        summary = run_batch(args.dir, spec, jobs=args.jobs, db=args.db, regrade=args.regrade,
                            csv_path=args.csv, histogram=args.histogram,
                            scheduler=args.scheduler, profile=args.profile, limits=limits,
                            sandbox=args.sandbox, lang=args.lang, select=args.select,
                            progress=not args.no_progress, feedback_dir=args.feedback_dir,
                            feedback_format={"markdown": "md"}.get(args.feedback_format,
                                                                     args.feedback_format),
                            report_dir=args.report_dir,
                            **extra)
    except BatchError as exc:
        return _fail(str(exc))
    print(summary)
    return EXIT_OK


def _zip_options(ap) -> None:
    add_output(ap, required=True, help="the zip to write (autograder.zip)")
    add_spec(ap)
    add_lang(ap, LANGUAGES, "the students' feedback")
    ap.add_argument("--profile", default="grading", choices=sorted(PROFILES),
                    help="Hypothesis profile used on Gradescope (default: grading)")
    ap.add_argument("--sandbox", default="container", choices=("container", "auto", "bwrap"),
                    help="how run_autograder isolates each submission: container (default; "
                         "Gradescope's containers are disposable and need not allow "
                         "namespaces), or bubblewrap (auto, bwrap) where they do")
    ap.add_argument("--check", action="store_true",
                    help="then unpack the zip into a scratch /autograder layout and run its "
                         "run_autograder on the bundled correct and buggy examples in the "
                         "zip's mode, validating results.json (exit status 1 if it fails)")


def zip_main(args) -> int:
    from .gradescope_zip import ZipError, build_zip, check_zip

    _load_spec(args.spec)
    try:
        path = build_zip(args.output, spec_arg=args.spec, lang=args.lang, profile=args.profile,
                         sandbox=args.sandbox)
    except ZipError as exc:
        return _fail(str(exc))
    print(f"wrote {path}: upload it as the autograder of a Gradescope programming assignment")
    if args.check:
        if not check_zip(path):
            print("check: FAILED: fix this before students submit", file=sys.stderr)
            return EXIT_FINDINGS
        print("check: passed")
    return EXIT_OK


def _kit_options(ap) -> None:
    add_output(ap, required=True, metavar="DIR", help="folder to write the wheel into")


def kit_main(args) -> int:
    from .gradescope_zip import ZipError, build_selfcheck_wheel

    if Path(args.output).exists() and not Path(args.output).is_dir():
        return _fail(f"--output {args.output}: not a folder")
    try:
        path = build_selfcheck_wheel(args.output)
    except ZipError as exc:
        return _fail(str(exc))
    print(f"wrote {path}: students install it with pip install {path.name}")
    return EXIT_OK


#: The subcommands: name -> (options, what it does, the function that runs it).
SUBCOMMANDS = {
    "grade": (_grade_options, "Grade one submission (a .py file, a folder with one module, or "
                              "a .cu kernel source).", grade_main),
    "batch": (_batch_options, "Grade every submission in DIR into a gradebook.", batch_main),
    "gradescope-zip": (_zip_options, "Write the autograder zip Gradescope expects: setup.sh, "
                                     "run_autograder and this package as a wheel (built from "
                                     "the source tree).", zip_main),
    "student-kit": (_kit_options, "Build the students' self-check wheel (andrea-selfcheck): the "
                                  "checks, the spec and andrea-conform, without the reference.",
                    kit_main),
}


def build_parser() -> argparse.ArgumentParser:
    """andrea-grade's parser: one subparser per command. ``andrea-grade SUBMISSION ...`` is the
    ``grade`` command (its name may be left out, and is in the usage)."""
    p = Parser(prog="andrea-grade", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name, (options, what, _) in SUBCOMMANDS.items():
        prog = "andrea-grade" if name == "grade" else f"andrea-grade {name}"
        sp = sub.add_parser(name, prog=prog, description=what, help=what,
                            epilog=COMMANDS if name == "grade" else None,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
        options(sp)
    return p


def main(argv=None) -> int:
    from graders import keep_cwd_clean

    keep_cwd_clean()
    argv = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if not argv or argv[0] not in SUBCOMMANDS:
        argv = ["grade", *argv]          # andrea-grade SUBMISSION: the grade command
    try:
        args = build_parser().parse_args(argv)
        return SUBCOMMANDS[args.command][2](args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_GRADER
    except KeyboardInterrupt:
        return _fail("interrupted")


if __name__ == "__main__":
    sys.exit(main())
