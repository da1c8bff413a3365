"""``andrea-audit suite``: the options and the run (graders/audit/suite.py does the work)."""

from __future__ import annotations

import sys
from pathlib import Path

from graders.conformance.options import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_output,
                                         add_spec, load_spec_or_none)

from .suite import FAST_PROFILE, SuiteAuditError, audit_suite
from .suite_report import RENDERERS, summary_line


def add_suite_parser(sub) -> None:
    s = sub.add_parser("suite", help="mutation analysis: which bugs would the checks let through")
    add_spec(s)
    s.add_argument("--target", default="andrea_ref", metavar="TARGET",
                   help="andrea_ref (default), andrea_gpu, or the path of a .py file, a .cu "
                        "file or a package folder (untrusted: run in the grader's sandbox)")
    s.add_argument("--jobs", default="1", metavar="N",
                   help="mutants run in N processes at once (default 1)")
    s.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the mutants on this Dask scheduler (tcp://host:8786)")
    s.add_argument("--sample", default=None, metavar="N",
                   help="run a deterministic sample of N mutants (default: all)")
    s.add_argument("--seed", default="0", metavar="S", help="the sample's seed (default 0)")
    s.add_argument("--operator", action="append", metavar="OP",
                   help="only this mutation operator (repeatable)")
    s.add_argument("--format", default="text", choices=sorted(RENDERERS), type=_format,
                   help="text (default), markdown, html or json (md: the old spelling of "
                        "markdown)")
    add_output(s, metavar="FILE", help="write the report there (default: print it)")
    s.add_argument("--min-score", default=None, metavar="PCT",
                   help="exit 1 when the mutation score is below PCT percent")
    s.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "container", "none"],
                   help="isolation of a target given by path (none: trusted code only)")
    s.add_argument("--no-equivalence", action="store_true",
                   help="skip the differential runs of survivors (faster; none is "
                        "then marked equivalent)")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _format(value: str) -> str:
    """--format: markdown as the other commands spell it; md, its old spelling here, still
    works for one release, with a note."""
    if value == "md":
        print("andrea-audit suite: note: --format md is now --format markdown; md will be "
              "removed in the next release", file=sys.stderr)
        return "markdown"
    return value


def _int(name: str, value: str, low: int) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise SuiteAuditError(f"{name} {value!r}: not a whole number") from None
    if n < low:
        raise SuiteAuditError(f"{name} {value!r}: must be at least {low}")
    return n


def run_suite(args) -> int:
    from .mutate import OPERATORS

    jobs = _int("--jobs", args.jobs, 1)
    sample = None if args.sample is None else _int("--sample", args.sample, 1)
    seed = _int("--seed", args.seed, 0)
    min_score = None
    if args.min_score is not None:
        try:
            min_score = float(args.min_score)
        except ValueError:
            raise SuiteAuditError(f"--min-score {args.min_score!r}: not a number") from None
        if not 0 <= min_score <= 100:
            raise SuiteAuditError(f"--min-score {args.min_score!r}: a percentage, 0 to 100")
    bad = [op for op in args.operator or () if op not in OPERATORS]
    if bad:
        raise SuiteAuditError(f"--operator {bad[0]!r}: unknown; choose from "
                              + ", ".join(OPERATORS))
    if args.output:
        out = Path(args.output)
        if out.is_dir() or not out.parent.is_dir():
            raise SuiteAuditError(f"--output {args.output}: not a file in an existing folder")
    spec = load_spec_or_none("andrea-audit", args.spec)   # the one line every command prints
    if spec is None:
        return EXIT_USAGE
    done = [0]

    def progress(res: dict) -> None:
        done[0] += 1
        if not args.quiet:
            print(f"  [{done[0]}] {res['id']}: {res.get('status')}", file=sys.stderr)

    result = audit_suite(spec, args.target, jobs=jobs, scheduler=args.scheduler,
                         sample_size=sample, seed=seed, operators=args.operator,
                         sandbox=args.sandbox, profile=FAST_PROFILE,
                         equivalence=not args.no_equivalence, on_done=progress)
    text = RENDERERS[args.format](result)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise SuiteAuditError(f"--output {args.output}: cannot write "
                                  f"({exc.strerror or exc})") from None
        print(summary_line(result))
    else:
        sys.stdout.write(text)
    if min_score is not None and result["score"] is not None \
            and 100 * result["score"] < min_score:
        print(f"andrea-audit suite: mutation score {100 * result['score']:.1f} % is below "
              f"--min-score {min_score:g}", file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK
