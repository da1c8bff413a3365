"""The host side of a kernel submission: a student's .cu file behind the Python contract.

This module is part of the **kernel runtime** the grading worker receives (andrea_gpu without
its reference kernels, ``ops.py`` and ``submission.py``, beside ``andrea_runtime``): it
imports only numpy, the standard library, ``andrea_runtime`` and those modules, never the
reference (``andrea_ref``), the spec or the reference kernels. What it needs from them comes
in as data:

* the kernel contract: ``andrea_runtime.kernel_contract.KernelContract`` (entry point names,
  parameter types, launch shapes), read from the spec's ``kernels:`` mapping (the grader
  writes it as JSON);
* the argument checks (``validate``): a module with ``table``, ``token_ids``, ``sequence``
  and ``backward_args`` raising the contract's errors (``andrea_runtime.validate``).

It provides

* ``check_includes(text, name)``: a kernel source may include only a short list of standard
  and CUDA headers; anything else (a path, a macro, ``__has_include``, ``#pragma GCC
  dependency``, inline assembly, which can pull in files with ``.incbin``) is refused with a
  compiler-style message, before NVRTC or the host compiler ever sees the text;
* ``executor_source(text)``: the text the CPU executor compiles, where a "define if missing"
  guard (``#ifndef M_PI`` / ``#define M_PI ...`` / ``#endif``) takes the kernel's definition
  as NVRTC, which has no M_PI, does (line numbers kept);
* ``compile_kernel_source(path, contract) -> (ok, log)``: that check, then an NVRTC compile for
  the contract's arch with a generated signature check per entry point;
* ``load_kernel_submission(path, contract, validate) -> KernelHost``: lookup, embed and
  embed_backward launching the submitted kernels (float32; other dtypes are computed here
  with numpy, the kernel contract being float32), each valid call with the next of the
  contract's test launch shapes. Out-of-range ids are **not** stopped on the host: the kernels
  are launched with them, mixed with good ids, on every test shape, and must not touch memory
  out of bounds, must leave the smallest flat index of a bad id in ``*bad`` and must still get
  the good rows right; only then does the call raise the contract's IndexError. A kernel that
  fails raises ``KernelContractError`` (or the executor's ``OutOfBoundsError``) instead.
"""

from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

import numpy as np

from andrea_runtime.kernel_contract import EntryPoint, KernelContract

from .backend import get_backend
from .executor import findings as F
from .executor import macros as host_macros
from .executor import names as host_names
from .executor.build import BuildError, kernel_names
from .executor.findings import Said

MAX_SOURCE_BYTES = 1 << 20
#: The most one launch of a kernel submission may take on a GPU, by the executor's cost model
#: (its memory accesses at executor.launch.GPU_ACCESSES_PER_S): the kernel's time is judged by
#: what it would cost on a GPU, not by the CPU executor's wall time. 5 ms is thousands of times
#: what an embedding kernel needs at the course's sizes (a correct row-scan backward, O(V d n),
#: at V = 8449, d_model = 768, n = 128: about 0.9 ms).
GPU_LAUNCH_LIMIT_S = 0.005
#: Elements (ids x d_model) above which a call is a "real-size" call (see KernelHost._launch).
BIG_WORK = 1 << 18
INT32_MAX = int(np.iinfo(np.int32).max)
#: What an output the contract does not zero holds before a launch (every bit set: a NaN no
#: arithmetic produces), so a kernel that leaves an element unwritten, or adds to it instead of
#: writing it, is seen: on a GPU such memory holds whatever was there before.
UNWRITTEN = np.uint32(0xFFFFFFFF)
INT32_MIN = int(np.iinfo(np.int32).min)

INCLUDE_DIR = Path(__file__).resolve().parent / "executor" / "include"
# NVRTC declares CUDA's built-ins, math functions, printf and assert itself; the standard headers
# a kernel may include are executor/include/'s texts for both compilers (the executor's kernel
# unit reaches no system header, so both see the same names), but assert's: the executor's
# assert.h makes a failed assert a trap.
_EMPTY = "#pragma once\n"
NVRTC_HEADERS = {"cassert": _EMPTY, "assert.h": _EMPTY}


#: Headers a kernel source may include (by name only): what both compilers can be given,
#: and nothing else. The host compiler (the CPU executor) gets executor/include/ and no system
#: header (build.UNIT_FLAGS); NVRTC, which has no header files, gets the same files, but
#: NVRTC_HEADERS where it names one. A header is allowed exactly when it is there.
ALLOWED_HEADERS = frozenset(NVRTC_HEADERS) | frozenset(
    p.name for p in INCLUDE_DIR.iterdir() if p.is_file())


def nvrtc_headers() -> dict[str, str]:
    """What NVRTC finds for each allowed header (see ALLOWED_HEADERS)."""
    out = dict(NVRTC_HEADERS)
    for h in ALLOWED_HEADERS - set(out):
        out[h] = (INCLUDE_DIR / h).read_text(encoding="utf-8")
    return out


_ALLOWED_DIRECTIVES = frozenset({"define", "undef", "if", "ifdef", "ifndef", "elif", "else",
                                 "endif", "error", "warning", "line", "pragma", "include", ""})
_CONDITIONALS = frozenset({"if", "ifdef", "ifndef", "elif"})
_ALLOWED_PRAGMAS = ("unroll", "once", "nounroll")
_FORBIDDEN_WORDS = re.compile(r"\b(__has_include|__has_include_next|_Pragma|__pragma|asm|__asm|"
                              r"__asm__|__builtin_FILE|__builtin_LINE|no_sanitize\w*|"
                              r"__no_sanitize\w*|\w*disable_sanitizer_instrumentation\w*|"
                              r"\w*vector_size\w*|\w*scalar_storage_order\w*)\b")


class SubmissionError(ValueError):
    """A kernel submission cannot be used (unreadable, missing entry points, does not compile).

    ``log`` holds the compiler output where there is one.
    """

    def __init__(self, message: str, log: str = ""):
        self.log = log
        super().__init__(message + (f"\n{log.strip()}" if log.strip() else ""))


class ExecutorGap(SubmissionError):
    """The kernel compiles for the GPU but the CPU executor cannot build it: a CUDA function or
    feature the checker does not provide yet. The message says so; it is not the student's
    error."""


class CompileFeedback(str):
    """The compile step's feedback (English text) where it is the kit's own sentences (the
    file refused, entry points missing): ``said`` holds them as ``findings.Said`` (each a line),
    so a grader can tell them in the reader's language. A compiler's log is a plain str."""

    said: list = []

    @classmethod
    def of(cls, said: list, text: str | None = None) -> "CompileFeedback":
        out = cls(text if text is not None else "\n".join(str(s) for s in said))
        out.said = list(said)
        return out

    def translatable(self) -> list[dict]:
        return [s.data() for s in self.said]


