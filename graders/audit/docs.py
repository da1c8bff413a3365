"""`andrea-audit docs`: check every number a course document states against the spec.

How a number is tied to a fact of the spec (all values come from the spec; which words point at
which fact is data in ``docs_rules.yaml``):

* The document is cut into sections by the spec's section headings (any language). A clause's
  ``source`` says in which section its numbers are stated.
* Table rows: the first cell names the fact (``V``, ``d_model``, ``T``, "Parameters" = the
  section's own table, "Token ..."/"Position ..."/"Totaal" = that table or the layer's total). A
  shape cell ``a × b`` is checked factor by factor against the quantity's expression
  (``vocab_size * d_model``).
* Arithmetic the text does (``a + b = c``) is matched to the quantity whose expression is a sum,
  checked against the spec, and the text's own sum is checked too.
* Percentages go to the share quantities (``*_percent``) of the section, disambiguated by
  keywords in the sentence; counts with a scale word ("6,5 miljoen", "0.79M", "650만",
  "1억 2천만") or of five digits or more go to the parameter counts of the section (nearest in
  magnitude); other numbers of 100 or more go to V, d_model or T by a nearby word or magnitude.
* Indices: the last component after an ellipsis (``v_0, ..., v_767``) is d_model - 1, the last
  row of the matrix after a ``...`` line is V - 1; example token ids must be below V.
* Names (ANDREA-120M, GPT-2), citation years and small numbers (activity 5, block 1) are listed
  as read but are not about the model.

A number is compared at the precision it is written with (``6,5 miljoen`` against 6,488,832
rounded to 100,000). When it does not match under the document's locale but does under the other
separator convention (Dutch "1,024" is 1.024 to a Dutch reader), it is *ambiguous*.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

import yaml

from spec import Spec, evaluate, is_number

from .numbers import (KOREAN_AMOUNT, LITERAL, LOCALES, Reading, Token, alternative_locales, fmt,
                      read_korean, read_literal, round_to)

RULES_PATH = Path(__file__).with_name("docs_rules.yaml")
LANGS = tuple(LOCALES)


class DocumentError(ValueError):
    """A document cannot be read (missing, not UTF-8 text)."""


@lru_cache(maxsize=None)
def load_rules(path: str | None = None) -> dict:
    return yaml.safe_load(Path(path or RULES_PATH).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- facts
@dataclass(frozen=True)
class Fact:
    key: str
    clause: str
    exact: Decimal
    kind: str            # "dim", "count", "percent", "index"
    source: str          # section id of the clause
    expr: str = ""


def build_facts(spec: Spec, rules: dict) -> dict[str, Fact]:
    """Every number the documents may state, from the spec's model fields and quantities."""
    src = {c.id: c.source for c in spec.clauses}
    m = spec.model
    facts: dict[str, Fact] = {}
    for name, clause in rules["model_facts"].items():
        kind = "count" if name == "total_params" else "dim"
        facts[name] = Fact(name, clause, Decimal(getattr(m, name)), kind, src.get(clause, ""), name)
    facts["last_token_id"] = Fact("last_token_id", rules["model_facts"]["vocab_size"],
                                  Decimal(m.vocab_size - 1), "index",
                                  src.get(rules["model_facts"]["vocab_size"], ""), "vocab_size - 1")
    facts["last_component"] = Fact("last_component", rules["model_facts"]["d_model"],
                                   Decimal(m.d_model - 1), "index",
                                   src.get(rules["model_facts"]["d_model"], ""), "d_model - 1")
    for v in spec.quantity_values():
        kind = "percent" if v.name.endswith("_percent") else "count"
        facts[v.name] = Fact(v.name, v.clause, Decimal(repr(v.exact)), kind,
                             src.get(v.clause, ""), v.expr)
    return facts


# --------------------------------------------------------------------------- results
@dataclass
class Finding:
    """One statement of the document checked against the spec."""

    file: str
    line: int | None
    column: int | None
    text: str
    value: str            # the value read (the document's locale, or the reading that matches)
    value_locale: str     # the value under the document's own locale ("-": not a number there)
    locale: str
    clause: str
    fact: str
    expected: str         # what the spec needs at the precision the text is written with
    kind: str             # "ok", "mismatch", "ambiguous", "unverified"
    check: str            # "value", "arithmetic", "phrase", "range"
    note: str = ""
    context: str = ""


