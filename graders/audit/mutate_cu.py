"""First-order mutants of a CUDA kernel file, one realistic kernel bug each.

There is no CUDA syntax tree for Python, so a small tokenizer does the work: the file becomes
tokens (identifiers, numbers, strings and character literals, comments, preprocessor lines,
operators, whitespace), each with its place in the text. The operators recognise their sites by
token structure (balanced parentheses, a ``for`` header's three clauses, an ``if`` statement
and its body), never by regular expressions over the text, and a mutant replaces the tokens of
one site: every other byte of the file is left as it was. Comments and strings are single
tokens, so nothing inside them is ever mutated.

=================  ==========================================================================
operator           the bug
=================  ==========================================================================
atomic_to_plain    ``atomicAdd(p, v)`` -> ``*(p) += v`` (a data race: updates are lost)
remove_syncthreads ``__syncthreads();`` removed
drop_grid_stride   ``for (i = blockIdx.x; i < n; i += gridDim.x)`` -> ``if (i = blockIdx.x; i < n)``
                   (rows past the grid's size are never computed)
bound_off_by_one   ``<`` <-> ``<=``, ``>`` <-> ``>=`` in a loop's or an if's condition
remove_id_check    the test of an id's range removed (``if (!ok(id)) continue;`` dropped, or
                   ``if (id >= 0 && id < n) return true;`` made unconditional)
=================  ==========================================================================

Only code that a contract entry point reaches is mutated (device functions it calls, through
templates too); each mutant knows which entry points reach it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .mutate import OPERATOR_KIND, Mutant

_PUNCT = sorted(["<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                 "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "..."],
                key=len, reverse=True)


@dataclass(frozen=True)
class Token:
    kind: str      # ident, number, string, comment, pp, op, space
    text: str
    start: int     # offset in the file


def tokenize(text: str) -> list[Token]:
    """The tokens of a CUDA/C++ source; ''.join of their texts is the source itself."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c in " \t\r\n\f\v":
            j = i
            while j < n and text[j] in " \t\r\n\f\v":
                j += 1
            out.append(Token("space", text[i:j], i))
            if "\n" in text[i:j]:
                line_start = True
            i = j
            continue
        if c == "#" and line_start:            # a preprocessor line, with its continuations
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            out.append(Token("pp", text[i:j], i))
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(Token("comment", text[i:j], i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(Token("comment", text[i:j], i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(Token("string", text[i:j], i))
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append(Token("ident", text[i:j], i))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            j = i
            while j < n and (text[j].isalnum() or text[j] in "._" or (
                    text[j] in "+-" and text[j - 1] in "eEpP")):
                j += 1
            out.append(Token("number", text[i:j], i))
            i = j
        else:
            for p in _PUNCT:
                if text.startswith(p, i):
                    out.append(Token("op", p, i))
                    i += len(p)
                    break
            else:
                out.append(Token("op", c, i))
                i += 1
    return out


class _Code:
    """The tokens without whitespace and comments, with the helpers the operators need."""

    def __init__(self, text: str):
        self.text = text
        self.all = tokenize(text)
        self.t = [t for t in self.all if t.kind not in ("space", "comment", "pp")]
        self.match: dict[int, int] = {}
        stack: list[int] = []
        for k, tok in enumerate(self.t):
            if tok.text in "([{" and tok.kind == "op":
                stack.append(k)
            elif tok.text in ")]}" and tok.kind == "op" and stack:
                self.match[stack.pop()] = k

    def end(self, k: int) -> int:
        """Offset just past token k."""
        return self.t[k].start + len(self.t[k].text)

    def split_top(self, lo: int, hi: int, sep: str) -> list[tuple[int, int]]:
        """Token ranges [a, b) between lo and hi separated by `sep` at nesting depth 0."""
        parts, a, depth = [], lo, 0
        for k in range(lo, hi):
            s = self.t[k].text
            if self.t[k].kind == "op" and s in "([{":
                depth += 1
            elif self.t[k].kind == "op" and s in ")]}":
                depth -= 1
            elif depth == 0 and s == sep and self.t[k].kind == "op":
                parts.append((a, k))
                a = k + 1
        parts.append((a, hi))
        return parts

    def src(self, a: int, b: int) -> str:
        """The source text of tokens [a, b)."""
        return self.text[self.t[a].start:self.end(b - 1)] if b > a else ""

    def statement_end(self, k: int) -> int:
        """The last token of the statement starting at token k (a block or up to ';')."""
        if self.t[k].text == "{":
            return self.match.get(k, k)
        if self.t[k].text in ("if", "for", "while") and k + 1 < len(self.t) \
                and self.t[k + 1].text == "(":
            return self.statement_end(self.match[k + 1] + 1)
        depth = 0
        for j in range(k, len(self.t)):
            s = self.t[j].text
            if s in "([{":
                depth += 1
            elif s in ")]}":
                depth -= 1
            elif s == ";" and depth == 0:
                return j
        return len(self.t) - 1


@dataclass
class _Edit:
    start: int
    end: int
    new: str
    operator: str
    description: str
    token: int          # where (a token index), for the line and the enclosing function


def _functions(code: _Code) -> list[tuple[str, int, int]]:
    """(name, first body token, last body token) of every function definition at file level."""
    out, k, depth = [], 0, 0
    t = code.t
    while k < len(t):
        s = t[k].text
        if s == "{" and depth == 0:
            # the name: the identifier before the parameter list's '(' that ends just here
            j = k - 1
            while j >= 0 and t[j].text != ")":
                j -= 1
            opener = next((o for o, c in code.match.items() if c == j), None)
            name = t[opener - 1].text if opener and t[opener - 1].kind == "ident" else "?"
            end = code.match.get(k, len(t) - 1)
            out.append((name, k, end))
            k = end + 1
            continue
        k += 1
    return out


def _edits(code: _Code, lo: int, hi: int) -> list[_Edit]:
    t, out = code.t, []
    lo_fn = lo
    for k in range(lo, hi + 1):
        s = t[k].text
        nxt = t[k + 1].text if k + 1 < len(t) else ""
        if s == "atomicAdd" and nxt == "(":
            close = code.match.get(k + 1)
            if close is None:
                continue
            args = code.split_top(k + 2, close, ",")
            if len(args) == 2:
                p, v = code.src(*args[0]), code.src(*args[1])
                out.append(_Edit(t[k].start, code.end(close), f"*({p}) += {v}",
                                 "atomic_to_plain", f"atomicAdd({p}, {v})  ->  *({p}) += {v}",
                                 k))
        elif s == "__syncthreads" and nxt == "(":
            close = code.match.get(k + 1)
            semi = close + 1 if close is not None else None
            if semi is not None and semi < len(t) and t[semi].text == ";":
                out.append(_Edit(t[k].start, code.end(semi), ";", "remove_syncthreads",
                                 "__syncthreads();  ->  (removed)", k))
        elif s == "for" and nxt == "(":
            close = code.match.get(k + 1)
            if close is None:
                continue
            parts = code.split_top(k + 2, close, ";")
            if len(parts) != 3:
                continue
            init, cond, incr = (code.src(*p) for p in parts)
            if "gridDim" in incr or any(n in incr for n in _grid_steps(code, lo_fn, k)):
                # the body's own continue/break (not an inner loop's) leave the thread: return
                last = code.statement_end(close + 1)
                body = code.text[code.end(close):code.end(last)]
                base = code.end(close)
                for j in reversed(_own_jumps(code, close + 1, last)):
                    a = t[j].start - base
                    body = body[:a] + "return" + body[a + len(t[j].text):]
                out.append(_Edit(t[k].start, code.end(last), f"if ({init}; {cond})" + body,
                                 "drop_grid_stride",
                                 f"for ({init}; {cond}; {incr})  ->  if ({init}; {cond})", k))
            out.extend(_bound_flips(code, *parts[1], f"for (...; {cond}; ...)"))
        elif s in ("if", "while") and nxt == "(":
            close = code.match.get(k + 1)
            if close is None:
                continue
            cond = code.src(k + 2, close)
            out.extend(_bound_flips(code, k + 2, close, f"{s} ({cond})"))
            if s == "if" and _tests_an_id(code, k + 2, close):
                body = close + 1
                last = code.statement_end(body)
                jump = code.src(body, last + 1).strip().rstrip(";").strip()
                if jump in ("continue", "return", "break") or jump.startswith("return ") \
                        and not jump.startswith("return true"):
                    out.append(_Edit(t[k].start, code.end(last), ";", "remove_id_check",
                                     f"if ({cond}) {jump};  ->  (removed)", k))
                else:
                    out.append(_Edit(t[k + 2].start, code.end(close - 1), "true",
                                     "remove_id_check", f"if ({cond})  ->  if (true)", k))
    return out


def _grid_steps(code: _Code, lo: int, k: int) -> set[str]:
    """Names declared before token k in the function whose initializer reads gridDim (a
    grid-stride step kept in a variable: ``const size_t step = blockDim.x * gridDim.x;``)."""
    t, out = code.t, set()
    for j in range(lo, k):
        if t[j].text == "=" and t[j - 1].kind == "ident":
            end = j
            while end < k and t[end].text != ";":
                end += 1
            if any(t[x].text == "gridDim" for x in range(j, end)):
                out.add(t[j - 1].text)
    return out


def _own_jumps(code: _Code, lo: int, hi: int) -> list[int]:
    """Tokens `continue` / `break` in statements [lo, hi] that belong to this loop (not to a
    loop or switch nested in it)."""
    t, out, k = code.t, [], lo
    while k <= hi:
        s = t[k].text
        if s in ("for", "while", "switch") and k + 1 <= hi and t[k + 1].text == "(":
            k = code.statement_end(k) + 1
            continue
        if s == "do":
            k = code.statement_end(k + 1) + 1
            continue
        if s in ("continue", "break") and t[k].kind == "ident":
            out.append(k)
        k += 1
    return out


def _tests_an_id(code: _Code, lo: int, hi: int) -> bool:
    names = [code.t[k].text for k in range(lo, hi) if code.t[k].kind == "ident"]
    return any(n == "id" or n.endswith("_id") or n in ("ids", "tok", "token") for n in names)


def _bound_flips(code: _Code, lo: int, hi: int, where: str) -> list[_Edit]:
    flip = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
    out = []
    for k in range(lo, hi):
        tok = code.t[k]
        if tok.kind != "op" or tok.text not in flip:
            continue
        prev = code.t[k - 1].text if k else ""
        if prev.endswith("_cast") or prev in ("template",):   # reinterpret_cast<T *>
            continue
        out.append(_Edit(tok.start, tok.start + len(tok.text), flip[tok.text],
                         "bound_off_by_one",
                         f"{where}: {tok.text}  ->  {flip[tok.text]}", k))
    return out


def _reachable(code: _Code, functions, entries: Iterable[str]) -> dict[str, set[str]]:
    """Function name -> the entry points whose calls reach it."""
    bodies = {}
    for name, lo, hi in functions:
        bodies.setdefault(name, set()).update(
            code.t[k].text for k in range(lo, hi + 1) if code.t[k].kind == "ident")
    reach: dict[str, set[str]] = {name: set() for name in bodies}
    for e in entries:
        todo, seen = [e], set()
        while todo:
            f = todo.pop()
            if f in seen or f not in bodies:
                continue
            seen.add(f)
            reach[f].add(e)
            todo.extend(n for n in bodies[f] if n in bodies)
    return reach


CONTRACT_OF_ENTRY = (("lookup", "lookup"), ("forward", "embed"), ("backward", "embed_backward"))


def _contract(entry: str) -> str | None:
    return next((fn for key, fn in CONTRACT_OF_ENTRY if key in entry), None)


def cuda_mutants(text: str, file: str, *, entries: Iterable[str] | None = None,
                 operators: Iterable[str] | None = None) -> list[Mutant]:
    """Every first-order mutant of a kernel source. `entries`: the contract's entry points
    (default: every ``__global__`` function); only code they reach is mutated."""
    code = _Code(text)
    functions = _functions(code)
    if entries is None:
        entries = [name for name, lo, _ in functions if _is_global(code, lo)]
    reach = _reachable(code, functions, list(entries))
    ops = set(operators) if operators is not None else None
    out, seen = [], set()
    counts: dict[tuple, int] = {}
    for name, lo, hi in functions:
        if not reach.get(name):
            continue
        for e in _edits(code, lo, hi):
            if ops is not None and e.operator not in ops:
                continue
            new = text[:e.start] + e.new + text[e.end:]
            if new == text or new in seen:
                continue
            seen.add(new)
            line = text.count("\n", 0, e.start) + 1
            idx = counts.get((line, e.operator), 0)
            counts[(line, e.operator)] = idx + 1
            fns = sorted({c for en in reach[name] if (c := _contract(en))})
            out.append(Mutant(f"{file}:{line}:{e.operator}:{idx}", file, line, e.operator,
                              name + (f" [{', '.join(fns)}]" if fns else ""), e.description,
                              text, new, OPERATOR_KIND[e.operator]))
    return out


def _is_global(code: _Code, body: int) -> bool:
    k = body - 1
    while k >= 0 and code.t[k].text not in (";", "}"):
        if code.t[k].text == "__global__":
            return True
        k -= 1
    return False


def contract_functions_of(m: Mutant, text: str) -> tuple[str, ...]:
    """The contract functions (lookup, embed, embed_backward) whose kernels reach the mutant's
    site, as cuda_mutants recorded them in the mutant's function name."""
    fn = m.function or ""
    if "[" in fn:
        return tuple(x.strip() for x in fn.split("[", 1)[1].rstrip("]").split(","))
    return ("lookup", "embed", "embed_backward")