class KernelContractError(F.FindingError):
    """A kernel broke the contract's rule for out-of-range ids (never an IndexError); its
    message is a finding (findings.MSG_BAD_*, ...), translatable like the executor's."""


# ----------------------------------------------------------------------------- source checks
def _digit_separator(s: str, i: int) -> bool:
    """Whether the quote at s[i] separates digits of a number (C++14 ``1'000``), not a
    character literal."""
    k = i
    while k > 0 and (s[k - 1].isalnum() or s[k - 1] in "_.'"):
        k -= 1
    token = s[k:i]
    return bool(token) and (token[0].isdigit() or (token[0] == "." and token[1:2].isdigit()))


_RAW_STRING = re.compile(r"(?<![A-Za-z0-9_])(?:u8|u|U|L)?R\"")


def _logical_lines(text: str, spans: dict | None = None) -> list[tuple[int, str]]:
    """(first physical line number, text) of each logical line: line splices joined, comments
    blanked (string and character literals respected), as the preprocessor sees them.

    `spans`, when given, receives {first line: (last physical line, whether the line starts
    inside a block comment, whether it ends inside one)}."""
    joined, starts, line = [], [], 1
    buf, start = [], 1
    for raw in text.split("\n"):
        if not buf:
            start = line
        if raw.endswith("\\"):
            buf.append(raw[:-1])
        else:
            buf.append(raw)
            joined.append("".join(buf))
            starts.append(start)
            buf = []
        line += 1
    if buf:
        joined.append("".join(buf))
        starts.append(start)
    out, in_block = [], False
    ends = starts[1:] + [line]
    for num, end_line, s in zip(starts, ends, joined):
        began, res, i, n = in_block, [], 0, len(s)
        while i < n:
            if in_block:
                end = s.find("*/", i)
                if end < 0:
                    i = n
                    continue
                res.append(" ")
                i, in_block = end + 2, False
            elif s.startswith("/*", i):
                in_block, i = True, i + 2
            elif s.startswith("//", i):
                break
            elif s[i] == "'" and _digit_separator(s, i):
                res.append(s[i])
                i += 1
            elif s[i] in "\"'":
                q, j = s[i], i + 1
                while j < n and s[j] != q:
                    j += 2 if s[j] == "\\" else 1
                res.append(s[i:j + 1])
                i = j + 1
            else:
                res.append(s[i])
                i += 1
        out.append((num, "".join(res)))
        if spans is not None:
            spans[num] = (end_line - 1, began, in_block)
    return out


def _header_macros() -> dict[str, frozenset[str]]:
    """{allowed header: the macros NVRTC's version of it defines}."""
    return {h: frozenset(re.findall(r"^\s*#\s*define\s+(\w+)", t, re.M))
            for h, t in nvrtc_headers().items()}


_WORD = re.compile(r"[A-Za-z_]\w*")
_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


#: `#ifndef NAME` or `#if !defined(NAME)` / `#if !defined NAME`: the first line of a guard.
_GUARD_IF = re.compile(r"ifndef\s+([A-Za-z_]\w*)\s*|if\s*!\s*defined(?:\s*\(\s*([A-Za-z_]\w*)\s*\)"
                       r"|\s+([A-Za-z_]\w*))\s*")
_DIRECTIVE = re.compile(r"\s*(?:#|%:)\s*([A-Za-z_]\w*)\s*(.*)", re.S)


def _directive(line: str) -> tuple[str, str]:
    """(name, rest) of a directive's logical line, ("", line) for any other."""
    m = _DIRECTIVE.match(line)
    return (m.group(1), m.group(2)) if m else ("", line)


def _guard(lines: list[tuple[int, str]], k: int, spans: dict) -> tuple[str, int] | None:
    """(NAME, index of its #endif) when lines[k] opens a "define if missing" guard: `#ifndef NAME`
    (or `#if !defined(NAME)`) whose body is only `#define NAME ...` (blank or comment lines
    aside), closed by `#endif` with no #else or #elif; the #if and #endif lines do not start
    inside a block comment (the executor's copy replaces them whole)."""
    dname, rest = _directive(lines[k][1])
    m = _GUARD_IF.fullmatch(f"{dname} {rest}" if dname else "")
    if not m:
        return None
    name = m.group(1) or m.group(2) or m.group(3)
    body = [j for j in range(k + 1, min(len(lines), k + 64)) if lines[j][1].strip()][:2]
    if len(body) < 2:
        return None
    dname, rest = _directive(lines[body[0]][1])
    d = _WORD.match(rest)
    if dname != "define" or not d or d.group(0) != name:
        return None
    dname, rest = _directive(lines[body[1]][1])
    if dname != "endif" or rest.strip():
        return None
    if any(spans[lines[j][0]][1] for j in (k, body[1])):
        return None
    return name, body[1]


