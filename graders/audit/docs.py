"""`andrea-audit docs`: what each sentence of a course document claims, against the spec.

The audit reads a document as claims, not as loose numbers. Every fact comes from the spec;
every word that points at a fact is data in the lexicon (``spec/lexicon/lexicon.yaml``, validated by
``spec/lexicon/lexicon.schema.json``), per language (en, nl, ko).

* **Numbers** are read in digits (Babel's separators for the document's locale, scale words,
  Korean 만/억 units) and in words (Dutch and English by text2num, Korean Sino-Korean and native
  numerals by :mod:`graders.audit.numbers`), at the precision they are written with.
* **Formulas** (``V × d_model``, ``d_model²``, ``1/sqrt(d_model)``, ``d_model의 제곱근``) are
  read into an expression over the model's fields and evaluated with the spec's values
  (:mod:`graders.audit.formulas`; Python's ``ast``, never ``eval``).
* **A number is about what its sentence says it counts**: its unit (the word after it, or a
  symbol or unit just before it: "8.449 rijen", "T tot 1024", "파라미터 수: 1억 2천만") and the
  table it belongs to (the nearest owner word in its clause or sentence: token table, position
  table, embedding layer, whole model, the savings of tying) pick the fact
  (``bindings``). "De positietabel heeft 8.449 rijen" is checked against T, not against V;
  bytes are parameters times the spec's dtype size; "ids 1 tot en met 8449" is a range of ids,
  which run 0..V-1. Only a number no unit, symbol or range claims is matched by magnitude
  within its section, and a small one (below 100) is listed but not checked.
* **Claims in prose** (``claims``): the terms that say which value a sentence claims (normal or
  uniform, untied or tied, direct lookup or a matrix multiplication, 0- or 1-based). The spec's
  value asserts; a sentence about the claim's subject that uses another value's term is a
  mismatch at its line; a required claim that no sentence of its section states is reported
  (``unverified``) with the section's lines. The init scale is a claim with a value: the
  formula or number a sentence about the init states, as a std or a variance.
* **Structure**: the document is cut into sections by the spec's headings; table rows are
  named by their first cell; names (ANDREA-120M), citation years, subscripts (``v_767``), matrix
  row labels, example ids and sums (``a + b = c``, checked against the spec and as arithmetic)
  are read by their shape.

When a number does not match under the document's locale but does under the other separator
convention (Dutch "1,024" is 1.024 to a Dutch reader), it is *ambiguous*.

The walk is linear in the document's length: each line is split into sentences once, and each
term list is one compiled alternation.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Iterable

from spec import Spec

from .formulas import Formula, FormulaReader, as_decimal
from .lexicon import LEXICON_PATH, LexiconError, load_lexicon, term_pattern, terms
from .numbers import (KOREAN_AMOUNT, LITERAL, LOCALES, Reading, Token, alternative_locales, fmt,
                      read_korean, read_literal, read_number_words, round_to)

RULES_PATH = LEXICON_PATH
LANGS = tuple(LOCALES)

__all__ = ["audit_text", "audit_document", "detect_language", "DocReport", "Finding",
           "NumberRead", "DocumentError", "LexiconError", "load_rules", "build_facts",
           "stated_init_std", "READERS"]


class DocumentError(ValueError):
    """A document cannot be read (missing, not UTF-8 text)."""


def load_rules(path: str | None = None) -> dict:
    """The lexicon (validated); kept under this name for the spec audit."""
    return load_lexicon(path)


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


# --------------------------------------------------------------------------- the lexicon, compiled
class _Words:
    """The lexicon's term lists for one language and spec, compiled once."""

    def __init__(self, lex: dict, lang: str, spec: Spec):
        model_word = re.split(r"[-\s]", spec.model.name)[0]

        def pat(entry):
            return term_pattern([t.replace("{model}", model_word) for t in terms(entry, lang)])

        self.units = {u: pat(e) for u, e in lex["units"].items()}
        self.owners = {o: pat(e) for o, e in lex["owners"].items()}
        self.bindings = lex["bindings"]
        glue = terms(lex.get("connectors"), lang) + terms(lex.get("fillers"), lang)
        glue_rx = "|".join(re.escape(g) for g in sorted(glue, key=len, reverse=True))
        self.glue = re.compile(rf"(?:\s|{glue_rx})*" if glue_rx else r"\s*", re.I)
        syms = sorted(lex["symbols"], key=len, reverse=True)
        self.symbols = lex["symbols"]
        self.symbol = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(re.escape(s) for s in syms)
                                 + r")(?![A-Za-z0-9_])")
        rng = lex.get("ranges", {})
        self.range_incl = pat(rng.get("inclusive"))
        self.range_excl = pat(rng.get("exclusive"))
        self.range_subjects = {k: pat(e) for k, e in rng.get("subjects", {}).items()}
        neg = lex.get("negation", {}).get(lang, {})
        self.neg_before = term_pattern(neg.get("before", []))
        self.neg_after = term_pattern(neg.get("after", []))
        self.contrast = term_pattern(neg.get("contrast", []))
        self.claims = []
        for c in lex["claims"]:
            vals = {v: pat(e) for v, e in c["values"].items()}
            self.claims.append((c, pat(c["subject"]), vals))
        init = lex["init_scale"]
        self.init_topic = pat(init["topic"])
        self.measures = {k: pat(e) for k, e in init["measures"].items()}
        self.keywords = {k: terms(e, lang) for k, e in lex["keywords"].items()}
        self.percent = pat(lex.get("percent_words"))
        self.formula_words = [(w["text"], w["expr"])
                              for w in lex.get("formula_words", {}).get(lang, [])]


