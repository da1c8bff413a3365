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
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from babel.numbers import NumberFormatError, get_decimal_symbol, get_group_symbol, parse_decimal

#: Babel locale per document language.
LOCALES = {"nl": "nl", "ko": "ko", "en": "en"}

#: A digit run with separators (the separators are interpreted later, per locale).
LITERAL = r"\d+(?:[.,]\d+)*"
#: Longer digit runs are not read as numbers (Babel's decimal context cannot hold them).
MAX_LITERAL = 40

KOREAN_SMALL = {"십": 10, "백": 100, "천": 1000}
KOREAN_BIG = {"만": 10 ** 4, "억": 10 ** 8, "조": 10 ** 12}
_KO_PART = rf"({LITERAL})\s?([십백천]?)([만억조]?)"
#: One Korean amount: parts like "1억", "2천만", "650만", separated by at most one space.
#: At most four parts (조, 억, 만 and the rest), each a bounded digit run: linear time.
_KO_LIT = r"\d{1,12}(?:[.,]\d{1,3}){0,4}"
KOREAN_AMOUNT = re.compile(
    rf"(?<![\d.,]){_KO_LIT}\s?(?:[십백천][만억조]?|[만억조])"
    rf"(?:\s?{_KO_LIT}\s?(?:[십백천][만억조]?|[만억조])){{0,3}}")


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
    if len(literal) > MAX_LITERAL:       # no fact of a spec is written with 40 digits
        return Reading(locale, None, False, None)
    try:
        value = parse_decimal(literal, locale=locale)
    except (NumberFormatError, InvalidOperation):
        return Reading(locale, None, False, None)
    try:
        parse_decimal(literal, locale=locale, strict=True)
        strict = True
    except (NumberFormatError, InvalidOperation):
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


# --------------------------------------------------------------------------- numbers in words
#: Dutch and English numeral morphemes: a word made only of these is a number word, which
#: text2num reads ("zevenhonderdzevenenzestig" = 767). "en"/"een"/"one" alone are not numbers.
_WORD_MORPHEMES = {
    "nl": ("nul|één|eén|een|twee|drie|vier|vijf|zes|zeven|acht|negen|tien|elf|twaalf|dertien|"
           "veertien|vijftien|zestien|zeventien|achttien|negentien|twintig|dertig|veertig|"
           "vijftig|zestig|zeventig|tachtig|negentig|honderd|duizend|miljoen|miljard|en|ën"),
    "en": ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
           "fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
           "sixty|seventy|eighty|ninety|hundred|thousand|million|billion"),
}
_NOT_ALONE = {"nl": {"een", "en", "ën"}, "en": {"one"}}   # "één" is the numeral, "een" the article
_JOINERS = {"nl": {"en"}, "en": {"and"}}
#: Scale words after which the trailing zeros of a number in words are not significant.
_WORD_SCALES = {"nl": {"miljoen": 10 ** 6, "miljard": 10 ** 9},
                "en": {"million": 10 ** 6, "billion": 10 ** 9}}
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_MAX_WORD = 80
_MAX_RUN = 40        # words in one number ("zes miljoen vierhonderdachtentachtigduizend ...")


@dataclass(frozen=True)
class WordNumber:
    """A number written in words: where it is in the text, its value and precision."""

    start: int
    end: int
    text: str
    value: Decimal
    precision: Decimal


def _precision(value: int, scales: dict[str, int], last_scale: str | None) -> Decimal:
    if last_scale is None:
        return Decimal(1)
    unit = scales[last_scale]
    mult = value // unit
    zeros = len(str(mult)) - len(str(mult).rstrip("0")) if mult else 0
    return Decimal(unit) * Decimal(10) ** zeros


def _text2num(words: str, lang: str) -> int | None:
    from text_to_num import text2num   # well-kept reader of Dutch and English number words
    try:
        return int(text2num(words, lang))
    except (ValueError, TypeError):
        return None


def read_words_latin(text: str, lang: str) -> list[WordNumber]:
    """Every number written in Dutch or English words in `text` (runs of numeral words joined
    by spaces or hyphens, read by text2num; "zes komma vier" = 6.4), left to right. Linear in
    the text's length."""
    morph = re.compile(rf"(?:{_WORD_MORPHEMES[lang]})+", re.I)
    scales = _WORD_SCALES[lang]
    out: list[WordNumber] = []
    run: list[re.Match] = []

    def flush() -> None:
        while run and run[-1].group().lower() in _JOINERS[lang] | {"ën"}:
            run.pop()
        while run and run[0].group().lower() in _JOINERS[lang]:
            run.pop(0)
        if not run:
            return
        words = [m.group().lower() for m in run]
        i = 0
        while i < len(words):         # the longest run of words from i that is one number
            if words[i] in _JOINERS[lang]:
                i += 1
                continue
            best, fails = None, 0     # grow the run; give up after 3 words that do not fit
            for j in range(i + 1, min(len(words), i + _MAX_RUN) + 1):
                value = None
                if not (j - i == 1 and words[i] in _NOT_ALONE[lang]):
                    value = _text2num(" ".join(w.replace("-", " ") if lang == "en" else w
                                               for w in words[i:j]), lang)
                if value is None:
                    fails += 1
                    if fails == 3:
                        break
                    continue
                best, fails = (j, value), 0
            if best is None:
                i += 1
                continue
            j, value = best
            last = next((sc for sc in scales if words[j - 1].endswith(sc)), None)
            a, b = run[i].start(), run[j - 1].end()
            out.append(WordNumber(a, b, text[a:b], Decimal(value),
                                  _precision(value, scales, last)))
            i = j
        run.clear()

    prev_end = 0
    for m in _WORD.finditer(text):
        w = m.group()
        gap = text[prev_end:m.start()]
        is_num = len(w) <= _MAX_WORD and all(morph.fullmatch(p) for p in w.split("-"))
        joiner = w.lower() in _JOINERS[lang] and run
        if run and (gap.strip() or "\n" in gap):
            flush()
        if is_num or joiner:
            run.append(m)
        else:
            flush()
        prev_end = m.end()
    flush()
    _join_decimals(text, lang, out)
    return out