def _macro_scan(text: str) -> tuple[list, list[tuple]]:
    """The kernel's use of macros g++ (the executor) and NVRTC define differently
    (executor/macros.py): in a conditional (`#ifndef __GNUC__`, `#if HOST` after
    `#define HOST __x86_64__`), or anywhere for g++'s own reserved names (`STR(__GNUC__)`).
    A name the kernel #defines or #undefs itself is its own from there on (both compilers agree);
    a header's constant (INT_MAX) is NVRTC's too once the kernel includes that header.

    "Define if missing" guards of a name only g++ defines (`#ifndef M_PI` / `#define M_PI ...`
    / `#endif`, see _guard) are no refusal: NVRTC always takes the #define, and the executor's
    copy of the source does too (executor_source), so the name is the kernel's own after one
    (outside any #if region). Returns (errors, guards: (first line of the #if, its last line,
    first line of the #endif, its last line, NAME, whether each of the two ends inside a
    block comment))."""
    spans: dict = {}
    lines = _logical_lines(text, spans)
    listed, everywhere = host_macros.refused(), host_macros.refused_everywhere()
    gxx_only = host_macros.gxx_only()
    from_header = _header_macros()
    own: set[str] = set()         # defined or undefined by the kernel: alike in both
    included: set[str] = set()    # header constants NVRTC has too, once included
    tainted: dict[str, str] = {}  # the kernel's macros whose text names a listed one
    guarded: dict[str, int] = {}  # NAME: the line of its guard
    guards: list[tuple[int, int, int, int, str, bool, bool]] = []
    out = []

    def differs(word: str) -> bool:
        return word in listed and word not in own and word not in included

    depth = 0                     # of #if regions: a #define inside one may never happen
    for k, (num, line) in enumerate(lines):
        line = "".join(c for i, c in enumerate(line)
                       if not (c == "'" and _digit_separator(line, i)))  # 1'000 is no literal
        code = _STRINGS.sub('""', line)
        stripped = code.lstrip()
        m = re.match(r"(?:#|%:)\s*([A-Za-z_]\w*)\s*(.*)", stripped, re.S)
        dname, rest = (m.group(1), m.group(2)) if m else ("", code)
        if dname == "include":
            h = re.search(r'[<"]([A-Za-z0-9_.]+)[>"]', rest)
            if h:
                defines = from_header.get(h.group(1), frozenset())
                # NVRTC's header would define a guarded name again (the executor's, included
                # by the prelude already, would not): the guard is not the same to both
                for w in sorted(defines & guarded.keys() - included):
                    out.append((guarded[w], Said(F.MSG_HOST_MACRO, word=w)))
                included |= defines
            continue
        if dname in ("define", "undef"):
            d = _WORD.match(rest)
            if not d:
                continue
            body = rest[d.end():]
            if depth == 0:
                own.add(d.group(0))
            tainted.pop(d.group(0), None)
            words = _WORD.findall(body)
            reached = [w for w in words if differs(w)] + [tainted[w] for w in words if w in tainted]
            if reached and dname == "define":
                tainted[d.group(0)] = reached[0]
            bad = [w for w in words if w in everywhere and w not in own]
        elif dname in _CONDITIONALS:
            g = _guard(lines, k, spans) if dname in ("if", "ifndef") else None
            if g and differs(g[0]) and g[0] in gxx_only and g[0] not in guarded:
                name, end = g
                guarded[name] = num
                first, last = spans[num][0], spans[lines[end][0]][0]  # last physical lines
                guards.append((num, first, lines[end][0], last, name, spans[num][2],
                               spans[lines[end][0]][2]))
                if depth == 0:
                    own.add(name)
                depth += 1
                continue
            depth += dname != "elif"
            # `defined X` and #ifdef ask whether X is a macro: a name of the kernel's own is
            # one in both; #if and #elif expand the rest, where the kernel's macros reach theirs
            asked = re.findall(r"\bdefined\s*\(?\s*([A-Za-z_]\w*)", rest)
            expanded = _WORD.findall(re.sub(r"\bdefined\s*\(?\s*[A-Za-z_]\w*", " ", rest))
            if dname in ("ifdef", "ifndef"):
                asked, expanded = expanded[:1], []
            for w in dict.fromkeys(asked + expanded):
                if differs(w) or (w in tainted and w in expanded):
                    out.append((num, Said(F.MSG_HOST_MACRO, word=tainted.get(w, w)
                                          if w in expanded else w)))
            continue
        else:
            depth -= dname == "endif" and depth > 0
            bad = [w for w in _WORD.findall(rest) if w in everywhere and w not in own]
        for w in dict.fromkeys(bad):
            out.append((num, Said(F.MSG_HOST_MACRO_USE, word=w)))
    return out, guards


_IFDEF = re.compile(r"(ifdef|ifndef)\s+([A-Za-z_]\w*)\s*|if\s*(!?)\s*defined\s*(?:\(\s*([A-Za-z_]\w*)"
                    r"\s*\)|\s+([A-Za-z_]\w*))\s*")


def _compiled_lines(text: str) -> list[tuple[int, str]]:
    """The logical lines of `text` less those in a conditional region that neither compiler
    compiles: `#ifndef __CUDACC_RTC__` (an nvcc test harness), `#ifdef X` of a macro neither
    defines... decided only where the condition is `[!]defined X` of a macro both compilers
    define alike (NVRTC's that the executor defines with NVRTC's values, __CUDA_ARCH__), and the
    kernel has not defined or undefined it; any other region counts as compiled."""
    known = {line.split()[0] for line in host_macros._read(host_macros.NVRTC_FILE)}
    known.add("__CUDA_ARCH__")
    out, stack = [], []  # stack: per open region, whether it is known to be skipped
    for num, line in _logical_lines(text):
        dname, rest = _directive(line)
        if dname in ("if", "ifdef", "ifndef", "elif") and not any(r[0] for r in stack[
                :len(stack) - (dname == "elif")]):
            out.append((num, line))  # its condition is read by both compilers
        if dname in ("if", "ifdef", "ifndef"):
            m = _IFDEF.fullmatch(f"{dname} {rest}")
            value = None
            if m:
                name = m.group(2) or m.group(4) or m.group(5)
                if name in known:
                    value = (m.group(1) != "ifndef") if m.group(1) else not m.group(3)
            stack.append([value is False, value is True])  # [skipped now, taken before]
            continue
        if dname in ("elif", "else") and stack:
            # after a branch known to be taken every other is skipped; else it may be compiled
            stack[-1][0] = stack[-1][1]
            continue
        if dname == "endif" and stack:
            stack.pop()
            continue
        if any(r[0] for r in stack):
            continue
        if dname in ("define", "undef"):
            d = _WORD.match(rest)
            if d:
                known.discard(d.group(0))
        out.append((num, line))
    return out


#: Attributes both compilers honour alike (`__attribute__((...))` and `[[...]]`): NVRTC ignores
#: others with a warning that g++ applies (`vector_size`, `gnu::packed`, `transparent_union`
#: change a type's size for g++ only), so a kernel's `sizeof` would tell the two apart.
ALLOWED_ATTRIBUTES = frozenset({
    "aligned", "packed", "noinline", "always_inline", "unused", "noreturn", "nodiscard",
    "maybe_unused", "fallthrough", "deprecated", "likely", "unlikely", "carries_dependency"})


