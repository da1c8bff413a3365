"""Copy flags: how much of a submission is the reference, or another student's submission.

Fingerprints are winnowed k-grams (Schleimer, Wilkerson and Aiken, "Winnowing: local algorithms
for document fingerprinting", SIGMOD 2003 — the method of MOSS) of a normalised token stream:
Python's own tokenizer, with comments, docstrings, blank lines and layout dropped, every
identifier that is not a keyword, a builtin or an attribute name (``np.take`` keeps ``take``)
replaced by one placeholder, numbers and strings by one each. Renaming variables, reformatting
and stripping comments therefore change nothing; reordering functions changes little (the
fingerprints are a set).

* ``reference_copy``: the share of a submission's fingerprints that are also fingerprints of
  the reference (``andrea_ref``), read in the grader's process; flagged at
  ``REFERENCE_THRESHOLD`` or more. The flag carries the figure, never the reference's text.
* ``similar_to`` (batch): for two submissions, the share of the smaller one's fingerprints
  found in the other, after removing fingerprints that many submissions share (a provided
  template, the contract's signatures); flagged at ``PAIR_THRESHOLD`` or more.

Flags inform the teacher; they never change a score. docs/grading.md gives the false-positive
measurements behind the thresholds.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib.util
import io
import keyword
import token
import tokenize
from functools import lru_cache
from pathlib import Path

K = 12                  # tokens per k-gram
WINDOW = 6              # winnowing window (k-grams)
MIN_FINGERPRINTS = 8    # below this a file is too small to compare
REFERENCE_THRESHOLD = 0.6
PAIR_THRESHOLD = 0.7
MAX_TOKENS = 100_000    # a homework is a few thousand; the rest of a bigger file is not read
_KEEP = set(dir(builtins)) | {"self", "cls"}


def tokens(text: str) -> list[str]:
    """The normalised token stream of Python source (best effort on broken source), at most
    MAX_TOKENS of it: a 5 MiB file of `1+1+...` is five million tokens, about a minute of the
    grader's time in every batch for one student's file."""
    out: list[str] = []
    prev = None
    at_line_start = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if len(out) >= MAX_TOKENS:
                break
            typ, s = tok.type, tok.string
            if typ in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if typ == tokenize.NEWLINE:
                out.append(";")
                at_line_start = True
                prev = typ
                continue
            if typ in (tokenize.INDENT, tokenize.DEDENT):
                out.append(">" if typ == tokenize.INDENT else "<")
                at_line_start = True
                continue
            if typ == tokenize.STRING or typ in _FSTRING_TYPES:
                if at_line_start:      # a docstring or a bare string statement
                    continue
                if not out or out[-1] != "S":
                    out.append("S")
            elif typ == tokenize.NUMBER:
                out.append("0")
            elif typ == tokenize.NAME:
                if keyword.iskeyword(s) or s in _KEEP or (out and out[-1] == "."):
                    out.append(s)
                else:
                    out.append("V")
            else:
                out.append(s)
            at_line_start = False
            prev = typ
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


_FSTRING_TYPES = tuple(getattr(token, n) for n in ("FSTRING_START", "FSTRING_MIDDLE",
                                                   "FSTRING_END") if hasattr(token, n))


def fingerprints(text: str, k: int = K, window: int = WINDOW) -> frozenset[int]:
    """Winnowed hashes of the k-grams of `text`'s normalised tokens."""
    toks = tokens(text)
    if len(toks) < k:
        return frozenset()
    hashes = [int.from_bytes(hashlib.blake2b(" ".join(toks[i:i + k]).encode(),
                                             digest_size=8).digest(), "big")
              for i in range(len(toks) - k + 1)]
    if len(hashes) <= window:
        return frozenset([min(hashes)])
    picked = set()
    for i in range(len(hashes) - window + 1):
        w = hashes[i:i + window]
        picked.add(min(w))
    return frozenset(picked)


def containment(a: frozenset, b: frozenset) -> float:
    """Share of `a`'s fingerprints that are in `b` (0 when `a` is too small to say)."""
    if len(a) < MIN_FINGERPRINTS:
        return 0.0
    return len(a & b) / len(a)


@lru_cache(maxsize=1)
def reference_fingerprints() -> frozenset[int]:
    """Fingerprints of the reference implementation's modules (empty where it is absent,
    as in the student kit)."""
    try:
        spec = importlib.util.find_spec("andrea_ref")
    except (ImportError, ValueError):
        return frozenset()
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    out: set[int] = set()
    for loc in spec.submodule_search_locations:
        for f in sorted(Path(loc).glob("*.py")):
            try:
                out |= fingerprints(f.read_text(encoding="utf-8"))
            except OSError:
                continue
    return frozenset(out)


def python_text(files: dict[str, bytes], module: str | None) -> str:
    """The Python text of a submission to compare: its module and helper modules."""
    parts = []
    for rel in sorted(files):
        if rel.endswith(".py") and (module is None or rel == module or "/" not in rel):
            parts.append(files[rel].decode("utf-8", "replace"))
    return "\n".join(parts)


def reference_flags(text: str) -> list[dict]:
    """[{kind: reference_copy, similarity, message}] when `text` is mostly the reference."""
    ref = reference_fingerprints()
    if not ref:
        return []
    sim = containment(fingerprints(text), ref)
    if sim < REFERENCE_THRESHOLD:
        return []
    return [{"kind": "reference_copy", "similarity": round(sim, 3),
             "threshold": REFERENCE_THRESHOLD,
             "message": f"{sim:.0%} of this submission's code fingerprints are the reference "
                        "implementation's (renaming, reformatting and removing comments do not "
                        "change this figure); review it before accepting the score"}]


def similar_pairs(texts: dict[str, str], threshold: float = PAIR_THRESHOLD,
                  common_share: float = 0.2) -> list[tuple[str, str, float]]:
    """Pairs (a, b, similarity) of submissions at or above `threshold`, most similar first.

    Fingerprints found in more than `common_share` of the submissions (at least 3) count as
    boilerplate (a template, the contract's signatures) and are ignored.
    """
    fps = {name: fingerprints(t) for name, t in texts.items()}
    counts: dict[int, int] = {}
    for f in fps.values():
        for h in f:
            counts[h] = counts.get(h, 0) + 1
    limit = max(3, int(common_share * len(fps)))
    common = {h for h, n in counts.items() if n > limit}
    fps = {k: v - common for k, v in fps.items()}
    names = sorted(fps)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            fa, fb = fps[a], fps[b]
            small, big = (fa, fb) if len(fa) <= len(fb) else (fb, fa)
            sim = containment(small, big)
            if sim >= threshold:
                pairs.append((a, b, round(sim, 3)))
    pairs.sort(key=lambda p: (-p[2], p[0], p[1]))
    return pairs
