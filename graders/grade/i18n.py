"""Feedback languages: gettext catalogs (.po) read at run time with Babel.

    t = translator("nl")
    t(messages.HINT)                     # "Tip"
    t(messages.CHECKS_PASSED, passed=3, total=4)

No compiled .mo files: ``babel.messages.pofile.read_po`` reads the .po file once per process.
English is the msgid itself. A missing or fuzzy translation falls back to English.

Numbers a template formats as prose follow the reader's locale (Babel's symbols): a count with
thousands separators (``{got:,}``) reads 7.275.264 in Dutch, a float (``{seconds:.1f}``,
``{std:.4g}``, ``{rounded}``) 0,9. Values shown as code (``{got!r}``: the literal Python would
print, as in the reproducer) stay as Python writes them.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "andrea_grade"
LANGUAGES = ("en", "nl", "ko")


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=None)
def _catalog(lang: str) -> dict[str, str]:
    if lang == "en":
        return {}
    from babel.messages.pofile import read_po

    path = catalog_path(lang)
    with path.open("rb") as f:
        cat = read_po(f, locale=lang, domain=DOMAIN)
    return {m.id: m.string for m in cat
            if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


@lru_cache(maxsize=None)
def _symbols(lang: str) -> dict[str, str]:
    """English's number symbols -> the locale's (only where they differ)."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    swap = {",": get_group_symbol(lang), ".": get_decimal_symbol(lang)}
    return {k: v for k, v in swap.items() if k != v}


class _LocaleFormatter(string.Formatter):
    """str.format, with the locale's separators in floats and in grouped (``,``) integers;
    a field converted with ``!r`` or ``!s`` is text by then and stays as it is."""

    def __init__(self, lang: str):
        self.swap = _symbols(lang) if lang != "en" else {}

    def format_field(self, value, format_spec):
        text = super().format_field(value, format_spec)
        if self.swap and not isinstance(value, bool) and (
                isinstance(value, float) or (isinstance(value, int) and "," in format_spec)):
            text = "".join(self.swap.get(ch, ch) for ch in text)
        return text


class Translator:
    def __init__(self, lang: str = "en"):
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        self.lang = lang
        self._cat = _catalog(lang)
        self._fmt = _LocaleFormatter(lang)

    def __call__(self, msgid: str, **fields) -> str:
        text = self._cat.get(msgid, msgid)
        if fields:
            try:
                return self._fmt.format(text, **fields)
            except (KeyError, IndexError, ValueError, AttributeError, TypeError):
                return self._fmt.format(msgid, **fields)
        return text


def translator(lang: str = "en") -> Translator:
    return Translator(lang)


def all_msgids() -> list[str]:
    """Every sentence a student can read: the grader's messages, the checks' hints and message
    templates, the kernel executor's findings, and the spec's group titles. The catalogs must translate each of them."""
    from graders.conformance import catalog, hints

    from . import messages as M

    ids: list[str] = []
    for module in (M, hints):
        ids += [v for k, v in vars(module).items() if k.isupper() and isinstance(v, str)]
    ids += list(M.GROUP_TITLES) + list(M.ISOLATION_MODES.values()) + list(M.PROBLEMS)
    ids += list(catalog.templates())
    ids += list(M.executor_templates())   # the kernel executor's findings
    ids += list(M.EXCEPTION_NAMES) + list(M.PYTHON_MESSAGE_IDS)   # Python's own words
    return list(dict.fromkeys(ids))