# --------------------------------------------------------------------------- the auditor
def _norm_heading(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("’", "'")).strip().casefold()


_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
_CLAUSE_END = re.compile(r"[,;:](?=\s)")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
# Bounded repetitions: a long run of digits and commas cannot make these backtrack.
_BOUNDED_LITERAL = r"\d{1,12}(?:[.,]\d{1,3}){0,4}"
_SHAPE = re.compile(rf"\(\s?(?P<a>{_BOUNDED_LITERAL})\s?,\s?(?P<b>{_BOUNDED_LITERAL})\s?\)")
#: N(mean, variance): the variance may hold one pair of parentheses, "N(0, 1/sqrt(d_model))".
_N_NOTATION = re.compile(r"N\(\s?[^,()]{0,20},\s?(?P<v>[^()]{0,60}(?:\([^()]{0,40}\))?[^()]{0,20})\)")


@dataclass
class _Mention:
    """A number or formula in a sentence, in line coordinates."""

    start: int
    end: int
    text: str
    tok: Token | None = None
    formula: Formula | None = None

    @property
    def value(self) -> Decimal | None:
        if self.formula is not None:
            return as_decimal(self.formula.value)
        return None


@dataclass
class _Sentence:
    no: int
    line: str
    start: int
    end: int
    section: str | None
    prev: tuple[int, int] | None      # the sentence before, on the same line

    @property
    def text(self) -> str:
        return self.line[self.start:self.end]


