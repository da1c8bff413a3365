"""Copy flags: how much of a submission is the reference, or another student's submission.

Fingerprints are winnowed k-grams (Schleimer, Wilkerson and Aiken, "Winnowing: local algorithms
for document fingerprinting", SIGMOD 2003 — the method of MOSS) of a normalised token stream:
Python's own tokenizer, with comments, docstrings, blank lines and layout dropped, every
name but a keyword (``self`` and ``cls`` aside) replaced by one placeholder, builtins and
attributes too, a dotted name (``np.add.at``) read as one name, numbers and strings by one
placeholder each, and statements that do nothing left out. Renaming variables, aliasing
builtins and NumPy's functions (``from numpy import *``, ``_len = len``), reformatting and
stripping comments therefore change nothing; reordering functions changes little (the
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

import ast
import hashlib
import importlib.util
import io
import keyword
import token
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from andrea_runtime.cells import source_lines
from graders.conformance.sources import (IPYTHON_STAND_IN, NOTEBOOK_PRELUDE,
                                         parse_is_bounded)
from graders.conformance.submission import NOTEBOOK_MODULE

K = 15                  # tokens per k-gram
WINDOW = 6              # winnowing window (k-grams)
MIN_FINGERPRINTS = 5    # below this a file is too small to compare (about 35 tokens of code,
#                         as 8 fingerprints were with k-grams of 12 tokens)
REFERENCE_THRESHOLD = 0.6
PAIR_THRESHOLD = 0.7
QUADRATIC_CODECS = ("punycode", "idna")
QUADRATIC_CODEC_BYTES = 64 << 10
MAX_OTHER_SOURCE = 256 << 10   # bytes of a file not named .py that is parsed to see if it is Python
MAX_RESTARTS = 64          # broken places in one text read past (each restart reads on)
REFERENCE_MODULE_MIN = 40   # fingerprints a reference module needs to be looked for alone
MAX_FRAGMENTS = 200     # matched fragments shown for one pair
MAX_OCCURRENCES = 8     # places one fingerprint is looked up at in each text (repeated code)
MIN_RUN = 2             # fingerprints in a row that make a fragment worth showing
_KEEP = {"self", "cls"}     # names kept as they are (every other name but a keyword: V)


def tokens(text: str) -> list[str]:
    """The normalised token stream of Python source (best effort on broken source), all of
    it: there is no cap to hide a copy behind (a submission is at most 5 MiB; reading it is
    linear)."""
    return located_tokens(text)[0]


def located_tokens(text: str) -> tuple[list[str], list[int]]:
    """`tokens(text)` and, for each, the line (1-based) of `text` it starts on.

    Lines end where Python ends them (``\\n``, ``\\r\\n``, ``\\r``; not at a form feed or
    ``\\x1c`` in a comment, where ``str.splitlines`` cuts: 70 comments holding ``\\x0c )``
    stopped the tokenizer 70 times, past MAX_RESTARTS, and the copy after them was never
    read). Where Python's tokenizer stops (an unterminated string, an inconsistent dedent: a
    broken helper file joined before the module), it starts again on the next line, so what
    follows a broken line is read too; every restart consumes at least one line (linear).
    Statements that do nothing are then left out (_drop_inert)."""
    out: list[str] = []
    where: list[int] = []
    raw: list[str | None] = []
    lines = source_lines(text, keepends=True)
    first = 0          # index in `lines` where this run of the tokenizer starts
    runs = 0
    while first < len(lines) and runs < MAX_RESTARTS:
        rest = (lines[i] for i in range(first, len(lines)))
        stopped = _tokenize_run(rest, first, out, where, raw)
        if stopped is None:
            break
        first, runs = max(stopped, first + 1), runs + 1
    return _drop_inert(out, where, raw)


def _tokenize_run(lines, offset: int, out: list[str], where: list[int],
                  raw: list[str | None]) -> int | None:
    """Tokenize from line `offset` (0-based) on; None at the end, else the index of the line
    after the one where the tokenizer stopped. `raw` gets each token's variable name (a name
    that is not an attribute, a keyword), else None."""
    at_line_start = True
    line = offset
    try:
        for tok in tokenize.generate_tokens(lambda: next(lines, "")):
            typ, s, line = tok.type, tok.string, tok.start[0] + offset
            if typ in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            if typ == tokenize.NEWLINE or (typ == tokenize.OP and s == ";"):
                # one statement end, however written: 'a = 1; b = 2', a ';' before the line's
                # end, and empty statements added between copied ones read as one line end
                if not out or out[-1] != ";":
                    out.append(";")
                    where.append(line)
                    raw.append(None)
                at_line_start = True
                continue
            if at_line_start and (s == "pass" or s == "..."):
                continue     # a statement that does nothing, as filler between copied lines
            name = None
            if typ in (tokenize.INDENT, tokenize.DEDENT):
                out.append(">" if typ == tokenize.INDENT else "<")
                where.append(where[-1] if where else line)   # the block the layout closes
                raw.append(None)
                at_line_start = True
                continue
            if typ == tokenize.STRING or typ in _FSTRING_TYPES:
                if at_line_start:      # a docstring or a bare string statement
                    continue
                if not out or out[-1] != "S":
                    out.append("S")
                    where.append(line)
                    raw.append(None)
            elif typ == tokenize.NUMBER:
                out.append("0")
                where.append(line)
                raw.append(None)
            elif typ == tokenize.NAME:
                if out and out[-1] == ".":
                    # an attribute: `np.add.at` reads as one name, as `at` imported would
                    # (sixth red-team round: 'from numpy import *' and builtins aliased took a
                    # reference copy from 0.81 to unflagged)
                    out.pop()
                    where.pop()
                    raw.pop()
                    at_line_start = False
                    continue
                if keyword.iskeyword(s) or s in _KEEP:
                    out.append(s)
                else:
                    out.append("V")
                if not keyword.iskeyword(s):
                    name = s
                where.append(line)
                raw.append(name)
            else:
                out.append(s)
                where.append(line)
                raw.append(None)
            at_line_start = False
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        at = getattr(exc, "lineno", None)
        if at is None and len(exc.args) > 1 and isinstance(exc.args[1], tuple):
            at = exc.args[1][0]
        at = (at + offset) if isinstance(at, int) else line
        return max(at, offset + 1)
    return None


# a statement starting with one of these keywords is judged as code (a block, a return, an
# import...); one starting with another (None, True, not, lambda) is an expression
_VALUE_KEYWORDS = {"None", "True", "False", "not", "lambda"}
_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=",
               ">>=", "<<="}
_OPEN, _CLOSE = set("([{"), set(")]}")


def _drop_inert(out: list[str], where: list[int], raw: list[str | None]
                ) -> tuple[list[str], list[int]]:
    """The token stream less the statements that do nothing, so that filler between copied
    statements changes no k-gram (sixth red-team round: ``0``, ``None``, ``_``, ``()``,
    ``_ = 0`` after every statement took a reference copy from 0.82 to unflagged):

    * an expression statement that calls nothing (``0``, ``x``, ``-1``, ``(a, b)``,
      ``x[0]``; a notebook's bare ``df`` shows a value, which grading never sees), and an
      annotation without a value (``x: int``);
    * in a function's body, an assignment to plain names none of which is read by a
      statement that is kept (``_ = 0``, ``_ = len(x)``, ``a = a + 1`` where nothing kept
      reads ``a``): judged over the whole text, names and not scopes, from the statements
      that are code (a call, a block, a return, an assignment to an attribute or an item,
      any assignment of a module or a class, whose names are read from outside) to the
      assignments they read, each statement once (linear).

    Both sides of a comparison are read this way, the reference too."""
    # statements: [start, end) token ranges, ending before their ';' (kept with it)
    # and whether each is in a function's body (its innermost def or class a def)
    stmts: list[tuple[int, int]] = []
    local: list[bool] = []
    blocks = [False]            # per open block: its statements are a function's locals
    start = 0
    for i, t in enumerate(out + [";"]):
        if t in (";", ">", "<"):
            if i > start:
                stmts.append((start, i))
                local.append(blocks[-1])
            if t == ">":
                head = out[stmts[-1][0]:stmts[-1][0] + 2] if stmts else []
                blocks.append(True if "def" in head else False if head[:1] == ["class"]
                              else blocks[-1])
            elif t == "<" and len(blocks) > 1:
                blocks.pop()
            start = i + 1
    keep = [True] * len(stmts)
    live: set[str] = set()
    by_target: dict[str, list[int]] = {}
    uses: dict[int, set[str]] = {}
    for k, (a, b) in enumerate(stmts):
        first = out[a]
        names = {raw[i] for i in range(a, b) if raw[i] is not None}
        if (keyword.iskeyword(first) and first not in _VALUE_KEYWORDS) or first == "@":
            live |= names
            continue
        depth, assign, call, annotated = 0, -1, False, False
        for i in range(a, b):
            t = out[i]
            if t in _OPEN:
                if t == "(" and i > a and (raw[i - 1] is not None or out[i - 1] in _CLOSE
                                           or (out[i - 1] not in _OPEN and out[i - 2:i - 1]
                                               == ["."])):
                    call = True
                depth += 1
            elif t in _CLOSE:
                depth = max(0, depth - 1)
            elif depth == 0 and t in _ASSIGN_OPS:
                assign = i          # the last: 'a = b = 0' assigns a and b
            elif depth == 0 and t == ":" and assign < 0:
                annotated = True
            elif t in ("await", "yield"):
                call = True
        if assign < 0:
            if call:
                live |= names
            else:
                keep[k] = False     # an expression that calls nothing; 'x: int'
            continue
        if any(t in (".", "[") or (t == "(" and raw[i - 1] is not None)
               for i, t in enumerate(out[a:assign], a)):
            live |= names           # an attribute or an item: an object changes
            continue
        head = next((i for i in range(a, assign) if out[i] == ":"), assign) if annotated \
            else assign             # 'x: int = 0' assigns x, not int
        mine = {raw[i] for i in range(a, head) if raw[i] is not None}
        read = names if out[assign] != "=" else (
            {raw[i] for i in range(assign, b) if raw[i] is not None})
        if not mine or not local[k]:    # a module's or a class's names: read from outside
            live |= read                # (what it assigns is not read by that)
            continue
        keep[k] = False
        uses[k] = read
        for n in mine:
            by_target.setdefault(n, []).append(k)
    todo = list(live)
    while todo:
        n = todo.pop()
        for k in by_target.pop(n, ()):
            if not keep[k]:
                keep[k] = True
                for m in uses[k]:
                    if m not in live:
                        live.add(m)
                        todo.append(m)
    drop = [False] * len(out)
    for k, (a, b) in enumerate(stmts):
        if not keep[k]:
            for i in range(a, min(b + 1, len(out))):
                if i == b and out[i] != ";":
                    break
                drop[i] = True
    return ([t for t, d in zip(out, drop) if not d],
            [w for w, d in zip(where, drop) if not d])


_FSTRING_TYPES = tuple(getattr(token, n) for n in ("FSTRING_START", "FSTRING_MIDDLE",
                                                   "FSTRING_END") if hasattr(token, n))


def _kgram_hashes(toks: list[str], k: int) -> list[int]:
    return [int.from_bytes(hashlib.blake2b(" ".join(toks[i:i + k]).encode(),
                                           digest_size=8).digest(), "big")
            for i in range(len(toks) - k + 1)]


def _winnow(hashes: list[int], window: int) -> dict[int, list[int]]:
    """The winnowed hashes, each with the k-gram positions where it was picked: the rightmost
    minimum of every window (Schleimer et al.), one pick per run of windows; linear (a queue
    of the window's candidate minima)."""
    picked: dict[int, list[int]] = {}
    if not hashes:
        return picked
    if len(hashes) <= window:
        i = min(range(len(hashes)), key=hashes.__getitem__)
        return {hashes[i]: [i]}
    from collections import deque

    cand: deque[int] = deque()     # positions, their hashes increasing strictly from the left
    for j, h in enumerate(hashes):
        while cand and hashes[cand[-1]] >= h:    # the rightmost of equal minima wins
            cand.pop()
        cand.append(j)
        start = j - window + 1
        if start < 0:
            continue
        while cand[0] < start:
            cand.popleft()
        i = cand[0]
        at = picked.setdefault(hashes[i], [])
        if not at or at[-1] != i:
            at.append(i)
    return picked


@lru_cache(maxsize=8)
def _located_picks(text: str, k: int, window: int):
    """(winnowed hash -> k-gram positions, the line of each token as an array) of `text`,
    kept for the last texts (the similarity page looks one text up against many)."""
    from array import array

    toks, lines = located_tokens(text)
    if len(toks) < k:
        return {}, array("l")
    return _winnow(_kgram_hashes(toks, k), window), array("l", lines)


@lru_cache(maxsize=256)
def fingerprints(text: str, k: int = K, window: int = WINDOW) -> frozenset[int]:
    """Winnowed hashes of the k-grams of `text`'s normalised tokens (kept for the texts seen
    last: a batch asks for a text's fingerprints several times)."""
    return frozenset(_located_picks(text, k, window)[0])


def fingerprints_of(parts) -> frozenset[int]:
    """The fingerprints of a submission: of each of its files apart, together (a file that
    stops Python's tokenizer never hides the next one); `parts` is a text or (file, text)s."""
    if isinstance(parts, str):
        return fingerprints(parts)
    out: frozenset[int] = frozenset()
    for _, text in parts:
        out |= fingerprints(text)
    return out


def containment(a: frozenset, b: frozenset) -> float:
    """Share of `a`'s fingerprints that are in `b` (0 when `a` is too small to say)."""
    if len(a) < MIN_FINGERPRINTS:
        return 0.0
    return len(a & b) / len(a)


@lru_cache(maxsize=1)
def reference_fingerprints() -> frozenset[int]:
    """Fingerprints of the reference implementation's modules and of its argument checks
    (empty where the reference is absent, as in the student kit)."""
    out: set[int] = set()
    for _, text in reference_sources():
        out |= fingerprints(text)
    return frozenset(out)


def source_text(data: bytes) -> str:
    """A Python file's text as Python reads it: the encoding a PEP 263 coding line declares
    (a copy saved in UTF-7 reads as its code, not as +AF8-style bytes), a byte-order mark;
    else UTF-8, undecodable bytes replaced. Python's punycode decoder (and idna, built on it)
    takes time quadratic in the text: a file over QUADRATIC_CODEC_BYTES declaring it is read
    as UTF-8 (5 MiB of it would take the grader about twenty minutes)."""
    try:
        if len(data) > QUADRATIC_CODEC_BYTES:
            import codecs

            enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            if codecs.lookup(enc).name in QUADRATIC_CODECS:
                raise ValueError(enc)
        return importlib.util.decode_source(data)
    except (SyntaxError, UnicodeError, LookupError, ValueError):
        return data.decode("utf-8", "replace")


def python_parts(files: dict[str, bytes], module: str | None,
                 entry: str | None = None) -> list[tuple[str, str]]:
    """(file, text) of the Python files of a submission that are compared: every ``.py`` file
    of it, in folders too (a copy in a subfolder is a copy), the code cells of every notebook
    but the graded one (`entry`, whose cells are `module`), and every other file that is
    Python source under another name (a copy kept in notes.txt and run with exec is a copy),
    in the order of their paths, each read as Python reads it (source_text, a coding line
    included)."""
    from .tamper import notebook_cells

    parts = []
    for rel in sorted(files):
        if rel == module == NOTEBOOK_MODULE:
            parts.append((rel, _without_prelude(source_text(files[rel]))))
        elif rel.endswith(".py"):
            parts.append((rel, source_text(files[rel])))
        elif rel.endswith(".ipynb"):
            if rel != entry:   # a notebook beside the graded module: its cells are Python
                cells = "\n".join(src for _, src in notebook_cells(files[rel]))
                if cells.strip():
                    parts.append((rel, cells))
        elif text := _python_under_another_name(files[rel]):
            parts.append((rel, text))
    return parts


def _without_prelude(text: str) -> str:
    """A notebook's module less the lines the grader writes before its cells (display(), the
    IPython stand-in), each left blank so that line numbers stay: they are in every notebook's
    module and no student's code (two honest notebooks whose own code had little left once
    the class's common code was set aside shared little else, and were flagged at 0.75)."""
    ours = (NOTEBOOK_PRELUDE, IPYTHON_STAND_IN)
    lines = source_lines(text, keepends=True)
    for i, line in enumerate(lines[:len(ours)]):
        if line.rstrip("\r\n") in ours:
            lines[i] = "\n"
    return "".join(lines)


def _python_under_another_name(data: bytes) -> str | None:
    """The text of a file that is not named .py but is Python source with at least one
    statement that is not a bare string (prose and data do not parse as Python), read as
    Python reads it (a coding line: a copy saved as UTF-7 in notes.txt and run with
    exec(compile(open(..., 'rb').read(), ...)) is Python), else None. Only files up to
    MAX_OTHER_SOURCE bytes are parsed, under sources.parse_is_bounded (the bounds of every
    parse in the grader's process)."""
    if len(data) > MAX_OTHER_SOURCE or b"\0" in data:
        return None
    text = source_text(data)
    if not parse_is_bounded(text):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    code = [n for n in tree.body
            if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return text if code else None


def reference_flags(text) -> list[dict]:
    """[{kind: reference_copy, similarity, message}] when `text` (a text, or a submission's
    (file, text)s) is mostly the reference, or holds most of one reference module."""
    ref = reference_fingerprints()
    if not ref:
        return []
    mine = fingerprints_of(text)
    # the share of the submission that is the reference, or the share of one reference
    # module found in the submission, whichever is larger: code added around a copy (a
    # padding line of 100,000 tokens) dilutes the first and never the second
    sim = max([containment(mine, ref)] + [
        containment(fingerprints(r), mine) for _, r in reference_sources()
        if len(fingerprints(r)) >= REFERENCE_MODULE_MIN])
    if sim < REFERENCE_THRESHOLD:
        return []
    return [{"kind": "reference_copy", "similarity": round(sim, 3),
             "threshold": REFERENCE_THRESHOLD,
             "message": f"{sim:.0%} of this submission's code fingerprints are the reference "
                        "implementation's, or of one reference module's are in this submission "
                        "(renaming, reformatting, removing comments and adding code around it "
                        "do not lower this figure); review it before accepting the score"}]


def common_fingerprints(texts: dict[str, str], common_share: float = 0.2) -> frozenset[int]:
    """Fingerprints found in more than `common_share` of the submissions (at least 3): a
    provided template, the contract's signatures."""
    return _common([fingerprints_of(t) for t in texts.values()], common_share)


def _common(fps: list[frozenset[int]], common_share: float) -> frozenset[int]:
    """Fingerprints in more than `common_share` of the submissions (at least 3), counting
    submissions with the same fingerprints once: four identical copies in a class of fewer
    than 20 made their own code "common" and were never flagged."""
    counts: dict[int, int] = {}
    for f in set(fps):
        for h in f:
            counts[h] = counts.get(h, 0) + 1
    limit = max(3, int(common_share * len(fps)))
    return frozenset(h for h, n in counts.items() if n > limit)


def similar_pairs(texts: dict[str, str], threshold: float = PAIR_THRESHOLD,
                  common_share: float = 0.2) -> list[tuple[str, str, float]]:
    """Pairs (a, b, similarity) of submissions at or above `threshold`, most similar first.

    Fingerprints found in more than `common_share` of the submissions (at least 3) count as
    boilerplate (a template, the contract's signatures) and are ignored.
    """
    fps = {name: fingerprints_of(t) for name, t in texts.items()}
    common = _common(list(fps.values()), common_share)
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


# ----------------------------------------------------------------------------- what is shared
@dataclass(frozen=True)
class Fragment:
    """A stretch of code two texts share: its first and last line in each text (1-based,
    inclusive) and its length in normalised tokens."""

    a: tuple[int, int]
    b: tuple[int, int]
    tokens: int


def matched_fragments(text_a: str, text_b: str, *, ignore: frozenset[int] = frozenset(),
                      k: int = K, window: int = WINDOW) -> list[Fragment]:
    """The fragments `text_a` and `text_b` share, in `text_a`'s order: the fingerprints the
    similarity figure counts (less `ignore`, the boilerplate), located in both texts.

    Matching fingerprints in the same order and at the same distance in both texts (the same
    diagonal) whose k-grams are at most a winnowing window apart are one fragment: winnowing
    picks a fingerprint in every window, so a shared stretch has no larger gap. A lone
    fingerprint (one k-gram of layout and keywords any two files may share) is not shown
    (MIN_RUN). Fragments then
    keep the longest first and drop one that overlaps a kept one in either text (as JPlag's
    tiles do, a line is in at most one fragment); at most MAX_FRAGMENTS are returned.
    """
    pa, la = _located_picks(text_a, k, window)
    pb, lb = _located_picks(text_b, k, window)
    if not pa or not pb:
        return []
    hits = sorted((j - i, i, j) for h, at in pa.items() if h not in ignore and h in pb
                  for i in at[:MAX_OCCURRENCES] for j in pb[h][:MAX_OCCURRENCES])
    runs: list[list[int]] = []              # [diagonal, first i, last i, fingerprints]
    for d, i, _ in hits:
        if runs and runs[-1][0] == d and i - runs[-1][2] <= window:
            runs[-1][2] = i
            runs[-1][3] += 1
        else:
            runs.append([d, i, i, 1])
    runs = [r for r in runs if r[3] >= MIN_RUN]
    runs.sort(key=lambda r: (-(r[2] - r[1]), r[1]))
    kept: list[tuple[int, int, int, int]] = []   # token ranges [a0, a1], [b0, b1]
    for d, first, last, _ in runs:
        a0, a1, b0, b1 = first, last + k - 1, first + d, last + d + k - 1
        if any(a0 <= x1 and x0 <= a1 or b0 <= y1 and y0 <= b1 for x0, x1, y0, y1 in kept):
            continue
        kept.append((a0, a1, b0, b1))
        if len(kept) >= MAX_FRAGMENTS:
            break
    kept.sort()
    return [Fragment((la[a0], la[a1]), (lb[b0], lb[b1]), a1 - a0 + 1)
            for a0, a1, b0, b1 in kept]


@lru_cache(maxsize=1)
def reference_sources() -> tuple[tuple[str, str], ...]:
    """(file name, text) of the reference implementation's modules and of its argument checks
    (andrea_runtime/validate.py) (none where the reference is absent), the texts
    ``reference_fingerprints`` reads."""
    try:
        spec = importlib.util.find_spec("andrea_ref")
        checks = importlib.util.find_spec("andrea_runtime.validate")
    except (ImportError, ValueError):
        return ()
    if spec is None or not spec.submodule_search_locations:
        return ()
    files = [f for loc in spec.submodule_search_locations for f in sorted(Path(loc).glob("*.py"))]
    if checks is not None and checks.origin:
        files.append(Path(checks.origin))
    out = []
    for f in files:
        try:
            out.append((f.name, f.read_text(encoding="utf-8")))
        except OSError:
            continue
    return tuple(out)


def _overlap(r1: tuple[int, int], r2: tuple[int, int]) -> bool:
    return r1[0] <= r2[1] and r2[0] <= r1[1]


def file_fragments(parts_a, parts_b, *, ignore: frozenset[int] = frozenset()
                   ) -> list[tuple[str, str, Fragment]]:
    """The fragments two submissions share, file by file as their fingerprints are taken
    (fingerprints_of): (file of a, file of b, fragment in those files' own lines), for every
    file of `parts_a` against every file of `parts_b` ((file, text)s, or one text). The
    longest are kept first; a line of a file is in at most one fragment (on either side); at
    most MAX_FRAGMENTS, in `parts_a`'s order."""
    parts_a = [("", parts_a)] if isinstance(parts_a, str) else list(parts_a)
    parts_b = [("", parts_b)] if isinstance(parts_b, str) else list(parts_b)
    order = {name: i for i, (name, _) in enumerate(parts_a)}
    found = [(fa, fb, f) for fa, ta in parts_a for fb, tb in parts_b
             for f in matched_fragments(ta, tb, ignore=ignore)]
    found.sort(key=lambda x: (-x[2].tokens, order[x[0]], x[2].a))
    kept: list[tuple[str, str, Fragment]] = []
    for fa, fb, f in found:
        if any(ga == fa and _overlap(f.a, g.a) or gb == fb and _overlap(f.b, g.b)
               for ga, gb, g in kept):
            continue
        kept.append((fa, fb, f))
        if len(kept) >= MAX_FRAGMENTS:
            break
    kept.sort(key=lambda x: (order[x[0]], x[2].a))
    return kept


def reference_fragments(parts) -> list[tuple[str, str, Fragment]]:
    """(file of the submission, reference file, fragment) for the code a submission
    ((file, text)s, or one text) shares with the reference (file_fragments)."""
    return file_fragments(parts, reference_sources())