@dataclass
class NumberRead:
    """A number the document writes, whether or not it is about the model."""

    line: int
    column: int
    text: str
    value: str
    value_locale: str
    role: str             # the fact it states, or why it is not checked
    clause: str = ""
    kind: str = "not checked"


@dataclass
class DocReport:
    file: str
    lang: str
    locale: str
    lang_detected: bool
    findings: list[Finding] = field(default_factory=list)
    numbers: list[NumberRead] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for f in self.findings if f.kind == kind)

    def to_dict(self) -> dict:
        return {"file": self.file, "lang": self.lang, "locale": self.locale,
                "lang_detected": self.lang_detected,
                "summary": {k: self.count(k) for k in ("ok", "mismatch", "ambiguous", "unverified")}
                | {"numbers_read": len(self.numbers)},
                "findings": [asdict(f) for f in self.findings],
                "numbers": [asdict(n) for n in self.numbers]}


# --------------------------------------------------------------------------- language
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_NL_WORDS = {"de", "het", "een", "van", "en", "niet", "die", "dat", "voor", "met", "zijn",
             "wordt", "elke", "bij", "naar", "ook", "geen", "als"}
_EN_WORDS = {"the", "a", "of", "and", "not", "that", "for", "with", "are", "each", "to", "by",
             "from", "into", "no", "as"}


def detect_language(text: str) -> str:
    """"ko" when Hangul is a visible share of the letters, else "nl" or "en" by common words."""
    letters = sum(1 for ch in text if ch.isalpha())
    hangul = len(_HANGUL.findall(text))
    if hangul and hangul >= max(20, 0.05 * letters):
        return "ko"
    words = re.findall(r"[a-zà-ÿ]+", text.lower())
    nl = sum(1 for w in words if w in _NL_WORDS)
    en = sum(1 for w in words if w in _EN_WORDS)
    return "nl" if nl > en else "en"


# --------------------------------------------------------------------------- the auditor
def _norm_heading(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("’", "'")).strip().casefold()


_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