class _Auditor:
    def __init__(self, text: str, spec: Spec, lang: str, name: str, detected: bool,
                 lexicon: dict | None = None):
        self.spec = spec
        self.lang = lang
        self.locale = LOCALES[lang]
        self.alts = alternative_locales(self.locale)
        self.rules = lexicon or load_lexicon()
        self.words = _Words(self.rules, lang, spec)
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
        self.byte_scales = {k: Decimal(str(v)) for k, v in self.rules.get("byte_scales", {}).items()}
        words = "|".join(sorted((re.escape(w) for w in self.scales), key=len, reverse=True))
        bwords = "|".join(sorted((re.escape(w) for w in self.byte_scales), key=len, reverse=True))
        self.scale_re = rf"(?:\s?(?P<scale>{words})(?![^\W\d_]))?"
        # a term of a sum: starts a number, and is bounded (linear time on long digit runs)
        self.term_re = (rf"(?<![\d.,])(?:{KOREAN_AMOUNT.pattern}|{_BOUNDED_LITERAL}"
                        rf"(?:\s?(?:{words})(?![^\W\d_]))?)")
        self.number_re = re.compile(
            rf"(?<![\w.,])(?P<n>{LITERAL})(?![.,]?\d)(?:\s?(?:(?P<scale>{words})|(?P<bytes>{bwords}))"
            rf"(?![^\W\d_]))?(?P<pct>\s?%)?")
        self.formulas = FormulaReader(self.words.symbols, spec.model.fields(), self.locale,
                                      self.words.formula_words)
        self.itemsize = _itemsize(spec.model.dtype)
        src = {c.id: c.source for c in spec.clauses}
        self.clause_source = src
        self.asserted: dict[str, list[int]] = {}     # claim id -> lines that state it
        self.init_clause = self.rules["init_scale"]["clause"]
        self.init_seen = False
        self._index_key, self._index = None, None

    # -- tokens ---------------------------------------------------------------------------
    def token(self, lineno: int, start: int, text: str, literal: str | None = None,
              scale_word: str = "", percent: bool = False, scale: Decimal | None = None) -> Token:
        tok = Token(lineno, start + 1, text, literal or text, percent, scale_word)
        korean = literal is None and KOREAN_AMOUNT.fullmatch(text) is not None
        for loc in [self.locale, *self.alts]:
            if korean:
                tok.readings[loc] = read_korean(text, loc)
            else:
                mult = scale if scale is not None else (
                    self.scales.get(scale_word, Decimal(1)) if scale_word else Decimal(1))
                tok.readings[loc] = read_literal(tok.literal, loc, mult,
                                                 scaled=bool(scale_word) and scale is None)
        return tok

    def word_token(self, lineno: int, start: int, text: str, value: Decimal,
                   precision: Decimal) -> Token:
        tok = Token(lineno, start + 1, text, text)
        for loc in [self.locale, *self.alts]:
            tok.readings[loc] = Reading(loc, value, True, precision)
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

    def judge(self, tok: Token, fact: Fact, role: str | None = None, note_extra: str = "") -> Finding:
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
        if note_extra and kind != "ok":
            note = f"{note}; {note_extra}" if note else note_extra
        f = Finding(self.name, tok.line, tok.column, tok.text, self.show(tok, used),
                    self.show(tok, own), self.locale, fact.clause, fact.key, exp_text, kind,
                    "value", note, self.context(tok.line, tok.column, len(tok.text)))
        self.report.findings.append(f)
        self.report.numbers.append(NumberRead(tok.line, tok.column, tok.text, f.value,
                                              f.value_locale, role or fact.key, fact.clause, kind))
        return f

    def judge_formula(self, lineno: int, f: Formula, fact: Fact, role: str) -> Finding:
        got = f.value
        want = float(fact.exact)
        ok = math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
        kind = "ok" if ok else "mismatch"
        col = f.start + 1
        value = f"{f.expr} = {_num(got)}"
        note = "" if ok else (f"the text's formula {f.text!r} is {_num(got)} with the spec's "
                              f"values; {fact.key} is {fact.expr or fact.key} = {fmt(fact.exact)}")
        finding = Finding(self.name, lineno, col, f.text, value, value, self.locale, fact.clause,
                          fact.key, fmt(fact.exact), kind, "formula", note,
                          self.context(lineno, col, len(f.text)))
        self.report.findings.append(finding)
        self.report.numbers.append(NumberRead(lineno, col, f.text, _num(got), _num(got), role,
                                              fact.clause, kind))
        return finding

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
        """The candidate whose keyword is nearest, within 120 characters either side."""
        best, best_d = None, None
        lo = max(0, pos_in_sentence - 120)
        low = sentence[lo:pos_in_sentence + 120].casefold()
        pos_in_sentence -= lo
        for f in cands:
            for kw in self.words.keywords.get(f.key, []):
                for m in re.finditer(re.escape(kw.casefold()), low):
                    d = abs(m.start() - pos_in_sentence)
                    if best_d is None or d < best_d:
                        best, best_d = f, d
        return best or cands[0]

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
            self.prose(lineno, line, section, self.lines[lineno - 2].strip() if lineno > 1 else "",
                       heading=bool(sid))
        self.unstated_claims()
        if not self.init_seen:
            self.init_missing()
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
    def prose(self, lineno: int, line: str, section: str | None, prev: str,
              heading: bool = False) -> None:
        """One line of running text: the numbers its shape gives away (READERS), then each
        sentence's claims: formulas, ranges, numbers with their units, terms."""
        ln = _Line(lineno, line, section, prev)
        for reader in READERS:
            if reader.lang in (None, self.lang):
                reader.read(self, ln)
        prev_span = None
        for s0, sent in _sentences(line):
            s = _Sentence(lineno, line, s0, s0 + len(sent), section, prev_span)
            self.sentence(ln, s, heading)
            prev_span = (s.start, s.end)

    def sentence(self, ln: "_Line", s: "_Sentence", heading: bool) -> None:
        mentions = self.mentions(ln, s)
        init_here = (not heading and self.clause_source.get(self.init_clause) == s.section
                     and s.section is not None and self.words.init_topic is not None
                     and self.words.init_topic.search(s.text) is not None)
        if init_here:
            mentions = self.init_scale(s, mentions)
        mentions = self.ranges(s, mentions)
        for m in mentions:
            self.bind_and_judge(s, m)
        if not heading:
            self.claims(s)

    def mentions(self, ln: "_Line", s: "_Sentence") -> list[_Mention]:
        """The numbers and formulas of sentence `s` that no shape reader took, left to right."""
        out: list[_Mention] = []
        text = s.text
        for f in self.formulas.find(text):
            span = (s.start + f.start, s.start + f.end)
            if not ln.free(span):
                continue
            f = Formula(span[0], span[1], f.text, f.expr, f.value)
            out.append(_Mention(span[0], span[1], f.text, formula=f))
            ln.take(span)
        for m in _SHAPE.finditer(text):
            span = (s.start + m.start(), s.start + m.end())
            if ln.free(span):
                self.shape_tuple(s, m)
                ln.take(span)
        if self.lang == "ko":
            for m in KOREAN_AMOUNT.finditer(text):
                span = (s.start + m.start(), s.start + m.end())
                if ln.free(span):
                    out.append(_Mention(*span, m.group(), tok=self.token(ln.no, span[0], m.group())))
                    ln.take(span)
        for m in self.number_re.finditer(text):
            span = (s.start + m.start(), s.start + m.end())
            if not ln.free((s.start + m.start("n"), s.start + m.end("n"))):
                continue
            if m.group("pct"):
                tok = self.token(ln.no, span[0], m.group(), m.group("n"), percent=True)
            elif m.group("bytes"):
                tok = self.token(ln.no, span[0], m.group(), m.group("n"), m.group("bytes"),
                                 scale=self.byte_scales[m.group("bytes")])
                tok.scale_word = "bytes:" + m.group("bytes")
            else:
                tok = self.token(ln.no, span[0], m.group(), m.group("n"), m.group("scale") or "")
            out.append(_Mention(*span, m.group(), tok=tok))
            ln.take(span)
        for w in read_number_words(text, self.lang):
            span = (s.start + w.start, s.start + w.end)
            if ln.free(span):
                out.append(_Mention(*span, w.text, tok=self.word_token(ln.no, span[0], w.text,
                                                                         w.value, w.precision)))
                ln.take(span)
        if self.words.percent is not None:       # "acht procent", "5,4 procent", "칠 퍼센트"
            for m in out:
                if m.tok is None or m.tok.percent:
                    continue
                p = self.words.percent.match(s.line, m.end + (s.line[m.end:m.end + 1] == " "),
                                             s.end)
                if p:
                    m.end = p.end()
                    m.text = m.tok.text = s.line[m.start:m.end]
                    m.tok.percent = True
                    ln.take((m.start, m.end))
        return sorted(out, key=lambda m: m.start)

    # binding ----------------------------------------------------------------------------
    def unit_of(self, s: "_Sentence", start: int, end: int,
                before: bool = True) -> tuple[str, int, int] | None:
        """(unit, near end, far end) of the word that says what the number at [start, end)
        counts: right after it, or right before it, with only fillers and connectors between."""
        line = s.line
        best = None
        for unit, rx in self.words.units.items():
            if rx is None:
                continue
            m = rx.search(line, end, min(s.end, end + 40))
            if m and (self._glue(line, end, m.start()) or self._adjective(line, end, m.start())):
                key = (m.start(), -(m.end() - m.start()))
                if best is None or key < best[2]:
                    best = (unit, m.start(), key, m.end())
        if best or not before:
            return (best[0], best[1], best[3]) if best else None
        for unit, rx in self.words.units.items():
            if rx is None:
                continue
            for m in rx.finditer(line, max(s.start, start - 40), start):
                if self._glue(line, m.end(), start) and (best is None or m.end() > best[1]):
                    best = (unit, m.end(), m.start())
        return best

    _ADJ = re.compile(r"\s+[a-zà-ÿ]{2,12}\s+")

    def _adjective(self, line: str, a: int, b: int) -> bool:
        """One lower-case word between a number and its unit ("768 kleine floats"), in the
        languages that put adjectives there."""
        return self.lang in ("nl", "en") and b > a and self._ADJ.fullmatch(line, a, b) is not None

    def _glue(self, line: str, a: int, b: int) -> bool:
        if b < a:
            return False
        gap = line[a:b]
        return len(gap) <= 16 and self.words.glue.fullmatch(gap) is not None

    def symbol_before(self, s: "_Sentence", start: int) -> str | None:
        """The model field a symbol right before the number names ("T tot 1024")."""
        best = None
        for m in self.words.symbol.finditer(s.line, max(s.start, start - 24), start):
            if self._glue(s.line, m.end(), start) and m.end() < start:
                best = m
        return self.words.symbols[best.group()] if best else None

    def owner_of(self, s: "_Sentence", start: int, end: int,
                 skip: tuple[int, int] | None = None) -> str | None:
        """The nearest owner word in the number's clause, else in its sentence (the sentence's
        clause marks and owner words are found once; each number looks up its neighbours)."""
        cuts, hits = self._sentence_index(s)
        i = bisect.bisect_right(cuts, start)
        a = cuts[i - 1] if i else s.start
        b = cuts[i] - 1 if i < len(cuts) else s.end
        starts = [h[0] for h in hits]
        for lo, hi in ((a, b), (s.start, s.end)):
            best, best_d = None, None
            j = bisect.bisect_left(starts, start)
            # the nearest few on each side (owner words rarely overlap)
            for h in hits[max(0, j - 8):j + 8]:
                hs, he, owner = h
                if hs < lo or he > hi or (hs < end and start < he) or (
                        skip and hs < skip[1] and skip[0] < he):
                    continue
                d = start - he if he <= start else hs - end
                if best_d is None or d < best_d:
                    best, best_d = owner, d
            if best:
                return best
        return None

    def _sentence_index(self, s: "_Sentence"):
        key = (s.no, s.start)
        if self._index_key != key:
            cuts = [m.end() for m in _CLAUSE_END.finditer(s.line, s.start, s.end)]
            hits = sorted((m.start(), m.end(), owner) for owner, rx in self.words.owners.items()
                          if rx is not None for m in rx.finditer(s.line, s.start, s.end))
            self._index_key, self._index = key, (cuts, hits)
        return self._index

    def fact_for(self, unit: str, owner: str | None, value: Decimal | None,
                 section: str | None) -> tuple[Fact | None, str]:
        """The fact a count of `unit` owned by `owner` states, and how it was chosen."""
        unit_key = "params" if unit == "bytes" else unit
        for b in self.words.bindings:
            if b["unit"] == unit_key and b.get("owner", owner) == owner \
                    and b["quantity"] in self.facts:
                return (self.facts[b["quantity"]],
                        f"{b['quantity']} ({unit} of the {owner})" if "owner" in b
                        else f"{b['quantity']} ({unit})")
        cands = [self.facts[b["quantity"]] for b in self.words.bindings
                 if b["unit"] == unit_key and b["quantity"] in self.facts]
        here = [f for f in cands if f.source == section]
        if len(here) == 1:
            return here[0], f"{here[0].key} ({unit}, the section's own)"
        best = self.nearest(here or cands, value)
        where = "in the section" if here else "in the document"
        return best, f"{best.key} ({unit}, nearest {where})" if best else ""

    def bind_and_judge(self, s: "_Sentence", m: _Mention) -> None:
        tok = m.tok
        if tok is not None and tok.percent:
            cands = self.section_candidates("percent", s.section)
            fact = self.keyword_choice(cands, s.text, m.start - s.start)
            self.judge(tok, fact, f"share: {fact.key}")
            return
        value = m.value if m.formula is not None else self.magnitude(tok)
        byte_scaled = tok is not None and tok.scale_word.startswith("bytes:")
        if byte_scaled:
            tok.scale_word = ""
        sym = self.symbol_before(s, m.start)
        if sym is not None and sym in self.facts:
            fact, how = self.facts[sym], f"{sym} (named by its symbol)"
            unit = None
        else:
            small = value is not None and value < 100
            u = self.unit_of(s, m.start, m.end, before=not small)
            unit = "bytes" if byte_scaled else (u[0] if u else None)
            if unit == "matrix" and m.formula is None:
                unit = None          # "one matrix" counts matrices; "V × d_model-matrix" its size
            fact, how = (None, "")
            if unit is not None:
                owner = self.owner_of(s, m.start, m.end,
                                      (min(u[1], u[2]), max(u[1], u[2])) if u else None)
                fact, how = self.fact_for(unit, owner, value if unit != "bytes" else
                                          (value / self.itemsize if value else value), s.section)
        if fact is None:
            if m.formula is not None:
                self.report.numbers.append(NumberRead(s.no, m.start + 1, m.text,
                                                      _num(m.formula.value), _num(m.formula.value),
                                                      "formula not about a fact of the spec"))
                return
            if value is None or value < 100:
                self.listed(tok, "small number, not about the model (activity, block, position...)")
                return
            if value >= 10000:
                fact = self.nearest(self.section_candidates("count", s.section), value)
                how = "count, by magnitude (no unit)"
            else:
                fact = self.nearest([self.facts[k] for k in ("vocab_size", "d_model",
                                                             "context_length")], value, 1.5)
                how = "dimension, by magnitude (no unit)"
            if fact is None:
                self.listed(tok, "not matched to a fact of the spec")
                return
        if unit == "bytes":
            fact = Fact(f"{fact.key} in bytes", fact.clause, fact.exact * self.itemsize,
                        fact.kind, fact.source, f"{fact.expr or fact.key} * {self.itemsize}")
            how = f"bytes: {fact.expr} ({self.spec.model.dtype})"
        if m.formula is not None:
            self.judge_formula(s.no, m.formula, fact, how or fact.key)
        else:
            extra = ""
            if unit == "bytes":
                extra = (f"{self.spec.model.dtype} takes {self.itemsize} bytes per parameter: "
                         f"{fmt(fact.exact / self.itemsize)} parameters are {fmt(fact.exact)} bytes")
            self.judge(tok, fact, how or fact.key, extra)

    def shape_tuple(self, s: "_Sentence", m: re.Match) -> None:
        """A shape written as numbers, "(1024, 768)-matrix": rows of the table (or of the
        result) it belongs to, and d_model."""
        a0, b0 = s.start + m.start("a"), s.start + m.start("b")
        ta, tb = self.token(s.no, a0, m.group("a")), self.token(s.no, b0, m.group("b"))
        owners = {o for o, rx in self.words.owners.items()
                  if rx is not None and rx.search(s.line, s.start, s.end)}
        # the sum of token and position vectors, or a result, has a row per position
        rows = ("context_length" if "result" in owners or {"token", "position"} <= owners
                else "vocab_size" if "token" in owners
                else "context_length" if "position" in owners else None)
        fa = self.facts.get(rows) if rows else self.nearest(
            [self.facts["vocab_size"], self.facts["context_length"]], self.magnitude(ta))
        if fa is None:
            self.listed(ta, "shape: rows of no table the sentence names")
        else:
            self.judge(ta, fa, f"shape (rows): {fa.key}")
        self.judge(tb, self.facts["d_model"], "shape (columns): d_model")

    # ranges -----------------------------------------------------------------------------
    def ranges(self, s: "_Sentence", mentions: list[_Mention]) -> list[_Mention]:
        """"ids 0 tot en met 8448", "ID 0부터 8448까지": a range of indices must run 0..limit-1
        (inclusive) or 0..limit (exclusive). Returns the mentions no range took."""
        out, i = [], 0
        w = self.words
        while i < len(mentions):
            a = mentions[i]
            b = mentions[i + 1] if i + 1 < len(mentions) else None
            kind = None
            if b is not None and a.tok is not None and b.tok is not None:
                gap = s.line[a.end:b.start].strip()
                if gap and w.range_incl is not None and w.range_incl.fullmatch(gap):
                    kind = "inclusive"
                elif gap and w.range_excl is not None and w.range_excl.fullmatch(gap):
                    kind = "exclusive"
            subject = self.range_subject(s, a.start) if kind else None
            if subject is None:
                out.append(a)
                i += 1
                continue
            self.judge_range(s, a, b, subject, kind)
            i += 2
        return out

    def range_subject(self, s: "_Sentence", start: int) -> str | None:
        best, best_d = None, None
        for key, rx in self.words.range_subjects.items():
            if rx is None or key not in self.facts:
                continue
            for m in rx.finditer(s.line, max(s.start, start - 40), start):
                d = start - m.end()
                if best_d is None or d < best_d:
                    best, best_d = key, d
        return best

    def judge_range(self, s: "_Sentence", a: _Mention, b: _Mention, subject: str,
                    kind: str) -> None:
        fact = self.facts[subject]
        lo, hi = self.preferred(a.tok).value, self.preferred(b.tok).value
        want_hi = fact.exact - 1 if kind == "inclusive" else fact.exact
        ok = lo == 0 and hi == want_hi
        text = s.line[a.start:b.end]
        exp = f"0..{fmt(want_hi)}" + (" (inclusive)" if kind == "inclusive" else " (exclusive)")
        note = "" if ok else (f"indices of {subject} = {fmt(fact.exact)} run 0..{fmt(fact.exact - 1)} "
                              f"(0-based); the text gives {fmt(lo)}..{fmt(hi)} ({kind})")
        got = f"{fmt(lo)}..{fmt(hi)}"
        self.report.findings.append(Finding(
            self.name, s.no, a.start + 1, text, got, got, self.locale, fact.clause,
            f"range of {subject}", exp, "ok" if ok else "mismatch", "range", note,
            self.context(s.no, a.start + 1, len(text))))
        for m in (a, b):
            self.report.numbers.append(NumberRead(s.no, m.start + 1, m.text,
                                                  self.show(m.tok, self.preferred(m.tok)),
                                                  self.show(m.tok, m.tok.reading(self.locale)),
                                                  f"range of {subject} ({exp})", fact.clause,
                                                  "ok" if ok else "mismatch"))

    # claims in prose --------------------------------------------------------------------
    def claims(self, s: "_Sentence") -> None:
        text, line = s.text, s.line
        window = line[s.prev[0]:s.end] if s.prev else text
        for claim, subject, values in self.words.claims:
            clause = claim["clause"]
            if not self._has_clause(clause):
                continue
            want = self.spec_value(claim)
            if want is None:
                continue
            hits = []
            for value, rx in values.items():
                if rx is None:
                    continue
                for m in rx.finditer(line, s.start, s.end):
                    hits.append((m.start(), -(m.end() - m.start()), m.end(), value))
            if not hits:
                continue
            if subject is not None and not subject.search(window):
                continue
            chosen, last_end = [], -1
            for start, _, end, value in sorted(hits):
                if start >= last_end:
                    chosen.append((start, end, value))
                    last_end = end
            reported = False
            for start, end, value in chosen:
                negated = self.negated(s, start, end)
                states = (value == want) != negated
                if states:
                    self.asserted.setdefault(claim["id"], []).append(s.no)
                    continue
                if reported:
                    continue
                reported = True
                said = ("not " if negated else "") + value
                self.report.findings.append(Finding(
                    self.name, s.no, start + 1, line[start:end], said, said, self.locale, clause,
                    claim["id"], want, "mismatch", "claim",
                    f"the sentence says {said!r} ({line[start:end]!r}) about "
                    f"{claim['id'].replace('-', ' ')}; the spec says {want!r} "
                    f"({clause}: {self._statement(clause)})",
                    self.context(s.no, start + 1, end - start)))

    def negated(self, s: "_Sentence", start: int, end: int) -> bool:
        w = self.words
        if w.neg_before is not None:          # a negation earlier in the term's clause
            before = s.line[max(s.start, start - 40):start]
            cut = max(before.rfind(","), before.rfind(";"), before.rfind(":"))
            if w.contrast is not None:          # "geen X maar Y": Y is not negated
                for c in w.contrast.finditer(before, cut + 1):
                    cut = c.end() - 1
            if w.neg_before.search(before[cut + 1:]):
                return True
        if w.neg_after is not None:
            after = s.line[end:min(s.end, end + 14)]
            stop = re.search(r"[,;:]", after)
            if w.neg_after.search(after[:stop.start()] if stop else after):
                return True
        return False

    def spec_value(self, claim: dict) -> str | None:
        if "value" in claim:
            return claim["value"]
        v = getattr(self.spec.model, claim["field"], None)
        if v is None:
            return None
        return str(v).lower() if isinstance(v, bool) else str(v)

    def _has_clause(self, clause: str) -> bool:
        return clause in self.clause_source

    def _statement(self, clause: str) -> str:
        c = self.spec.clause(clause)
        return c.statement_in(self.lang) if hasattr(c, "statement_in") else c.statement

    def unstated_claims(self) -> None:
        sections = self.section_lines()
        for claim, _, _ in self.words.claims:
            if not claim.get("required") or not self._has_clause(claim["clause"]):
                continue
            src = self.clause_source[claim["clause"]]
            lines = [n for n, text in sections.get(src, []) if text.strip()] if src else []
            if not lines:
                continue
            said = [n for n in self.asserted.get(claim["id"], []) if n in lines]
            if said:
                continue
            want = self.spec_value(claim)
            where = f"lines {lines[0]}-{lines[-1]}" if len(lines) > 1 else f"line {lines[0]}"
            self.report.findings.append(Finding(
                self.name, lines[0], 1, f"section {src!r} ({where})", "-", "-", self.locale,
                claim["clause"], claim["id"], want, "unverified", "claim",
                f"no sentence of section {src!r} ({where}) states {want!r} "
                f"({claim['clause']}: {self._statement(claim['clause'])})", ""))

    # the init scale --------------------------------------------------------------------
    def init_scale(self, s: "_Sentence", mentions: list[_Mention]) -> list[_Mention]:
        """A sentence about the init in its clause's section: the scale it states (a formula,
        or a number after a std/variance word) against the spec's init std."""
        self.init_seen = True
        clause_id = self.init_clause
        m = self.spec.model
        fact = f"std = {m.init_std_expr} = {m.init_std:.6g}"
        stated = _scale_in(self, s.line, s.start, s.end, mentions)
        if stated is None:
            self.report.findings.append(Finding(
                self.name, s.no, s.start + 1, s.text.strip()[:60], "-", "-", self.locale,
                clause_id, "init std", fact, "unverified", "phrase",
                "the sentence names the distribution but no scale the audit recognises",
                self.context(s.no, s.start + 1, 60)))
            return mentions
        used, std_expr, std, words, col = stated
        kind, value, note = self.judge_scale(std_expr, std, words)
        self.report.findings.append(Finding(
            self.name, s.no, col + 1, words, value, value, self.locale, clause_id, "init std",
            fact, kind, "phrase", note, self.context(s.no, col + 1, len(words))))
        self.report.numbers.append(NumberRead(s.no, col + 1, words, f"{std:.6g}", f"{std:.6g}",
                                              "init std", clause_id, kind))
        return [x for x in mentions if x is not used]

    def init_missing(self) -> None:
        try:
            clause = self.spec.clause(self.init_clause)
        except KeyError:
            return
        m = self.spec.model
        self.report.findings.append(Finding(
            self.name, None, None, "", "-", "-", self.locale, self.init_clause, "init std",
            f"std = {m.init_std_expr} = {m.init_std:.6g}", "unverified", "phrase",
            f"no sentence in section {clause.source!r} mentions the distribution"))

    def judge_scale(self, expr: str, std: float, text: str) -> tuple[str, str, str]:
        m = self.spec.model
        value = f"{expr} = {std:.6g}" if not _is_plain_number(expr) else f"{std:g}"
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

    # shape readers (READERS) -------------------------------------------------------------
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


