"""Locale-aware reading of the numbers a course document writes.

Separators come from Babel (``babel.numbers.parse_decimal``) for the document's locale: Dutch
writes ``6.488.832`` and ``5,4``, Korean and English write ``6,488,832`` and ``5.4``. On top of
Babel this module adds what Babel does not cover: scale words (``6,5 miljoen``, ``0.79M``) and
Korean myriad units (``650만``, ``1억 2천만``), and the *precision* a written number claims
(``7,3M`` claims 0.1M, ``650만`` claims 10만, ``6.488.832`` is exact).

Every reading is a :class:`decimal.Decimal`, so comparisons never meet binary rounding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from babel.numbers import NumberFormatError, get_decimal_symbol, get_group_symbol, parse_decimal

#: Babel locale per document language.
LOCALES = {"nl": "nl", "ko": "ko", "en": "en"}

#: A digit run with separators (the separators are interpreted later, per locale).
LITERAL = r"\d+(?:[.,]\d+)*"

KOREAN_SMALL = {"십": 10, "백": 100, "천": 1000}
KOREAN_BIG = {"만": 10 ** 4, "억": 10 ** 8, "조": 10 ** 12}
_KO_PART = rf"({LITERAL})\s?([십백천]?)([만억조]?)"
#: One Korean amount: parts like "1억", "2천만", "650만", separated by at most one space.
KOREAN_AMOUNT = re.compile(
    rf"(?<![\d.,]){LITERAL}\s?(?:[십백천][만억조]?|[만억조])(?:\s?{LITERAL}\s?(?:[십백천][만억조]?|[만억조]))*")


def symbols(locale: str) -> tuple[str, str]:
    """(decimal symbol, group symbol) of a Babel locale."""
    return get_decimal_symbol(locale), get_group_symbol(locale)


def alternative_locales(locale: str) -> list[str]:
    """Locales among nl/ko/en whose separators differ from `locale`'s (the other convention)."""
    own = symbols(locale)
    seen, out = {own}, []
    for loc in ("en", "nl", "ko"):
        s = symbols(loc)
        if s not in seen:
            seen.add(s)
            out.append(loc)
    return out


@dataclass(frozen=True)
class Reading:
    """A literal read under one locale: its value, whether it is well formed there, its precision."""

    locale: str
    value: Decimal | None      # None: not a number at all under this locale
    well_formed: bool          # Babel's strict mode accepts it (groups of three, one decimal mark)
    precision: Decimal | None  # the unit of the last significant digit written, after scaling


def read_literal(literal: str, locale: str, scale: Decimal = Decimal(1),
                 scaled: bool = False) -> Reading:
    """Read the digits `literal` under `locale`, multiplied by `scale`.

    `scaled` says a scale word follows ("6,5 miljoen", "650만"): then trailing zeros of a whole
    number are not significant ("650만" claims 10만), while a bare integer is exact.
    """
    try:
        value = parse_decimal(literal, locale=locale)
    except NumberFormatError:
        return Reading(locale, None, False, None)
    try:
        parse_decimal(literal, locale=locale, strict=True)
        strict = True
    except NumberFormatError:
        strict = False
    dec_sym = get_decimal_symbol(locale)
    if dec_sym in literal:
        decimals = len(literal.rsplit(dec_sym, 1)[1])
        unit = Decimal(1).scaleb(-decimals)
    elif scaled:
        digits = re.sub(r"\D", "", literal)
        zeros = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
        unit = Decimal(10) ** zeros
    else:
        unit = Decimal(1)
    return Reading(locale, value * scale, strict, unit * scale)


def read_korean(text: str, locale: str) -> Reading:
    """Read a Korean amount such as "650만", "1억 2천만" or "3천" under `locale`'s separators."""
    total = Decimal(0)
    group = Decimal(0)
    precision = None
    well_formed = True
    for m in re.finditer(_KO_PART, text):
        lit, small, big = m.group(1), m.group(2), m.group(3)
        r = read_literal(lit, locale, scaled=True)
        if r.value is None:
            return Reading(locale, None, False, None)
        well_formed = well_formed and r.well_formed
        mult = Decimal(KOREAN_SMALL.get(small, 1))
        group += r.value * mult
        precision = r.precision * mult
        if big:
            b = Decimal(KOREAN_BIG[big])
            total += group * b
            precision *= b
            group = Decimal(0)
    total += group
    return Reading(locale, total, well_formed, precision)


def round_to(value: Decimal, unit: Decimal) -> Decimal:
    """`value` rounded half up to a multiple of `unit` (as the documents round)."""
    return (value / unit).quantize(Decimal(1), rounding=ROUND_HALF_UP) * unit


def fmt(value: Decimal | float | int | None) -> str:
    """A value for a report: integers with thousands separators, others without exponent."""
    if value is None:
        return "-"
    d = Decimal(str(value)) if not isinstance(value, Decimal) else value
    if d == d.to_integral_value():
        return f"{int(d):,}"
    return format(d.normalize(), "f")


@dataclass
class Token:
    """A number as written in a document line, with its readings."""

    line: int                  # 1-based
    column: int                # 1-based, in characters
    text: str                  # as written, including a scale word or "%"
    literal: str               # the digits and separators only
    percent: bool = False
    scale_word: str = ""
    readings: dict[str, Reading] = field(default_factory=dict)   # locale -> reading

    def reading(self, locale: str) -> Reading:
        return self.readings[locale]