class _Auditor:
    def __init__(self, text: str, spec: Spec, lang: str, name: str, detected: bool):
        self.spec = spec
        self.lang = lang
        self.locale = LOCALES[lang]
        self.alts = alternative_locales(self.locale)
        self.rules = load_rules()
        self.facts = build_facts(spec, self.rules)
        self.name = name
        self.lines = text.splitlines()
        self.report = DocReport(name, lang, self.locale, detected)
        self.headings = {}
        for sid, titles in spec.sections.items():
            for title in titles.values():
                self.headings.setdefault(_norm_heading(title), sid)
        scales = self.rules["scales"].get(lang, {}) | {"M": 1000000}
        self.scales = {k: Decimal(str(v)) for k, v in scales.items()}
        words = "|".join(sorted((re.escape(w) for w in self.scales), key=len, reverse=True))
        self.scale_re = rf"(?:\s?(?P<scale>{words})(?![^\W\d_]))?"
        self.term_re = rf"(?:{KOREAN_AMOUNT.pattern}|{LITERAL}(?:\s?(?:{words})(?![^\W\d_]))?)"

    # -- tokens ---------------------------------------------------------------------------
    def token(self, lineno: int, start: int, text: str, literal: str | None = None,
              scale_word: str = "", percent: bool = False) -> Token:
        tok = Token(lineno, start + 1, text, literal or text, percent, scale_word)
        korean = literal is None and KOREAN_AMOUNT.fullmatch(text) is not None
        for loc in [self.locale, *self.alts]:
            if korean:
                tok.readings[loc] = read_korean(text, loc)
            else:
                scale = self.scales.get(scale_word, Decimal(1)) if scale_word else Decimal(1)
                tok.readings[loc] = read_literal(tok.literal, loc, scale, scaled=bool(scale_word))
        return tok

    def preferred(self, tok: Token) -> Reading:
        own = tok.reading(self.locale)
        if own.value is not None and own.well_formed:
            return own
        for loc in self.alts:
            r = tok.reading(loc)
            if r.value is not None and r.well_formed:
                return r
        return own

    def magnitude(self, tok: Token) -> Decimal | None:
        """The largest well-formed reading ("1,024" is 1024 somewhere), else the preferred one."""
        vals = [r.value for r in tok.readings.values() if r.value is not None and r.well_formed]
        return max(vals) if vals else self.preferred(tok).value

    def show(self, tok: Token, r: Reading | None) -> str:
        if r is None or r.value is None:
            return "-"
        return fmt(r.value) + ("%" if tok.percent else "")

    def context(self, lineno: int, col: int, length: int) -> str:
        line = self.lines[lineno - 1]
        a, b = max(0, col - 1 - 30), min(len(line), col - 1 + length + 30)
        return ("…" if a else "") + line[a:b] + ("…" if b < len(line) else "")

    # -- records --------------------------------------------------------------------------
    def listed(self, tok: Token, role: str) -> None:
        r = self.preferred(tok)
        self.report.numbers.append(NumberRead(tok.line, tok.column, tok.text, self.show(tok, r),
                                              self.show(tok, tok.reading(self.locale)), role))

    def judge(self, tok: Token, fact: Fact, role: str | None = None) -> Finding:
        own = tok.reading(self.locale)

        def matches(r: Reading) -> bool:
            return r.value is not None and r.value == round_to(fact.exact, r.precision)

        note = ""
        if matches(own):
            kind, used = "ok", own
            if not own.well_formed:
                note = f"not well formed under locale {self.locale}"
        else:
            alt = next((tok.reading(l) for l in self.alts
                        if tok.reading(l).well_formed and matches(tok.reading(l))), None)
            if alt is not None:
                kind, used = "ambiguous", alt
                if own.value is None:
                    under = f"is not a number under locale {self.locale}"
                elif own.well_formed:
                    under = f"reads as {self.show(tok, own)} under locale {self.locale}"
                else:
                    under = (f"is not well formed under locale {self.locale} (read leniently: "
                             f"{self.show(tok, own)})")
                note = (f"{tok.text!r} {under}; only with {alt.locale} separators "
                        f"({fmt(alt.value)}) does it state what the spec needs")
            else:
                kind, used = "mismatch", self.preferred(tok)
                if used.locale != self.locale:
                    note = f"read with {used.locale} separators; not well formed under {self.locale}"
        expected = (round_to(fact.exact, used.precision) if used.precision is not None
                    else fact.exact)
        exp_text = fmt(expected) + ("%" if tok.percent else "")
        if used.precision is not None and used.precision != 1 and expected != fact.exact:
            exp_text += f" ({fmt(fact.exact)} rounded to {fmt(used.precision)})"
        f = Finding(self.name, tok.line, tok.column, tok.text, self.show(tok, used),
                    self.show(tok, own), self.locale, fact.clause, fact.key, exp_text, kind,
                    "value", note, self.context(tok.line, tok.column, len(tok.text)))
        self.report.findings.append(f)
        self.report.numbers.append(NumberRead(tok.line, tok.column, tok.text, f.value,
                                              f.value_locale, role or fact.key, fact.clause, kind))
        return f

    def range_check(self, tok: Token, limit_fact: str, role: str) -> None:
        """An index or example id: must lie in 0 .. fact - 1."""
        fact = self.facts[limit_fact]
        r = self.preferred(tok)
        ok = r.value is not None and 0 <= r.value < fact.exact
        kind = "ok" if ok else "mismatch"
        exp = f"0..{fmt(fact.exact - 1)}"
        if not ok:
            self.report.findings.append(Finding(
                self.name, tok.line, tok.column, tok.text, self.show(tok, r),
                self.show(tok, tok.reading(self.locale)), self.locale, fact.clause, role, exp,
                kind, "range", f"{role} must be below {limit_fact} = {fmt(fact.exact)}",
                self.context(tok.line, tok.column, len(tok.text))))
        self.report.numbers.append(NumberRead(tok.line, tok.column, tok.text, self.show(tok, r),
                                              self.show(tok, tok.reading(self.locale)),
                                              f"{role} (range {exp})", fact.clause, kind))

    # -- candidates -----------------------------------------------------------------------
    def section_candidates(self, kind: str, section: str | None) -> list[Fact]:
        allf = [f for f in self.facts.values() if f.kind == kind]
        here = [f for f in allf if f.source == section]
        return here or allf

    def nearest(self, cands: list[Fact], value: Decimal | None,
                max_ratio: float | None = None) -> Fact | None:
        if not cands or value is None or value <= 0:
            return None
        best = min(cands, key=lambda f: abs(math.log(float(value) / float(f.exact))))
        if max_ratio and abs(math.log(float(value) / float(best.exact))) > math.log(max_ratio):
            return None
        return best

    def keyword_choice(self, cands: list[Fact], sentence: str, pos_in_sentence: int) -> Fact:
        best, best_d = None, None
        low = sentence.casefold()
        for f in cands:
            for kw in self.rules["keywords"].get(f.key, {}).get(self.lang, []):
                for m in re.finditer(re.escape(kw.casefold()), low):
                    d = abs(m.start() - pos_in_sentence)
                    if best_d is None or d < best_d:
                        best, best_d = f, d
        return best or cands[0]

    def dimension_hint(self, line: str, start: int, end: int) -> Fact | None:
        before, after = line[max(0, start - 8):start].casefold(), line[end:end + 14].casefold()
        best, best_d = None, None
        for key, per_lang in self.rules["dimension_hints"].items():
            for hint in per_lang.get(self.lang, []):
                h = hint.casefold()
                i = after.find(h)
                if i >= 0 and (best_d is None or i < best_d):
                    best, best_d = self.facts[key], i
                j = before.rfind(h)
                if j >= 0:
                    d = len(before) - (j + len(h))
                    if best_d is None or d < best_d:
                        best, best_d = self.facts[key], d
        return best

    # -- the walk -------------------------------------------------------------------------
    def run(self) -> DocReport:
        section = None
        header_next = True
        for lineno, line in enumerate(self.lines, 1):
            stripped = line.strip()
            sid = self.headings.get(_norm_heading(stripped)) if stripped else None
            if sid:
                section = sid
            if stripped.startswith("|") and stripped.endswith("|") and not stripped.startswith("||"):
                if _TABLE_SEP.match(stripped):
                    continue
                self.table_row(lineno, line, section, header=header_next)
                header_next = False
                continue
            header_next = True
            self.prose(lineno, line, section, self.lines[lineno - 2].strip() if lineno > 1 else "")
        self.init_scale()
        self.report.findings.sort(key=lambda f: (f.line or 0, f.column or 0))
        self.report.numbers.sort(key=lambda n: (n.line, n.column))
        return self.report

    # tables ----------------------------------------------------------------------------
    def row_fact(self, label: str, section: str | None) -> Fact | None:
        first = re.split(r"[\s(]", label.strip(), maxsplit=1)[0]
        for key, labels in self.rules["table_labels"].items():
            if first in labels:
                return self.facts[key]
        low = label.casefold()
        for key, words in self.rules["row_keywords"].items():
            if key in self.facts and any(w.casefold() in low for w in words):
                return self.facts[key]
        if low.strip() in [w.casefold() for w in self.rules["parameter_labels"]]:
            own = [f for f in self.facts.values() if f.kind == "count" and f.source == section
                   and f.key in self.spec.quantities]
            return own[0] if own else None
        return None

    def table_row(self, lineno: int, line: str, section: str | None, header: bool) -> None:
        cells, pos = [], 0
        for part in line.split("|"):
            cells.append((pos, part))
            pos += len(part) + 1
        cells = [(p, c) for p, c in cells if c.strip()]
        if not cells:
            return
        label = cells[0][1].strip()
        fact = None if header else self.row_fact(label, section)
        for ci, (p, cell) in enumerate(cells):
            taken: list[tuple[int, int]] = []
            if ci == 0 or header:
                for m in re.finditer(LITERAL, cell):
                    if not _inside(m.span(), taken):
                        self.listed(self.token(lineno, p + m.start(), m.group()),
                                    "table header" if header else "row label")
                continue
            shape = re.search(rf"({LITERAL})\s*[×xX*]\s*({LITERAL})", cell)
            if shape and fact is not None:
                factors = re.fullmatch(r"\s*(\w+)\s*\*\s*(\w+)\s*", fact.expr or "")
                for gi in (1, 2):
                    tok = self.token(lineno, p + shape.start(gi), shape.group(gi))
                    key = factors.group(gi) if factors else None
                    if key in self.facts:
                        self.judge(tok, self.facts[key], f"shape of {fact.key}: {key}")
                    else:
                        self.listed(tok, f"shape factor of {fact.key} (no factor in its expression)")
                taken.append(shape.span())
            for m in re.finditer(LITERAL + self.scale_re, cell):
                if _inside(m.span(), taken):
                    continue
                tok = self.token(lineno, p + m.start(), m.group(), re.match(LITERAL, m.group()).group(),
                                 m.group("scale") or "")
                if fact is None:
                    self.listed(tok, f"table cell, row {label!r} names no fact of the spec")
                else:
                    self.judge(tok, fact, f"table: {fact.key}")

    # prose ------------------------------------------------------------------------------
    def prose(self, lineno: int, line: str, section: str | None, prev: str) -> None:
        """Run the prose rules (PROSE_RULES, in order) over one line; a number one rule has
        read is not read again by a later one."""
        ln = _Line(lineno, line, section, prev)
        for rule in PROSE_RULES:
            if rule.lang in (None, self.lang):
                rule.read(self, ln)

    def _names(self, ln: "_Line") -> None:
        for m in re.finditer(rf"(?<![\w-])[A-Za-z][A-Za-z]*-(?P<n>{LITERAL})(?P<suf>[A-Za-z]?)",
                             ln.text):
            s = m.start("n")
            self.listed(self.token(ln.no, s, m.group("n") + m.group("suf"), m.group("n")),
                        f"name ({m.group()})")
            ln.take((s, m.end()))

    def _citation_years(self, ln: "_Line") -> None:
        for m in re.finditer(r"\((?:[A-Z][\w.&\s]*?)\s(?P<y>(?:1[89]|20)\d\d)\)", ln.text):
            if ln.free(m.span("y")):
                self.listed(self.token(ln.no, m.start("y"), m.group("y")), "citation year")
                ln.take(m.span("y"))

    def _matrix_row_label(self, ln: "_Line") -> None:
        m = re.match(r"^\s*[^\W\d_]+ (\d+):\s*\[", ln.text)
        if m and ln.free(m.span(1)):
            tok = self.token(ln.no, m.start(1), m.group(1))
            if ln.prev in ("...", "…"):
                self.judge(tok, self.facts["last_token_id"], "last row of the token table")
            else:
                self.range_check(tok, "vocab_size", "row index")
            ln.take(m.span(1))

    def _subscripts(self, ln: "_Line") -> None:
        line = ln.text
        ellipses = [e.end() for e in re.finditer(r"\.\.\.|…", line)]
        for m in re.finditer(r"(?<![A-Za-z0-9_])[A-Za-z]((?:_\d+)+)(?![0-9_])", line):
            parts = [(mm.start(1) + m.start(1), mm.group(1))
                     for mm in re.finditer(r"_(\d+)", m.group(1))]
            after_ellipsis = any(e <= m.start() and not re.search(r"[\]\)=]", line[e:m.start()])
                                 for e in ellipses)
            for i, (s, digits) in enumerate(parts):
                tok = self.token(ln.no, s, digits)
                last = i == len(parts) - 1
                if last and after_ellipsis:
                    self.judge(tok, self.facts["last_component"], "last component index")
                elif last:
                    self.range_check(tok, "d_model", "component index")
                else:
                    self.range_check(tok, "vocab_size", "row index")
                ln.take((s, s + len(digits)))

    def _example_ids(self, ln: "_Line") -> None:
        for m in re.finditer(r"\[(\d+(?:,\s*\d+)*),\s*(?:\.\.\.|…)\s*\]", ln.text):
            for mm in re.finditer(r"\d+", m.group(1)):
                s = m.start(1) + mm.start()
                if ln.free((s, s + len(mm.group()))):
                    self.range_check(self.token(ln.no, s, mm.group()), "vocab_size",
                                     "example token id")
                    ln.take((s, s + len(mm.group())))

    def _sums(self, ln: "_Line") -> None:
        term = self.term_re
        for m in re.finditer(rf"(?P<a>{term})\s*\+\s*(?P<b>{term})\s*=\s*[^\d=]{{0,40}}?(?P<c>{term})",
                             ln.text):
            if not all(ln.free(m.span(g)) for g in "abc"):
                continue
            self.arithmetic([self.term_token(ln.no, m.start(g), m.group(g)) for g in "abc"],
                            ln.section)
            for g in "abc":
                ln.take(m.span(g))

    def _korean_amounts(self, ln: "_Line") -> None:
        for m in KOREAN_AMOUNT.finditer(ln.text):
            if ln.free(m.span()):
                self.count(self.token(ln.no, m.start(), m.group()), ln.section)
                ln.take(m.span())

    def _percentages(self, ln: "_Line") -> None:
        for m in re.finditer(rf"(?P<n>{LITERAL})\s?%", ln.text):
            if not ln.free(m.span("n")):
                continue
            tok = self.token(ln.no, m.start(), m.group(), m.group("n"), percent=True)
            cands = self.section_candidates("percent", ln.section)
            sent_start, sentence = _sentence_at(ln.text, m.start())
            fact = self.keyword_choice(cands, sentence, m.start() - sent_start)
            self.judge(tok, fact, f"share: {fact.key}")
            ln.take(m.span())

    def _scaled_counts(self, ln: "_Line") -> None:
        for m in re.finditer(rf"(?P<n>{LITERAL}){self.scale_re}", ln.text):
            if not m.group("scale") or not ln.free(m.span("n")):
                continue
            self.count(self.token(ln.no, m.start(), m.group(), m.group("n"), m.group("scale")),
                       ln.section)
            ln.take(m.span())

    def _bare_numbers(self, ln: "_Line") -> None:
        for m in re.finditer(rf"(?<![\w.,]){LITERAL}(?![.,]?\d)", ln.text):
            if not ln.free(m.span()):
                continue
            tok = self.token(ln.no, m.start(), m.group())
            mag = self.magnitude(tok)
            if mag is None or mag < 100:
                self.listed(tok, "small number, not about the model (activity, block, position...)")
            elif mag >= 10000:
                self.count(tok, ln.section)
            else:
                fact = self.dimension_hint(ln.text, m.start(), m.end()) or self.nearest(
                    [self.facts[k] for k in ("vocab_size", "d_model", "context_length")], mag, 1.5)
                if fact is None:
                    self.listed(tok, "not matched to a fact of the spec")
                else:
                    self.judge(tok, fact)
            ln.take(m.span())

    def term_token(self, lineno: int, start: int, text: str) -> Token:
        if KOREAN_AMOUNT.fullmatch(text):
            return self.token(lineno, start, text)
        m = re.fullmatch(rf"(?P<n>{LITERAL}){self.scale_re}", text)
        return self.token(lineno, start, text, m.group("n"), m.group("scale") or "")

    def count(self, tok: Token, section: str | None) -> None:
        fact = self.nearest(self.section_candidates("count", section), self.magnitude(tok))
        if fact is None:
            self.listed(tok, "count not matched to a fact of the spec")
        else:
            self.judge(tok, fact)

    def arithmetic(self, toks: list[Token], section: str | None) -> None:
        a, b, c = toks
        sums = []
        for f in self.facts.values():
            mm = re.fullmatch(r"\s*(\w+)\s*\+\s*(\w+)\s*", f.expr)
            if mm and mm.group(1) in self.facts and mm.group(2) in self.facts:
                sums.append((f, self.facts[mm.group(1)], self.facts[mm.group(2)]))
        rc = self.preferred(c)
        if sums:
            total, fa, fb = min(sums, key=lambda s: abs(math.log(float(rc.value or 1)
                                                                 / float(s[0].exact))))
            self.judge(a, fa, f"sum operand: {fa.key}")
            self.judge(b, fb, f"sum operand: {fb.key}")
            self.judge(c, total, f"sum: {total.key}")
            clause = total.clause
        else:
            for t in toks:
                self.count(t, section)
            clause = ""
        ra, rb = self.preferred(a), self.preferred(b)
        if None in (ra.value, rb.value, rc.value):
            return
        own_sum = ra.value + rb.value
        want = round_to(own_sum, rc.precision)
        kind = "ok" if want == rc.value else "mismatch"
        text = f"{a.text} + {b.text} = {c.text}"
        self.report.findings.append(Finding(
            self.name, c.line, c.column, text, self.show(c, rc),
            self.show(c, c.reading(self.locale)), self.locale, clause, "the text's own sum",
            fmt(want), kind, "arithmetic",
            "" if kind == "ok" else
            f"the text's own operands add up to {fmt(own_sum)}"
            + (f", which rounds to {fmt(want)}" if want != own_sum else "")
            + f"; the text says {fmt(rc.value)}", self.context(a.line, a.column, len(text))))

    # the init scale --------------------------------------------------------------------
    def init_scale(self) -> None:
        """Sentences about the init distribution, in its clause's section: the std they state
        (``init_scale.scales`` in the rules) against the spec's init std."""
        rule = self.rules.get("init_scale")
        if not rule:
            return
        clause_id = rule["clause"]
        try:
            clause = self.spec.clause(clause_id)
        except KeyError:
            return
        m = self.spec.model
        fact = f"std = {m.init_std_expr} = {m.init_std:.6g}"
        topics = [t.casefold() for t in rule["topic"].get(self.lang, [])]
        scales = init_scales(rule, self.lang)
        seen_topic = False
        for lineno, line in self.section_lines().get(clause.source, []):
            for s0, sentence in _sentences(line):
                if not any(t in sentence.casefold() for t in topics):
                    continue
                seen_topic = True
                stated = _first_scale(scales, sentence)
                if stated is None:
                    col, text = s0 + 1, sentence.strip()[:60]
                    kind, value, note = ("unverified", "-", "the sentence names the distribution "
                                         "but no scale the audit recognises")
                else:
                    expr, hit = stated
                    col, text = s0 + hit.start() + 1, hit.group()
                    kind, value, note = self.judge_scale(expr, text)
                self.report.findings.append(Finding(
                    self.name, lineno, col, text, value, value, self.locale, clause_id,
                    "init std", fact, kind, "phrase", note, self.context(lineno, col, len(text))))
        if not seen_topic:
            self.report.findings.append(Finding(
                self.name, None, None, "", "-", "-", self.locale, clause_id, "init std", fact,
                "unverified", "phrase",
                f"no sentence in section {clause.source!r} mentions the distribution"))

    def judge_scale(self, expr: str, text: str) -> tuple[str, str, str]:
        """(kind, value, note) for a sentence that states the std as `expr` (or a number)."""
        m = self.spec.model
        try:
            std = evaluate(expr, m.fields())
        except (ValueError, ZeroDivisionError, OverflowError):
            return "unverified", "-", f"cannot evaluate the scale {expr!r}"
        value = f"{expr} = {std:.6g}" if not is_number(expr) else f"{std:g}"
        if math.isclose(std, m.init_std, rel_tol=1e-9):
            return "ok", value, ""
        return "mismatch", value, (f"the text gives the init std as {text!r} ({value} at "
                                   f"d_model = {m.d_model}); the spec's init std is "
                                   f"{m.init_std_expr} = {m.init_std:.6g}")

    def section_lines(self) -> dict[str | None, list[tuple[int, str]]]:
        section = None
        by_section: dict[str | None, list[tuple[int, str]]] = {}
        for lineno, line in enumerate(self.lines, 1):
            sid = self.headings.get(_norm_heading(line.strip())) if line.strip() else None
            if sid:
                section = sid
                continue
            by_section.setdefault(section, []).append((lineno, line))
        return by_section