def _scale_in(aud: "_Auditor", line: str, a: int, b: int, mentions: list[_Mention]):
    """(mention used or None, std expression, std value, words, column) of the init scale the
    text line[a:b] states first, or None. A formula or a number after a std/variance word; a
    variance ("variantie 1/d_model", N(0, 1/d_model)) is turned into its std."""
    w = aud.words
    cands = []
    for m in mentions:
        if m.formula is not None:
            cands.append((m.start, m, m.formula.expr, m.formula.value, m.end))
        elif m.tok is not None and not m.tok.percent:
            r = aud.preferred(m.tok)
            if r.value is None:
                continue
            # a bare number states a scale only right after a std/variance word
            near = any(rx is not None and any(aud._glue(line, x.end(), m.start)
                                              for x in rx.finditer(line, max(a, m.start - 40),
                                                                   m.start))
                       for rx in w.measures.values())
            if near:
                cands.append((m.start, m, format(r.value.normalize(), "f"), float(r.value), m.end))
    if not cands:
        return None
    start, used, expr, value, end = min(cands, key=lambda c: c[0])
    measure = None
    notation = _N_NOTATION.search(line, a, b)
    if notation and notation.start("v") <= start < notation.end() + 1:
        measure = "variance"
    if measure is None:
        best_d = None
        for name, rx in w.measures.items():
            if rx is None:
                continue
            for x in rx.finditer(line, a, b):
                d = start - x.end() if x.end() <= start else x.start() - end
                if d >= 0 and (best_d is None or d < best_d or (d == best_d and name == "variance")):
                    measure, best_d = name, d
    measure = measure or "std"
    words = line[start:end]
    if measure == "variance":
        if value < 0:
            return None
        std = math.sqrt(value)
        std_expr = f"sqrt({expr})"
        if std_expr.replace(" ", "") == "sqrt(1/d_model)":
            std_expr = "1/sqrt(d_model)"
    else:
        std, std_expr = value, expr
    return used, std_expr.replace(" ", ""), std, words, start


