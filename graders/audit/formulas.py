"""Formulas a course text writes (``V × d_model``, ``d_model²``, ``T × d_model``,
``1/sqrt(d_model)``, ``√d_model``, and in words: ``d_model의 제곱근``), read into an arithmetic
expression over the spec's model fields and evaluated with the spec's own evaluator
(``spec.evaluate``: Python's ``ast``, + - * / ** and sqrt only; nothing is ever ``eval``-ed).

Which symbols a formula may use (``V`` -> ``vocab_size``) and how formulas are written in words
are language data in the lexicon (``spec/lexicon/lexicon.yaml``: ``symbols``, ``formula_words``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping

from spec import evaluate

from .numbers import read_literal

_OPS = "×*·⋅/+\\-−^()²³√"
#: Longer runs of symbols and operators are not read as one formula (no course formula is).
MAX_FORMULA = 80


@dataclass(frozen=True)
class Formula:
    """A formula as written at [start, end) of a sentence, its expression and value."""

    start: int
    end: int
    text: str
    expr: str          # over the model's field names: "vocab_size * d_model"
    value: float


class FormulaReader:
    """Finds and evaluates the formulas of a text for one spec and language."""

    def __init__(self, symbols: Mapping[str, str], names: Mapping[str, float], locale: str,
                 word_templates: list[tuple[str, str]] = ()):
        self.symbols = dict(symbols)              # as written -> model field
        self.names = dict(names)                  # model field -> value
        self.locale = locale
        written = sorted(self.symbols, key=len, reverse=True)
        sym = "|".join(re.escape(s) for s in written)
        self._sym = rf"(?<![A-Za-z0-9_])(?:{sym})(?![A-Za-z0-9_])"
        self._run = re.compile(
            rf"(?:{self._sym}|(?<![A-Za-z0-9_])sqrt(?=\s*\()|\d+(?:[.,]\d+)*|[{_OPS}]|[ \t])+")
        self._name_re = re.compile(self._sym)
        self._words = []
        for template, expr in word_templates:
            parts = re.split(r"\{x\}", template)
            pattern = "(?P<x>" + sym + ")"
            rx = pattern.join(re.escape(p) for p in parts)
            self._words.append((re.compile(rx, re.I), expr))

    # -- finding --------------------------------------------------------------------------
    def find(self, text: str) -> list[Formula]:
        """The formulas in `text`, left to right, in words first (their spans are not read
        again as symbols)."""
        out: list[Formula] = []
        taken: list[tuple[int, int]] = []
        for rx, expr in self._words:
            for m in rx.finditer(text):
                if any(m.start() < e and s < m.end() for s, e in taken):
                    continue
                field = self.symbols[_match_symbol(self.symbols, m.group("x"))]
                f = self._formula(m.start(), m.end(), m.group(), expr.replace("{x}", field))
                if f is not None:
                    out.append(f)
                    taken.append((m.start(), m.end()))
        for m in self._run.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            s, e = _trim(text, s, e)
            if e <= s:
                continue
            raw = text[s:e]
            if len(raw) > MAX_FORMULA:
                continue
            has_name = self._name_re.search(raw) is not None
            ops = re.search(r"[×*·⋅/+\-−^²³√]|sqrt", raw)
            if not ops or not (has_name or re.search(r"\d\s*[×*·⋅]\s*\d", raw)):
                continue
            expr = self.to_python(raw)
            if expr is None:
                continue
            f = self._formula(s, e, raw, expr)
            if f is not None:
                out.append(f)
        return sorted(out, key=lambda f: f.start)

    def _formula(self, s: int, e: int, raw: str, expr: str) -> Formula | None:
        try:
            tree = ast.parse(expr, mode="eval")
        except (SyntaxError, RecursionError, MemoryError):
            return None
        if not _plain(tree):
            return None
        try:
            value = float(evaluate(expr, self.names))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return None
        return Formula(s, e, raw, expr, value)

    # -- conversion -----------------------------------------------------------------------
    def to_python(self, raw: str) -> str | None:
        """`raw` as a Python expression over field names ("V × d_model" -> "vocab_size *
        d_model", "d_model²" -> "d_model**2", "√d_model" -> "sqrt(d_model)"), or None."""
        out: list[str] = []
        pos = 0
        tok = re.compile(rf"\s+|{self._sym}|sqrt|\d+(?:[.,]\d+)*|[{_OPS}]")
        pending_root = 0
        while pos < len(raw):
            m = tok.match(raw, pos)
            if m is None:
                return None
            t = m.group()
            pos = m.end()
            if t.isspace():
                continue
            if t in self.symbols:
                out.append(self.symbols[t])
            elif t[0] in "0123456789":
                r = read_literal(t, self.locale)
                if r.value is None:
                    r = read_literal(t, "en")
                if r.value is None:
                    return None
                out.append(repr(float(r.value)) if r.value != int(r.value) else str(int(r.value)))
            elif t in "×*·⋅":
                out.append("*")
            elif t in "-−":
                out.append("-")
            elif t == "^":
                out.append("**")
            elif t == "²":
                out.append("**2")
            elif t == "³":
                out.append("**3")
            elif t == "√":
                out.append("sqrt(")
                pending_root += 1
                continue
            else:
                out.append(t)
            # √x closes after one operand (a name, a number or a parenthesised group)
            if pending_root and t not in ("(", "sqrt") and _balanced(out):
                out.append(")" * pending_root)
                pending_root = 0
        if pending_root:
            return None
        return " ".join(out).replace("sqrt (", "sqrt(").replace("( ", "(")


def _balanced(out: list[str]) -> bool:
    depth = 0
    for t in reversed(out):
        if t.endswith("sqrt("):
            return depth == 0
        depth += t.count(")") - t.count("(")
    return depth == 0


def _match_symbol(symbols: Mapping[str, str], written: str) -> str:
    return next((s for s in symbols if s.lower() == written.lower()), written)


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    """Drop spaces and dangling operators at both ends, and unbalanced parentheses."""
    while True:
        before = (s, e)
        while s < e and text[s] in " \t×*·⋅/+^=)":
            s += 1
        while s < e and text[e - 1] in " \t×*·⋅/+-−^(√":
            e -= 1
        seg = text[s:e]
        if seg.count("(") > seg.count(")") and seg.startswith("("):
            s += 1
        elif seg.count(")") > seg.count("(") and seg.endswith(")"):
            e -= 1
        if (s, e) == before:
            return s, e


def _plain(tree: ast.AST) -> bool:
    """Only numbers, names, + - * / **, unary minus and sqrt()."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load,
                             ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "sqrt" and len(node.args) == 1 and not node.keywords:
            continue
        return False
    return True


def as_decimal(x: float) -> Decimal:
    return Decimal(repr(x))