def init_scales(rule: dict, lang: str) -> list[tuple[str, re.Pattern]]:
    """(std expression, pattern) for each init-scale phrase of `lang` in the rules."""
    return [(s["std"], re.compile(p, re.I)) for s in rule["scales"]
            for p in s["patterns"].get("all", []) + s["patterns"].get(lang, [])]


def stated_init_std(text: str, spec: Spec, lang: str = "en", rules: dict | None = None):
    """(std expression, its value at the spec's d_model, the words) for the init scale `text`
    states first, or None when it states none the rules know."""
    hit = _first_scale(init_scales((rules or load_rules())["init_scale"], lang), text)
    if hit is None:
        return None
    expr, m = hit
    try:
        return expr, evaluate(expr, spec.model.fields()), m.group()
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def _first_scale(scales: list[tuple[str, re.Pattern]], sentence: str):
    """(std expression, match) of the scale stated first in `sentence` (longest on a tie)."""
    hits = []
    for expr, pattern in scales:
        m = pattern.search(sentence)
        if m:
            if expr == "number":
                expr = m.group("n").replace(",", ".")
            hits.append((m.start(), -len(m.group()), expr, m))
    if not hits:
        return None
    _, _, expr, m = min(hits, key=lambda h: (h[0], h[1]))
    return expr, m