def _attributes(code: str):
    """(offset, name) of each attribute named in `__attribute__((...))` or `[[...]]` of `code`
    (a `[[using NS: ...]]` or `NS::name` attribute is given whole)."""
    for m in re.finditer(r"\b__attribute__\s*\(\s*\(|\[\s*\[", code):
        closing = ")" if m.group(0).startswith("_") else "]"
        depth, i, start = 0, m.end(), m.end()
        while i < len(code):
            c = code[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        inner, depth, item = code[start:i], 0, []
        items = []
        for c in inner + ",":
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            if c == "," and depth == 0:
                items.append("".join(item))
                item = []
            else:
                item.append(c)
        for it in items:
            head = re.match(r"\s*((?:using\s+)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*|\s*:)?)",
                            it)
            if head:
                name = re.sub(r"\s+", " ", head.group(1)).strip()
                yield m.start(), name.strip("_") if closing == ")" else name


def _name_scan(text: str) -> tuple[list, list[str]]:
    """Names a kernel may not use because the two compilers do not declare them alike
    (executor/names.py): one NVRTC declares and the executor does not (`tex1Dfetch`, the
    runtime API's `cudaError_t`: a kernel's own overload of one would be called by the executor
    only), and a reserved name (`__x`, `_X`) that is not CUDA's API as both have it
    (`__builtin_ia32_pause`, `__gnu_cxx`, the executor's `__andrea_exec`). Lines neither
    compiler compiles are left out (_compiled_lines); macros the two define differently are
    _macro_scan's. Returns (refusals, CUDA device functions the executor lacks: its gap)."""
    from .executor.device_api import is_cuda
    only, allowed = host_names.nvrtc_only(), host_names.allowed_reserved()
    macros = host_macros.refused()
    out, gap = [], []
    compiled = _compiled_lines(text)
    joined = "\n".join(_STRINGS.sub('""', "".join(
        c for i, c in enumerate(line) if not (c == "'" and _digit_separator(line, i))))
        for _, line in compiled)
    for at, attr in _attributes(joined):  # an attribute may span lines
        if attr not in ALLOWED_ATTRIBUTES:
            num = compiled[joined.count("\n", 0, at)][0]
            out.append((num, Said(F.MSG_ATTRIBUTE, word=attr)))
    for num, line in compiled:
        line = "".join(c for i, c in enumerate(line)
                       if not (c == "'" and _digit_separator(line, i)))
        code = _STRINGS.sub('""', line)
        if _directive(code)[0] == "include":
            continue
        for m in re.finditer(r"(?<![\w.])\d[\w.]*|(\bstd\s*::\s*)?\b([A-Za-z_]\w*)", code):
            word = m.group(2)
            if not word or word in macros:
                continue
            if (f"std::{word}" if m.group(1) else word) in only:
                out.append((num, Said(F.MSG_NVRTC_ONLY_NAME, word=word)))
            elif host_names.RESERVED.fullmatch(word) and word not in allowed:
                if is_cuda(word):
                    gap += [word] if word not in gap else []
                else:
                    out.append((num, Said(F.MSG_RESERVED_NAME, word=word)))
    return out, gap


def check_names(text: str, name: str) -> None:
    """Refuse a kernel the CPU executor cannot judge as a GPU runs it because it names what only
    one of the two compilers declares (_name_scan). Run it once NVRTC accepts the text (NVRTC's
    own errors come first) and before the executor builds it. Raises SubmissionError as
    check_includes does; a CUDA device function the executor lacks (`__vadd4`, even where the
    kernel declares its own) is left to check_executor_names."""
    _refuse(_name_scan(text)[0], name)


def check_executor_names(text: str, name: str) -> None:
    """check_names, then ExecutorGap when the kernel names a CUDA device function the executor
    does not provide: it could not judge the kernel as a GPU runs it (a kernel's own overload
    of such a name would be the only one the executor knows)."""
    errors, gap = _name_scan(text)
    _refuse(errors, name)
    if gap:
        raise ExecutorGap(f"kernel submission {name} uses {', '.join(gap)}, which is CUDA but "
                          f"which the checker's CPU executor does not provide yet: this is a "
                          f"gap of the checker, not an error in your kernel")


def executor_source(text: str) -> str:
    """The kernel as the CPU executor compiles it: each accepted "define if missing" guard
    (_macro_scan) becomes `#undef NAME` and the kernel's own `#define NAME ...`, so g++'s
    definition (the C library's M_PI, INFINITY, FLT_MAX) gives way to the kernel's as NVRTC,
    which has none, takes the kernel's. Every other line stays where it was, so the executor's
    findings name the student's lines. Call it only on a text check_includes accepted."""
    guards = _macro_scan(text)[1]
    if not guards:
        return text
    physical = text.split("\n")
    for first, last, end_first, end_last, name, open_if, open_endif in guards:
        # a block comment that goes on past the line is opened again for its next lines
        physical[first - 1:last] = ([f"#undef {name}" + " /*" * open_if]
                                    + [""] * (last - first))
        physical[end_first - 1:end_last] = (["/*" * open_endif]
                                            + [""] * (end_last - end_first))
    return "\n".join(physical)


def check_includes(text: str, name: str) -> None:
    """Refuse any way of reaching a file outside the submission (see the module docstring).

    Raises SubmissionError whose log reads like a compiler's: ``name:LINE: error: ...``.
    """
    errors = []
    if "??=" in text or "??/" in text:
        errors.append((1, Said(F.MSG_NO_TRIGRAPHS)))
    for num, raw in enumerate(text.split("\n"), 1):
        if _RAW_STRING.search(raw):  # they span lines and could hide directives from this check
            errors.append((num, Said(F.MSG_NO_RAW_STRINGS)))
    # Lines that look like directives are checked as written too, whatever a comment or a
    # line splice around them might mean to one compiler or another.
    lines = _logical_lines(text)
    for num, line in lines:  # a prefix split by a line splice (R\ then "x() is one too
        if _RAW_STRING.search(line) and not any(n == num for n, _ in errors):
            errors.append((num, Said(F.MSG_NO_RAW_STRINGS)))
    physical = text.split("\n")
    lines += [(num, raw) for num, raw in enumerate(physical, 1)
              if raw.lstrip().startswith(("#", "%:"))
              and not (num > 1 and physical[num - 2].endswith("\\"))]  # a macro's next line
    for num, line in lines:
        # outside string literals: words that reach files or raw assembly
        code = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', line)
        m = _FORBIDDEN_WORDS.search(code)
        if m:
            word = m.group(1)      # inline PTX (ld.global.nc, ...) gets the intrinsics to use
            errors.append((num, Said(F.MSG_INLINE_ASM if word in ("asm", "__asm", "__asm__")
                                     else F.MSG_FORBIDDEN_WORD, word=word)))
            continue
        stripped = line.lstrip()
        directive = None
        if stripped.startswith("#"):
            directive = stripped[1:]
        elif stripped.startswith("%:"):
            directive = stripped[2:]
        if directive is not None:
            word = re.match(r"\s*([A-Za-z_]\w*)?", directive)
            dname = (word.group(1) or "") if word else ""
            rest = directive[word.end():].strip() if word else ""
            if dname not in _ALLOWED_DIRECTIVES:
                errors.append((num, Said(F.MSG_FORBIDDEN_DIRECTIVE, directive=dname)))
            elif dname == "include":
                # a line as written still holds its comment: #include <cstdint>  // int32_t
                m = re.fullmatch(r'<([A-Za-z0-9_.]+)>|"([A-Za-z0-9_.]+)"',
                                 re.split(r"\s*(?://|/\*)", rest)[0])
                if not m or (m.group(1) or m.group(2)) not in ALLOWED_HEADERS:
                    errors.append((num, Said(F.MSG_FORBIDDEN_INCLUDE, header=rest[:80])))
            elif dname == "pragma":
                if not rest.split() or rest.split()[0] not in _ALLOWED_PRAGMAS:
                    errors.append((num, Said(F.MSG_FORBIDDEN_PRAGMA, pragma=rest[:40])))
    errors += _macro_scan(text)[0]
    _refuse(errors, name)


def _refuse(errors: list, name: str) -> None:
    """Raise SubmissionError with each (line, Said) of `errors` as a compiler-style line."""
    if errors:
        seen: dict = {}
        for num, said in sorted(errors, key=lambda e: (e[0], str(e[1]))):
            seen.setdefault((num, str(said)), said)
        lines = [Said(F.MSG_REFUSED_LINE, file=name, line=num, problem=said)
                 for (num, _), said in list(seen.items())[:20]]
        exc = SubmissionError(f"kernel submission {name} was refused",
                              "\n".join(str(s) for s in lines))
        exc.said = lines
        raise exc


def read_source(path) -> tuple[str, str]:
    """(text, file name) of a submitted .cu file; SubmissionError when unusable."""
    p = Path(path)
    if not p.is_file():
        raise SubmissionError(f"kernel submission {p.name}: no such file")
    data = p.read_bytes()
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"kernel submission {p.name}: {len(data)} bytes, more than the "
                              f"{MAX_SOURCE_BYTES} allowed")
    try:
        return data.decode("utf-8"), p.name
    except UnicodeDecodeError:
        raise SubmissionError(f"kernel submission {p.name}: not UTF-8 text") from None