def _is_plain_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _num(x: float) -> str:
    return fmt(int(x)) if float(x).is_integer() and abs(x) < 1e18 else f"{x:.6g}"


def _itemsize(dtype: str) -> int:
    import numpy as np
    try:
        return int(np.dtype(dtype).itemsize)
    except TypeError:
        return 4


def stated_init_std(text: str, spec: Spec, lang: str = "en", rules: dict | None = None):
    """(std expression, its value at the spec's d_model, the words) for the init scale `text`
    states first (a formula or a number next to a std/variance word), or None when it states
    none. The spec audit reads clause statements with this, as the docs audit reads a text."""
    aud = _Auditor(text, spec, lang if lang in LOCALES else "en", "<statement>", False, rules)
    w = aud.words
    if not any(rx is not None and rx.search(text) for rx in w.measures.values()) \
            and not _N_NOTATION.search(text):
        return None
    ln = _Line(1, text, None, "")
    s = _Sentence(1, text, 0, len(text), None, None)
    hit = _scale_in(aud, text, 0, len(text), aud.mentions(ln, s))
    if hit is None:
        return None
    _, expr, std, words, _ = hit
    return expr, std, words


@dataclass
class _Line:
    """One line of prose being read, and the characters of it that a reader has already taken
    (a mark per character: checking a span costs its length, not the number of spans taken)."""

    no: int
    text: str
    section: str | None
    prev: str
    taken: bytearray = field(default=None)

    def __post_init__(self):
        if self.taken is None:
            self.taken = bytearray(len(self.text) + 1)

    def free(self, span: tuple[int, int]) -> bool:
        return self.taken.find(1, span[0], max(span[0], span[1])) == -1

    def take(self, span: tuple[int, int]) -> None:
        a, b = span
        self.taken[a:b] = b"\x01" * (b - a)


