"""Hostile (copy detection): a reference copy with a statement that does nothing after each of
its statements, or behind comments that hold a form feed.

The test builds each variant from the disguised reference (tests/workflow/disguise.py) with
this file's helpers:

* `with_fillers(copy, filler)`: after every simple statement, one more at its indentation:
  ``0``, ``None``, ``_``, ``()``, ``-1`` (an expression that calls nothing) or ``_ = 0`` (a
  name nothing reads). The normalised token stream read ``pass`` and ``...`` as filler
  (fifth round) but not these: every k-gram of 12 tokens held one, and the copy's figure went
  from 0.82 to 0 (unflagged with every filler);
* `behind_form_feeds(copy)`: 70 lines ``x = 1  # n<form feed> )`` before the copy. Python
  ends a line at ``\\n``, ``\\r\\n`` and ``\\r`` only, but the fingerprinting split the text
  with ``str.splitlines``, which also cuts at a form feed (and ``\\x1c``, ``\\x85``,
  U+2028...): each comment became a line `` )`` that stopped the tokenizer, and after 64
  restarts the rest of the file (the copy) was never read.

Every variant is valid Python that runs as the reference does.

Expected: every variant is flagged (reference_copy); no honest submission of
tests/corpus/correct is, as a reference copy or in a pair.
"""
import io
import tokenize

FILLERS = ("0", "None", "_", "()", "-1", "_ = 0")


def with_fillers(source: str, filler: str) -> str:
    """`source` with `filler` after every simple statement, at that statement's indentation."""
    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    ends = {t.start[0] for prev, t in zip(toks, toks[1:])
            if t.type == tokenize.NEWLINE and prev.string != ":"}
    lines = source.splitlines()
    out = []
    for n, line in enumerate(lines, 1):
        out.append(line)
        if n in ends:
            out.append(line[:len(line) - len(line.lstrip())] + filler)
    return "\n".join(out) + "\n"


def behind_form_feeds(source: str, n: int = 70) -> str:
    """`source` after `n` assignments whose comments hold a form feed and a parenthesis."""
    return "x = 1  # n\x0c )\n" * n + source