def _missing(text: str, contract: KernelContract) -> list[str]:
    """Signatures of the entry points the text never names as a function (a kernel defined
    through a macro, `KERNEL andrea_lookup(...)`, is named; whether it is a kernel of the right
    signature, the compiler checks with the contract's static_asserts)."""
    defined = set(kernel_names(text))
    code = "\n".join(line for _, line in _logical_lines(text))
    return [ep.signature() for ep in contract.entry_points if ep.name not in defined
            and not re.search(rf"\b{re.escape(ep.name)}\s*\(", code)]


def compile_kernel_source(path, contract: KernelContract, *,
                          arch: str | None = None) -> tuple[bool, str]:
    """Check includes, then compile a submitted .cu with NVRTC (no GPU needed).

    Returns (ok, compiler log or feedback); the log names refused includes, missing entry
    points and signature mismatches as well as compile errors. Raises SubmissionError for an
    unreadable file and NvrtcUnavailable when NVRTC cannot be loaded (a problem of the machine,
    not of the submission).
    """
    from .nvrtc import compile_source

    text, name = read_source(path)
    try:
        check_includes(text, name)
    except SubmissionError as exc:
        return False, CompileFeedback.of(getattr(exc, "said", None) or [], exc.log)
    missing = _missing(text, contract)
    if missing:
        return False, CompileFeedback.of([Said(F.MSG_MISSING_ENTRY_POINTS, signatures="\n".join(
            f"  {sig}" for sig in missing))])
    res = compile_source(text + contract.check_source(), name, arch or contract.arch,
                         headers=nvrtc_headers())
    log = res.log
    if res.ok and 'extern "C"' not in text:
        said = Said(F.MSG_NOT_EXTERN_C, log=log.strip())
        return False, CompileFeedback.of([said], str(said).strip())
    if res.ok:  # NVRTC builds it: can the executor judge it as a GPU runs it?
        try:
            check_names(text, name)
        except SubmissionError as exc:
            return False, CompileFeedback.of(getattr(exc, "said", None) or [], exc.log)
    return res.ok, log