def _join_decimals(text: str, lang: str, out: list[WordNumber]) -> None:
    """Join "zes komma vier" / "six point four" (a number, the decimal word, digit words) into
    one number with the precision of its last digit; in place, left to right."""
    word = _DECIMAL_WORD.get(lang)
    if not word:
        return
    digits = _DIGIT_WORDS[lang]
    i = 0
    while i < len(out):
        w = out[i]
        m = re.compile(rf"\s+{word}\s+((?:(?:{'|'.join(digits)})(?:\s+|$))+)", re.I).match(
            text, w.end) if w.precision == 1 else None
        if m is None:
            i += 1
            continue
        ds = [digits.index(x.lower()) for x in m.group(1).split()]
        frac = Decimal("0." + "".join(map(str, ds)))
        end = m.start(1) + len(m.group(1).rstrip())
        scale = Decimal(1)
        sm = re.compile(r"\s+(" + "|".join(_WORD_SCALES[lang]) + r")\b", re.I).match(text, end)
        if sm:                                        # "zes komma vijf miljoen"
            scale, end = Decimal(_WORD_SCALES[lang][sm.group(1).lower()]), sm.end()
        out[i] = WordNumber(w.start, end, text[w.start:end], (w.value + frac) * scale,
                            Decimal(1).scaleb(-len(ds)) * scale)
        while i + 1 < len(out) and out[i + 1].start < end:     # the digit words it took
            del out[i + 1]
        i += 1


_DECIMAL_WORD = {"nl": "komma", "en": "point"}
_DIGIT_WORDS = {"nl": ["nul", "een", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht",
                       "negen"],
                "en": ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                       "nine"]}


# Korean: Sino-Korean numerals (칠백육십칠, 팔천사백사십구, 칠백이십칠만, 일억 이천만) and native
# numerals (하나, 스물셋, 아흔아홉; 한/두/세/네/스무 before a counter).
KO_DIGITS = {"영": 0, "공": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "륙": 6,
             "칠": 7, "팔": 8, "구": 9}