@dataclass(frozen=True)
class ShapeReader:
    """Numbers whose shape says what they are, read before the sentence's claims."""

    name: str
    read: object
    lang: str | None = None       # None: every language


#: Numbers read by their shape, before the claims of each sentence (earlier readers first).
READERS: tuple[ShapeReader, ...] = (
    ShapeReader("names (ANDREA-120M, GPT-2): listed, not checked", _Auditor._names),
    ShapeReader("citation years (Vaswani 2017): listed, not checked", _Auditor._citation_years),
    ShapeReader("matrix row labels (row 8448: [...): a row of the token table",
                _Auditor._matrix_row_label),
    ShapeReader("subscripts (v_767, e_0_767): component and row indices", _Auditor._subscripts),
    ShapeReader("example token ids ([256, 1842, ...]): below V", _Auditor._example_ids),
    ShapeReader("sums (a + b = c): the quantity that is a sum, and the text's own sum",
                _Auditor._sums),
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


# --------------------------------------------------------------------------- entry points
def audit_text(text: str, spec: Spec, lang: str | None = None, name: str = "<text>",
               lexicon: dict | None = None) -> DocReport:
    detected = lang in (None, "auto")
    if detected:
        lang = detect_language(text)
    if lang not in LOCALES:
        raise ValueError(f"--lang {lang!r}: expected one of {', '.join(LANGS)} or auto")
    return _Auditor(text, spec, lang, name, detected, lexicon).run()


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