# ----------------------------------------------------------------------------- launching
class ShapeCycle:
    """Launch shapes from the contract's test_shapes, one after the other, launch by launch."""

    def __init__(self, shapes):
        self.shapes = tuple(shapes)
        self._it = itertools.cycle(self.shapes)

    @staticmethod
    def resolve(shape, kind: str, n: int):
        grid, block = shape
        if grid == "rows":
            grid = -(-n // int(block)) if kind == "flat" else n
        return (max(1, min(int(grid), 65535)),), (int(block),)

    def __call__(self, kind: str, n: int):
        return self.resolve(next(self._it), kind, n)


def _probe_ids(rows: int) -> tuple[np.ndarray, int]:
    """Good ids with = num_rows, a negative id and INT_MAX mixed in; (ids, first bad index)."""
    ids = np.arange(12, dtype=np.int64) % rows
    ids[3], ids[7], ids[10] = rows, -1, INT32_MAX
    return ids, 3


def _wrap_probe(rows: int, d: int) -> np.ndarray | None:
    """Good ids with one bad id whose row offset id * d overflows a 32-bit int and wraps to an
    offset inside the table (ceil(2^32 / d): id * d - 2^32 < d), at index 1; None where no such
    id exists (d < 3, or it would be a good id). A kernel that range-checks the offset it
    computed in int (`int off = id * d_model; if (off < 0 || off >= num_rows * d_model)`) takes
    it for row 0: that is the place an int32 offset matters at the contract's sizes."""
    wrap = -(-(1 << 32) // d) if d >= 3 else 0
    if not rows <= wrap <= INT32_MAX:
        return None
    ids = np.arange(8, dtype=np.int64) % rows
    ids[1] = wrap
    return ids


def _wrap_note(ids: np.ndarray, d: int) -> Said:
    """What the _wrap_probe ids are, told with a finding they caused."""
    bad_id = int(ids.reshape(-1)[1])
    offset = bad_id * d
    return Said(F.MSG_PROBE_WRAP, bad_id=bad_id, d=d, offset=offset,
                wrapped=(offset + (1 << 31)) % (1 << 32) - (1 << 31),
                ids=str(ids.reshape(-1).tolist()))


def _wrap_probed(run, ids: np.ndarray, d: int) -> None:
    """Run the _wrap_probe launches; an executor finding they cause (the wrapped offset read out
    of bounds: a small table) is told with what the probe was."""
    try:
        run()
    except KernelContractError:
        raise   # _device_bad's own sentences tell the probe already
    except F.FindingError as exc:
        if exc.said is None:
            raise
        raise type(exc)(Said(F.MSG_FINDING_PROBE, finding=exc.said, probe=_wrap_note(ids, d),
                             kernel=exc.said.fields.get("kernel", ""))) from None


def _flat_where(shape, flat: int) -> str:
    return str([int(i) for i in np.unravel_index(flat, shape)]) if shape else "[]"


class KernelHost:
    """A kernel submission behind lookup / embed / embed_backward (see the module docstring)."""

    def __init__(self, path, module, backend, contract: KernelContract, validate):
        self.path = str(path)
        self.contract = contract
        self._mod = module
        self._be = backend
        self._validate = validate
        self._shapes = ShapeCycle(contract.test_shapes)
        #: compute-sanitizer findings per kernel (GPU only, see andrea_gpu.sanitizer)
        self.sanitizer_findings: dict[str, list] = {}
        self.sanitizer_note = ""

    @property
    def backend(self) -> str:
        return self._be.name

    def __repr__(self):
        return f"KernelHost({Path(self.path).name!r}, backend={self.backend!r})"

    # ------------------------------------------------------------------ helpers
    def _launch(self, name: str, kind: str, n: int, args, shape=None, work: int = 0):
        """Launch entry point `name` over `n` work items with the next test shape (or `shape`).

        On the CPU executor a call of more than BIG_WORK elements (the checks' real-size draws)
        uses the test shape with the fewest threads per block and one schedule: a kernel with a
        barrier per element costs threads x barriers context switches there, and the small
        calls already cycle through every shape and both schedules.
        """
        if self.sanitizer_findings.get(name):
            from .executor import KernelError
            raise KernelError(self.sanitizer_findings[name][0].said())
        kernel = self._mod.get_function(name)
        if self._be.name == "cpu":
            kernel.gpu_limit_s = GPU_LAUNCH_LIMIT_S
        if self._be.name == "cpu" and shape is None and work > BIG_WORK:
            grid, block = ShapeCycle.resolve(min(self.contract.test_shapes, key=lambda s: s[1]),
                                             kind, n)
            kernel(grid, block, args, orders=("forward",))
            return grid[0], block[0]
        grid, block = (ShapeCycle.resolve(shape, kind, n) if shape is not None
                       else self._shapes(kind, n))
        self._be.launch(kernel, grid, block, args, deterministic=True)
        return grid[0], block[0]

    def _unwritten_out(self, n: int, d: int):
        return self._be.xp.full((n, d), UNWRITTEN, dtype=np.uint32).view(np.float32)

    @staticmethod
    def _check_written(kernel, gb, got: np.ndarray, want, out_shape) -> None:
        """Raise when an element of `got` still holds UNWRITTEN where the result differs
        (`want()` gives the expected float32 values; computed only when needed)."""
        left = got.reshape(-1).view(np.uint32) == UNWRITTEN
        if not left.any():
            return
        exp = np.ascontiguousarray(want(), dtype=np.float32).reshape(-1).view(np.uint32)
        idx = np.flatnonzero(left & (exp != UNWRITTEN))
        if idx.size:
            where = "out" + _flat_where(out_shape, int(idx[0]))
            raise KernelContractError(Said(
                F.MSG_NEVER_WRITTEN, kernel=kernel, grid=int(gb[0]), block=int(gb[1]),
                where=where, count=int(idx.size), total=int(left.size)))

    def _flag(self):
        return self._be.xp.full(1, INT32_MAX, dtype=np.int32)

    def _dev(self, a):
        return self._be.asarray(np.ascontiguousarray(a))

    def _host(self, a) -> np.ndarray:
        return np.asarray(self._be.asnumpy(a))

    @staticmethod
    def _int32(name: str, value: int) -> np.int32:
        if value > INT32_MAX:
            raise ValueError(f"{name} = {value} does not fit the kernels' int32 arguments "
                             f"(at most {INT32_MAX})")
        return np.int32(value)

    def _ids32(self, ids: np.ndarray):
        self._int32("the number of ids", ids.size)
        flat = np.clip(ids.reshape(-1).astype(np.int64), INT32_MIN, INT32_MAX)
        return self._dev(flat.astype(np.int32))

    def _device_bad(self, bad, first: int | None, kernel: str, shape, flat: np.ndarray,
                    where_shape, grid_block, probe: bool = False, wrap: int = 0) -> None:
        """*bad after a launch must be INT_MAX (no bad id) or the first bad flat index."""
        label = "probe_ids" if probe else "token_ids"
        got = int(self._host(bad)[0])
        want = INT32_MAX if first is None else first
        if got == want:
            return
        launch = {"kernel": kernel, "grid": int(grid_block[0]), "block": int(grid_block[1])}
        if first is None:
            raise KernelContractError(Said(F.MSG_BAD_BUT_ALL_IN_RANGE, got=got, **launch))
        bad_id = int(flat[first])
        where = f"{label}{_flat_where(where_shape, first)}"
        probe_ids = Said(F.MSG_PROBE_IDS, ids=str(flat.tolist())) if probe else ""
        if probe and wrap:
            probe_ids = _wrap_note(flat, wrap)
        if got == INT32_MAX:
            raise KernelContractError(Said(F.MSG_BAD_NOT_REPORTED, where=where, bad_id=bad_id,
                                           probe=probe_ids, **launch))
        if not 0 <= got < flat.size:  # the id itself, a row offset, ...: not an index of ids
            raise KernelContractError(Said(F.MSG_BAD_NOT_AN_INDEX, got=got, first=int(first),
                                           where=where, bad_id=bad_id, n=int(flat.size),
                                           probe=probe_ids, **launch))
        raise KernelContractError(Said(F.MSG_BAD_NOT_SMALLEST, got=got, first=int(first),
                                       where=where, bad_id=bad_id, probe=probe_ids, **launch))

    @staticmethod
    def _bad_rows(flat: np.ndarray, rows: int) -> np.ndarray:
        return (flat < 0) | (flat >= rows)

    # ------------------------------------------------------------------ lookup
    def lookup(self, table, token_ids):
        v = self._validate
        table = v.table("table", table)
        rows, d = table.shape
        try:
            ids = v.token_ids(token_ids, rows)
        except IndexError as exc:
            if table.dtype == np.float32 and d:
                self._lookup_bad(table, np.asarray(token_ids))
                self._lookup_bad(table, _probe_ids(rows)[0], probe=True)
                wrapping = _wrap_probe(rows, d)
                if wrapping is not None:
                    _wrap_probed(lambda: self._lookup_bad(table, wrapping, probe=True, wrap=d),
                                 wrapping, d)
            raise exc from None
        out_shape = ids.shape + (d,)
        if ids.size == 0 or d == 0:
            return np.empty(out_shape, dtype=table.dtype)
        if table.dtype != np.float32:
            return table[ids]
        out, bad, gb = self._lookup_launch(table, ids)
        self._device_bad(bad, None, "andrea_lookup", None, ids.reshape(-1), ids.shape, gb)
        got = self._host(out).reshape(out_shape)
        self._check_written("andrea_lookup", gb, got, lambda: table[ids], out_shape)
        return got

    def _lookup_launch(self, table, ids, shape=None):
        rows, d = table.shape
        n = ids.size
        out = self._unwritten_out(n, d)
        bad = self._flag()
        gb = self._launch("andrea_lookup", "rows", n,
                          (self._dev(table), self._ids32(ids), out, np.int32(n),
                           self._int32("d_model", d),
                           self._int32("the number of table rows", rows), bad), shape, n * d)
        return out, bad, gb

    def _lookup_bad(self, table, ids, probe=False, wrap=0):
        rows = table.shape[0]
        flat = ids.reshape(-1).astype(np.int64)
        mask = self._bad_rows(flat, rows)
        first = int(np.flatnonzero(mask)[0])
        for shape in self.contract.test_shapes:
            out, bad, gb = self._lookup_launch(table, ids, shape)
            self._device_bad(bad, first, "andrea_lookup", shape, flat, ids.shape, gb, probe,
                             wrap)
            got = self._host(out)
            good = np.flatnonzero(~mask)
            want = table[flat[good]]
            self._good_rows("andrea_lookup", gb, got[good], want, good, ids.shape,
                            exact=True)

    def _good_rows(self, kernel, gb, got, want, good, where_shape, exact):
        if exact:
            ok = np.array_equal(got.view(np.uint32), want.view(np.uint32))
        else:
            ok = np.allclose(got, want, rtol=1e-5, atol=1e-5)
        if not ok:
            bad_row = next(i for i in range(len(good))
                           if not (np.array_equal(got[i].view(np.uint32), want[i].view(np.uint32))
                                   if exact else np.allclose(got[i], want[i], rtol=1e-5,
                                                             atol=1e-5)))
            raise KernelContractError(Said(
                F.MSG_GOOD_ROWS_WRONG, kernel=kernel, grid=int(gb[0]), block=int(gb[1]),
                where=_flat_where(where_shape, int(good[bad_row]))))

    # ------------------------------------------------------------------ embed
    def embed(self, token_ids, token_table, position_table):
        v = self._validate
        token_table = v.table("token_table", token_table)
        position_table = v.table("position_table", position_table)
        if token_table.shape[1] != position_table.shape[1]:
            raise ValueError(f"token_table has d_model = {token_table.shape[1]} but "
                             f"position_table has d_model = {position_table.shape[1]}")
        if token_table.dtype != position_table.dtype:
            raise TypeError(f"token_table is {token_table.dtype} but position_table is "
                            f"{position_table.dtype}; give both tables one dtype")
        rows, d = token_table.shape
        try:
            ids = v.token_ids(token_ids, rows)
        except IndexError as exc:
            raw = np.asarray(token_ids)
            if (token_table.dtype == np.float32 and d and raw.ndim in (1, 2)
                    and 0 < raw.shape[-1] <= position_table.shape[0]):
                self._embed_bad(raw, token_table, position_table)
                probe = _probe_ids(rows)[0]
                self._embed_bad(probe[None, :], token_table,
                                np.resize(position_table, (probe.size, d)), probe=True)
                wrapping = _wrap_probe(rows, d)
                if wrapping is not None:
                    _wrap_probed(lambda: self._embed_bad(
                        wrapping[None, :], token_table,
                        np.resize(position_table, (wrapping.size, d)), probe=True, wrap=d),
                        wrapping, d)
            raise exc from None
        t = v.sequence(ids, position_table.shape[0])
        out_shape = ids.shape + (d,)
        if ids.size == 0 or d == 0:
            return np.empty(out_shape, dtype=token_table.dtype)
        if token_table.dtype != np.float32:
            return token_table[ids] + position_table[:t]
        out, bad, gb = self._embed_launch(ids, token_table, position_table[:t], t)
        self._device_bad(bad, None, "andrea_embed_forward", None, ids.reshape(-1), ids.shape, gb)
        got = self._host(out).reshape(out_shape)
        self._check_written("andrea_embed_forward", gb, got,
                            lambda: token_table[ids] + position_table[:t], out_shape)
        return got

    def _embed_launch(self, ids, tok, pos, t, shape=None):
        rows, d = tok.shape
        n = ids.size
        out = self._unwritten_out(n, d)
        bad = self._flag()
        gb = self._launch("andrea_embed_forward", "rows", n,
                          (self._ids32(ids), self._dev(tok), self._dev(pos), out, np.int32(n),
                           np.int32(t), self._int32("d_model", d),
                           self._int32("the number of token_table rows", rows), bad), shape,
                          n * d)
        return out, bad, gb

    def _embed_bad(self, ids, tok, pos, probe=False, wrap=0):
        rows, d = tok.shape
        t = ids.shape[-1]
        flat = ids.reshape(-1).astype(np.int64)
        mask = self._bad_rows(flat, rows)
        first = int(np.flatnonzero(mask)[0])
        good = np.flatnonzero(~mask)
        want = tok[flat[good]] + pos[good % t]
        for shape in self.contract.test_shapes:
            out, bad, gb = self._embed_launch(ids, tok, pos[:t], t, shape)
            self._device_bad(bad, first, "andrea_embed_forward", shape, flat, ids.shape, gb,
                             probe, wrap)
            self._good_rows("andrea_embed_forward", gb, self._host(out)[good], want, good,
                            ids.shape, exact=True)

    # ------------------------------------------------------------------ backward
    #: The outputs of embed_backward and the kernel that computes each.
    BACKWARD_OUTPUTS = {"grad_token": "andrea_embed_backward_token",
                        "grad_position": "andrea_embed_backward_position"}

    def embed_backward(self, token_ids, grad_out, vocab_size, context_length, *, outputs=None):
        """Both gradients, each from its kernel; with `outputs` (names of BACKWARD_OUTPUTS)
        only those come from their kernels and the others are computed here with numpy, so a
        check of one gradient is never charged with the other kernel's findings or time."""
        if outputs is None:
            outputs = tuple(self.BACKWARD_OUTPUTS)
        if isinstance(outputs, str) or not set(outputs) <= set(self.BACKWARD_OUTPUTS):
            raise ValueError(f"outputs must name some of {sorted(self.BACKWARD_OUTPUTS)}, got "
                             f"{outputs!r}")
        v = self._validate
        try:
            ids, grad, t, vocab, context = v.backward_args(token_ids, grad_out, vocab_size,
                                                           context_length)
        except IndexError as exc:
            if "grad_token" in outputs:
                self._backward_bad_all(token_ids, grad_out, vocab_size, context_length)
            raise exc from None
        d = grad.shape[-1]
        if grad.dtype != np.float32:
            return self._backward_numpy(ids, grad, vocab, context, t)
        grad_token, grad_pos = self._backward_numpy(ids, grad, vocab, context, t)
        if ids.size and d:
            g = grad.reshape(ids.size, d)
            if "grad_token" in outputs:
                gt, bad, gb = self._token_launch(ids, g, vocab)
                self._device_bad(bad, None, "andrea_embed_backward_token", None,
                                 ids.reshape(-1), ids.shape, gb)
                grad_token = self._host(gt)
            if "grad_position" in outputs:
                n = ids.size
                gp = self._be.xp.zeros((context, d), dtype=np.float32)
                self._launch("andrea_embed_backward_position", "flat", t * d,
                             (self._dev(g), gp, np.int32(n // t), np.int32(t),
                              self._int32("d_model", d)), work=n * d)
                grad_pos = self._host(gp)
        return grad_token, grad_pos

    @staticmethod
    def _backward_numpy(ids, grad, vocab, context, t):
        d = grad.shape[-1]
        gt = np.zeros((vocab, d), dtype=grad.dtype)
        np.add.at(gt, ids.reshape(-1), grad.reshape(-1, d))
        gp = np.zeros((context, d), dtype=grad.dtype)
        gp[:t] = grad.reshape(-1, t, d).sum(axis=0)
        return gt, gp

    def _token_launch(self, ids, g, vocab, shape=None):
        n, d = g.shape
        gt = self._be.xp.zeros((vocab, d), dtype=np.float32)
        bad = self._flag()
        gb = self._launch("andrea_embed_backward_token", "rows", n,
                          (self._ids32(ids), self._dev(g), gt, np.int32(n),
                           self._int32("d_model", d), self._int32("vocab_size", vocab), bad),
                          shape, n * d)
        return gt, bad, gb

    def _backward_bad_all(self, token_ids, grad_out, vocab_size, context_length):
        try:
            ids = np.asarray(token_ids)
            grad = np.asarray(grad_out)
            vocab = int(vocab_size)
        except (TypeError, ValueError):
            return
        if (ids.dtype.kind not in "iu" or grad.dtype != np.float32 or ids.size == 0
                or grad.shape[:-1] != ids.shape or grad.ndim != ids.ndim + 1
                or grad.shape[-1] == 0 or vocab < 1):
            return
        d = grad.shape[-1]
        self._backward_bad(ids, grad.reshape(-1, d), vocab)
        probe = _probe_ids(vocab)[0]
        rng = np.random.default_rng(0)
        self._backward_bad(probe, rng.standard_normal((probe.size, d)).astype(np.float32), vocab,
                           probe=True)
        wrapping = _wrap_probe(vocab, d)
        if wrapping is not None:
            g = rng.standard_normal((wrapping.size, d)).astype(np.float32)
            _wrap_probed(lambda: self._backward_bad(wrapping, g, vocab, probe=True, wrap=d),
                         wrapping, d)

    def _backward_bad(self, ids, g, vocab, probe=False, wrap=0):
        flat = ids.reshape(-1).astype(np.int64)
        mask = self._bad_rows(flat, vocab)
        first = int(np.flatnonzero(mask)[0])
        good = np.flatnonzero(~mask)
        want = np.zeros((vocab, g.shape[1]), dtype=np.float64)
        np.add.at(want, flat[good], g[good].astype(np.float64))
        for shape in self.contract.test_shapes:
            gt, bad, gb = self._token_launch(ids, g, vocab, shape)
            self._device_bad(bad, first, "andrea_embed_backward_token", shape, flat, ids.shape,
                             gb, probe, wrap)
            got = self._host(gt)
            if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
                row = int(np.flatnonzero(~np.all(np.isclose(got, want, rtol=1e-5, atol=1e-5),
                                                 axis=1))[0])
                raise KernelContractError(Said(
                    F.MSG_GRADIENT_ROW_WRONG, kernel="andrea_embed_backward_token",
                    grid=int(gb[0]), block=int(gb[1]), row=row))


def _executor_gap(name: str, log: str, compiled_for_gpu: bool) -> SubmissionError:
    """The error for a kernel the CPU executor's compiler rejected: the checker's gap when the
    log names a CUDA function (andrea_gpu.executor.device_api) or NVRTC compiled the file."""
    from .executor.device_api import missing_in_log

    gap = missing_in_log(log)
    if gap:
        return ExecutorGap(f"kernel submission {name} uses {', '.join(gap)}, which is CUDA but "
                           f"which the checker's CPU executor does not provide yet: this is a "
                           f"gap of the checker, not an error in your kernel", log)
    if compiled_for_gpu:
        return ExecutorGap(f"kernel submission {name} compiles for the GPU, but the checker's CPU "
                           f"executor cannot build it: this is a gap of the checker, not an "
                           f"error in your kernel", log)
    return SubmissionError(f"kernel submission {name} does not build for the CPU executor", log)


def load_kernel_submission(path, contract: KernelContract, validate, *,
                           backend: str | None = None, sanitize: bool = True,
                           compiled_for_gpu: bool = False) -> KernelHost:
    """Build a submitted .cu for `backend` (default: cuda if available, else the CPU executor).

    On a CUDA device (and sanitize=True) every entry point is first exercised under NVIDIA
    compute-sanitizer (memcheck, racecheck, synccheck; andrea_gpu.sanitizer): its findings are
    raised as KernelError at the first call that launches that kernel.

    Raises SubmissionError (with the compiler log) when includes are refused, entry points are
    missing, a signature differs from the contract, or the source does not build; ExecutorGap
    (a SubmissionError) when what fails is the CPU executor's: the log names a CUDA function it
    lacks, or `compiled_for_gpu` (NVRTC compiled the same file).
    """
    text, name = read_source(path)
    check_includes(text, name)
    missing = _missing(text, contract)
    if missing:
        raise SubmissionError(f"kernel submission {name} lacks entry points: "
                              + "; ".join(missing))
    be = get_backend(backend)
    if be.name == "cpu":  # names only one compiler declares: the executor cannot judge them
        check_executor_names(text, name)
    # the executor's g++ takes the kernel's "define if missing" guards as NVRTC does
    source = (text if be.name == "cuda" else executor_source(text)) + contract.check_source()
    try:
        module = be.module(source, name)
        names = getattr(module, "param_names", None)
        if isinstance(names, dict):  # a kernel declared through a macro: the contract's names
            for ep in contract.entry_points:
                if len(names.get(ep.name, ())) != len(ep.params):
                    names[ep.name] = tuple(p.name for p in ep.params)
        for ep in contract.entry_points:  # on cuda this is where NVRTC compiles
            module.get_function(ep.name)
    except BuildError as exc:
        raise _executor_gap(name, exc.log, compiled_for_gpu) from None
    except Exception as exc:  # cupy's CompileException and friends
        if be.name != "cuda":
            raise
        raise SubmissionError(f"kernel submission {name} does not build for the GPU",
                              str(exc)) from None
    kernels = KernelHost(path, module, be, contract, validate)
    if be.name == "cuda" and sanitize:
        from . import sanitizer
        ok, why = sanitizer.available()
        if ok:
            try:
                for f in sanitizer.run(path, contract.to_data()):
                    kernels.sanitizer_findings.setdefault(f.kernel, []).append(f)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                kernels.sanitizer_note = f"compute-sanitizer did not run: {exc}"
        else:
            kernels.sanitizer_note = f"compute-sanitizer skipped: {why}"
    return kernels


__all__ = ["ALLOWED_HEADERS", "EntryPoint", "ExecutorGap", "KernelContract", "KernelContractError", "KernelHost",
           "ShapeCycle", "SubmissionError", "check_includes", "check_names", "compile_kernel_source",
           "executor_source", "load_kernel_submission", "read_source"]
