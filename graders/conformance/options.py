"""The command-line options the three commands share, spelled and answered one way.

``andrea-conform``, ``andrea-grade`` and ``andrea-audit`` take the same ``--spec`` (a bundled
name or a YAML path; a bad one is one line on stderr and exit status 2), ``--lang`` (the
language of the report the command writes), ``--format`` and ``--output`` (where the report
goes), and end with the same exit statuses. An option's old spelling keeps working for one
release, with a note on stderr that names the new one (:func:`add_renamed`).
"""

from __future__ import annotations

import argparse
import sys

#: Exit statuses of every command: 0 done (and, for a check or an audit, nothing wrong),
#: 1 findings (a check failed, an audit disagrees), 2 the command itself could not run
#: (bad usage, unreadable input, a bad spec).
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

SPEC_HELP = "bundled spec name or YAML path (default andrea-120m)"


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors exit with EXIT_USAGE (as argparse's do) through
    a SystemExit the command can catch."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def add_spec(p: argparse.ArgumentParser) -> None:
    p.add_argument("--spec", default=None, help=SPEC_HELP)


def seconds(text: str) -> float:
    """An option's number of wall seconds (argparse ``type=``): more than 0, finite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e6:   # NaN and infinity too
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds: {text!r}")
    return value


def add_lang(p: argparse.ArgumentParser, languages, what: str = "the report") -> None:
    """--lang: the language of what the command writes (never of what it reads)."""
    p.add_argument("--lang", default="en", choices=languages,
                   help=f"language of {what}: en, nl (Dutch) or ko (Korean)")


def add_output(p: argparse.ArgumentParser, *, help: str, required: bool = False,
               metavar: str = "PATH", renamed: tuple[str, ...] = ()) -> None:
    """--output (and old spellings in `renamed`, each with a note when used)."""
    p.add_argument("--output", required=required, default=None, metavar=metavar, help=help)
    for old in renamed:
        add_renamed(p, old, "--output", dest="output", metavar=metavar)


def add_renamed(p: argparse.ArgumentParser, old: str, new: str, *, dest: str, **kwargs) -> None:
    """`old` still works as `new` for one release; using it prints a note naming `new`."""

    class Renamed(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            print(f"{parser.prog}: note: {old} is now {new}; {old} will be removed in the next "
                  "release", file=sys.stderr)
            setattr(namespace, self.dest, values)

    p.add_argument(old, dest=dest, action=Renamed, help=argparse.SUPPRESS, **kwargs)


def spec_error_line(prog: str, exc: BaseException) -> str:
    """The one line a command prints for a spec it cannot use."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{prog}: {text}"


def load_spec_or_none(prog: str, spec_arg):
    """The spec, or None after printing its one error line on stderr (the command then exits
    with EXIT_USAGE)."""
    from spec import SpecError, load_spec

    try:
        return load_spec(spec_arg)
    except SpecError as exc:
        print(spec_error_line(prog, exc), file=sys.stderr)
        return None
