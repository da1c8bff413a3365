"""Feedback languages: gettext catalogs (.po) read at run time with Babel.

    t = translator("nl")
    t(messages.HINT)                     # "Tip"
    t(messages.CHECKS_PASSED, passed=3, total=4)

No compiled .mo files: ``babel.messages.pofile.read_po`` reads the .po file once per process.
English is the msgid itself. A missing or fuzzy translation falls back to English.
"""

from __future__ import annotations

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


class Translator:
    def __init__(self, lang: str = "en"):
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        self.lang = lang
        self._cat = _catalog(lang)

    def __call__(self, msgid: str, **fields) -> str:
        text = self._cat.get(msgid, msgid)
        if fields:
            try:
                return text.format(**fields)
            except (KeyError, IndexError, ValueError):
                return msgid.format(**fields)
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
    ids += list(M.GROUP_TITLES)
    ids += list(catalog.templates())
    ids += list(M.executor_templates())   # the kernel executor's findings
    return list(dict.fromkeys(ids))