@dataclass
class _Line:
    """One line of prose being read, and the spans of it that a rule has already read."""

    no: int
    text: str
    section: str | None
    prev: str
    taken: list[tuple[int, int]] = field(default_factory=list)

    def free(self, span: tuple[int, int]) -> bool:
        return not _inside(span, self.taken)

    def take(self, span: tuple[int, int]) -> None:
        self.taken.append(span)


@dataclass(frozen=True)
class ProseRule:
    """A kind of number in running text, and what it is checked against."""

    name: str
    read: Callable[[_Auditor, _Line], None]
    lang: str | None = None       # None: every language


#: The prose rules in the order they read a line (earlier rules claim their numbers first).
PROSE_RULES: tuple[ProseRule, ...] = (
    ProseRule("names (ANDREA-120M, GPT-2): listed, not checked", _Auditor._names),
    ProseRule("citation years (Vaswani 2017): listed, not checked", _Auditor._citation_years),
    ProseRule("matrix row labels (row 8448: [...): a row of the token table",
              _Auditor._matrix_row_label),
    ProseRule("subscripts (v_767, e_0_767): component and row indices", _Auditor._subscripts),
    ProseRule("example token ids ([256, 1842, ...]): below V", _Auditor._example_ids),
    ProseRule("sums (a + b = c): the quantity that is a sum, and the text's own sum",
              _Auditor._sums),
    ProseRule("Korean amounts (650만, 1억 2천만): parameter counts", _Auditor._korean_amounts,
              lang="ko"),
    ProseRule("percentages: the section's share quantities, by keyword", _Auditor._percentages),
    ProseRule("counts with a scale word (6,5 miljoen, 0.79M): parameter counts",
              _Auditor._scaled_counts),
    ProseRule("bare numbers: counts (>= 10000), dimensions (>= 100) or small numbers",
              _Auditor._bare_numbers),
)


def _inside(span: tuple[int, int], taken: Iterable[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in taken)


def _sentences(line: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for part in _SENTENCE_END.split(line):
        i = line.find(part, pos)
        out.append((i, part))
        pos = i + len(part)
    return out


def _sentence_at(line: str, index: int) -> tuple[int, str]:
    for start, s in _sentences(line):
        if start <= index < start + len(s):
            return start, s
    return 0, line


# --------------------------------------------------------------------------- entry points
def audit_text(text: str, spec: Spec, lang: str | None = None, name: str = "<text>") -> DocReport:
    detected = lang in (None, "auto")
    if detected:
        lang = detect_language(text)
    if lang not in LOCALES:
        raise ValueError(f"--lang {lang!r}: expected one of {', '.join(LANGS)} or auto")
    return _Auditor(text, spec, lang, name, detected).run()


def audit_document(path: str | Path, spec: Spec, lang: str | None = None) -> DocReport:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DocumentError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DocumentError(f"{path}: is a directory, not a document") from None
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DocumentError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return audit_text(text, spec, lang, str(path))