KO_NATIVE_UNITS = {"하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "넷": 4, "네": 4,
                   "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9}
KO_NATIVE_TENS = {"열": 10, "스물": 20, "스무": 20, "서른": 30, "마흔": 40, "쉰": 50,
                  "예순": 60, "일흔": 70, "여든": 80, "아흔": 90}
#: Words that may follow a Korean number (counters and particles): a numeral prefix followed by
#: anything else is part of an ordinary word (사용, 이는, 구성).
KO_SUFFIXES = ("", "개의", "개", "차원", "행", "열", "번째", "번", "가지", "의", "은", "는", "이",
               "가", "을", "를", "로", "으로", "까지", "부터", "에", "와", "과", "만", "명",
               "바이트", "퍼센트")
_KO_SINO_CHARS = "".join(KO_DIGITS) + "".join(KOREAN_SMALL) + "".join(KOREAN_BIG)
_KO_TOKEN = re.compile(r"[\uac00-\ud7a3]+")


def read_sino_korean(s: str) -> int | None:
    """The value of a Sino-Korean numeral ("칠백육십칠" = 767, "칠백이십칠만" = 7,270,000,
    "일억이천만" = 120,000,000), or None when `s` is not one."""
    if not s or any(ch not in _KO_SINO_CHARS for ch in s):
        return None
    total, group, digit = 0, 0, None
    last_small, last_big = 10 ** 9, 10 ** 18
    for ch in s:
        if ch in KO_DIGITS:
            if digit is not None:
                return None
            digit = KO_DIGITS[ch]
        elif ch in KOREAN_SMALL:
            u = KOREAN_SMALL[ch]
            if u >= last_small or digit == 0:
                return None
            group += (1 if digit is None else digit) * u
            digit, last_small = None, u
        else:
            b = KOREAN_BIG[ch]
            if b >= last_big or digit == 0:
                return None
            g = group + (digit or 0)
            total += (g or 1) * b
            group, digit, last_small, last_big = 0, None, 10 ** 9, b
    if digit == 0 and (total or group):
        return None
    return total + group + (digit or 0)


def read_native_korean(s: str) -> int | None:
    """The value of a native Korean numeral ("스물셋" = 23, "열" = 10), or None."""
    for tens_word, tens in [("", 0), *KO_NATIVE_TENS.items()]:
        if not s.startswith(tens_word):
            continue
        rest = s[len(tens_word):]
        if not rest and tens:
            return tens
        if rest in KO_NATIVE_UNITS:
            return tens + KO_NATIVE_UNITS[rest]
    return None


def read_words_korean(text: str) -> list[WordNumber]:
    """Every number written in Korean words in `text`, left to right (linear in its length).

    A word (a run of Hangul) is a number when a numeral prefix is followed by nothing or by a
    counter or particle (KO_SUFFIXES). Sino-Korean numerals need two syllables or more (a lone
    일/이/사 is far more often a word or a particle); groups ending in 만/억/조 may be followed
    by the next group after a space ("일억 이천만"). Native numerals are read on their own
    word ("하나", "스물셋") or, in their short forms (한, 두, 세, 네), before a counter word.
    """
    out: list[WordNumber] = []
    toks = list(_KO_TOKEN.finditer(text))
    i = 0
    while i < len(toks):
        m = toks[i]
        word = m.group()
        hit = _korean_word(word)
        if hit is None and word in KOREAN_BIG and i + 1 < len(toks) \
                and text[m.end():toks[i + 1].start()] == " ":
            nxt = toks[i + 1].group()       # "만 일", "만 개의": a bare 만 before its group
            cont = _korean_word(nxt, single=True)
            if (cont is not None and cont[0] < KOREAN_BIG[word]) or nxt.startswith(_KO_COUNTERS):
                hit = (KOREAN_BIG[word], 1)
        if hit is None:
            nat = _native_before_counter(word, toks[i + 1].group() if i + 1 < len(toks) else "",
                                         text[m.end():toks[i + 1].start()] if i + 1 < len(toks)
                                         else "")
            if nat is not None:
                out.append(WordNumber(m.start(), m.end(), word, Decimal(nat), Decimal(1)))
            i += 1
            continue
        value, used = hit
        start, end = m.start(), m.start() + used
        # "일억 이천만": a group ending in a big unit, a space, and the next group
        while (used == len(word) and word[-1] in KOREAN_BIG and i + 1 < len(toks)
               and text[m.end():toks[i + 1].start()] == " "):
            nxt = _korean_word(toks[i + 1].group(), single=True)
            if nxt is None or nxt[0] >= KOREAN_BIG[word[-1]]:
                break
            i += 1
            m = toks[i]
            word = m.group()
            value, used = value + nxt[0], nxt[1]
            end = m.start() + used
        big = [b for ch, b in KOREAN_BIG.items() if text[start:end].endswith(ch)]
        prec = Decimal(1)
        if big:
            mult = value // big[0]
            zeros = len(str(mult)) - len(str(mult).rstrip("0")) if mult else 0
            prec = Decimal(big[0]) * Decimal(10) ** zeros
        out.append(WordNumber(start, end, text[start:end], Decimal(value), prec))
        i += 1
    return out


def _korean_word(word: str, single: bool = False) -> tuple[int, int] | None:
    """(value, length of the numeral) when `word` is a Korean numeral plus a suffix; `single`:
    a one-syllable Sino-Korean numeral counts too (the group after 만/억: "만 일")."""
    for cut in range(len(word), 0, -1):
        num, suffix = word[:cut], word[cut:]
        if suffix not in KO_SUFFIXES:
            continue
        v = read_native_korean(num)
        if v is not None and num not in ("한", "두", "세", "네", "스무"):
            return v, cut
        if len(num) >= 2 or single:
            v = read_sino_korean(num)
            if v is not None:
                return v, cut
    return None


_KO_COUNTERS = ("개", "개의", "가지", "번째", "차원", "행", "열", "명", "번")


#: Words after which even a one-syllable Sino-Korean numeral is a number ("칠 퍼센트"); "이 차원"
#: is "this dimension", so dimension words are not among them.
_KO_SINO_COUNTERS = ("퍼센트", "프로", "바이트")


def _native_before_counter(word: str, nxt: str, gap: str) -> int | None:
    if gap != " ":
        return None
    if word in ("한", "두", "세", "네", "스무") and nxt.startswith(_KO_COUNTERS):
        return KO_NATIVE_UNITS.get(word) or KO_NATIVE_TENS.get(word)
    if len(word) == 1 and nxt.startswith(_KO_SINO_COUNTERS):
        return read_sino_korean(word)
    return None


def read_number_words(text: str, lang: str) -> list[WordNumber]:
    """Every number written in words in `text` in language `lang` (nl, en: text2num; ko: the
    reader above)."""
    if lang == "ko":
        return read_words_korean(text)
    if lang in _WORD_MORPHEMES:
        return read_words_latin(text, lang)
    return []
