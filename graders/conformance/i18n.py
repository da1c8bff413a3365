"""Feedback languages: gettext catalogs (.po) read at run time with Babel.

    t = translator("nl")
    t("Hint")                            # "Tip"
    t("{passed} of {total} checks passed", passed=3, total=4)

The catalogs (``locale/<lang>/LC_MESSAGES/andrea_grade.po``) live with the checks, so that
``andrea-conform --lang`` (the students' self-check) and ``andrea-grade`` (which re-exports
this module as ``graders.grade.i18n``) read the same sentences; ``graders.grade.i18n.all_msgids``
lists every msgid they must translate.

A message with plural forms (``messages.PLURALS``: "where 1 was expected", "where 8 were
expected") is one msgid/msgid_plural entry with the catalog's ``Plural-Forms`` (gettext's
ngettext); the report keeps the singular as its template and the form is chosen from the
count in its fields when it is rendered.

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

from .messages import MSG_REPRODUCE_OR, PLURALS

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
def _plural_catalog(lang: str) -> tuple[dict[str, tuple[str, ...]], object]:
    """The messages with plural forms (msgid, msgid_plural, msgstr[0..]): singular msgid ->
    the forms, and the catalog's Plural-Forms rule (n -> the index of the form)."""
    import gettext

    if lang == "en":
        return {}, lambda n: int(n != 1)
    from babel.messages.pofile import read_po

    with catalog_path(lang).open("rb") as f:
        cat = read_po(f, locale=lang, domain=DOMAIN)
    forms = {m.id[0]: tuple(m.string) for m in cat
             if isinstance(m.id, tuple) and not m.fuzzy and isinstance(m.string, tuple)
             and len(m.string) == cat.num_plurals and all(m.string)}
    return forms, gettext.c2py(cat.plural_expr)


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
        if isinstance(value, str) and format_spec and value in ("nan", "inf", "-inf"):
            value = float(value)   # a number a report keeps as text (RFC 8259 JSON has no NaN)
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
        if msgid in PLURALS:   # gettext's ngettext, the count taken from the fields
            msgid, text = self._plural(msgid, fields)
        if fields:
            try:
                return self._fmt.format(text, **fields)
            except (KeyError, IndexError, ValueError, AttributeError, TypeError):
                return self._fmt.format(msgid, **fields)
        return text

    def _plural(self, msgid: str, fields: dict) -> tuple[str, str]:
        """(the English form, the reader's form) of a message with plural forms for the count
        in its field (messages.PLURALS); a count that is not a number reads as plural."""
        plural, field = PLURALS[msgid]
        n = fields.get(field)
        n = n if type(n) is int else 2
        english = msgid if n == 1 else plural
        forms, rule = _plural_catalog(self.lang)
        if msgid not in forms:
            return english, english
        index = rule(abs(n))
        return english, forms[msgid][index if 0 <= index < len(forms[msgid]) else -1]

    def number(self, value) -> str:
        """`value` as the reader's locale writes it (91,34 in Dutch), as a template's field
        is: every number of one report in one style."""
        return self._fmt.format("{0}", value)


def translator(lang: str = "en") -> Translator:
    return Translator(lang)


# --- Python's own exceptions and messages, in the reader's language. The contract's exceptions
# (TypeError, ValueError, IndexError) are names the student writes and stay as they are, as does
# a class the submission defines; Python's other built-in exceptions are said in words (the
# msgid is the class name, so English keeps it), and the messages Python writes for the errors
# a student meets most often are catalog sentences too (anything else is quoted as it is).
EXCEPTION_NAMES = (
    "NameError", "UnboundLocalError", "SyntaxError", "IndentationError", "TabError",
    "ModuleNotFoundError", "ImportError", "AttributeError", "KeyError", "ZeroDivisionError",
    "NotImplementedError", "RecursionError", "AssertionError", "FileNotFoundError",
    "OverflowError", "MemoryError", "RuntimeError", "StopIteration", "LookupError",
    "ArithmeticError", "FloatingPointError", "UnicodeDecodeError", "OSError", "PermissionError",
    "Exception",
)
# (full-match pattern of Python's message, msgid with the pattern's groups as fields)
PYTHON_MESSAGES = (
    (r"No module named '(?P<name>[^'\n]{1,200})'", "No module named '{name}'"),
    # the import rule's (import_rule.MSG_NOT_ALLOWED): a package not on the list
    (r"No module named '(?P<module>[^'\n]{1,200})': a submission may import only Python's "
     r"standard library, its own modules and (?P<allowed>[\w., ]{1,500})",
     "No module named {module!r}: a submission may import only Python's standard library, its "
     "own modules and {allowed}"),
    # the import rule's (import_rule.MSG_COMPILED): compiled code refused
    (r"(?P<file>[^\n]{1,200}): code that is not Python source \(compiled bytecode, a native "
     r"library or a zip archive\) cannot be loaded: a submission's code must be its \.py files",
     "{file}: code that is not Python source (compiled bytecode, a native library or a zip "
     "archive) cannot be loaded: a submission's code must be its .py files"),
    (r"name '(?P<name>\w{1,100})' is not defined", "name '{name}' is not defined"),
    (r"name '(?P<name>\w{1,100})' is not defined\. Did you mean: '(?P<alt>\w{1,100})'\?",
     "name '{name}' is not defined. Did you mean: '{alt}'?"),
    (r"cannot access local variable '(?P<name>\w{1,100})' where it is not associated with a value",
     "cannot access local variable '{name}' where it is not associated with a value"),
    (r"cannot import name '(?P<name>\w{1,100})' from '(?P<module>[\w.]{1,200})'(?: \(.*\))?",
     "cannot import name '{name}' from '{module}'"),
    (r"module '(?P<module>[\w.]{1,200})' has no attribute '(?P<name>\w{1,100})'",
     "module '{module}' has no attribute '{name}'"),
    (r"invalid syntax", "invalid syntax"),
    (r"invalid syntax\. Perhaps you forgot a comma\?", "invalid syntax. Perhaps you forgot a comma?"),
    (r"expected ':'", "expected ':'"),
    (r"unexpected indent", "unexpected indent"),
    (r"unindent does not match any outer indentation level",
     "unindent does not match any outer indentation level"),
    (r"expected an indented block after .{1,100} on line (?P<line>\d{1,9})",
     "expected an indented block after line {line}"),
    (r"'(?P<bracket>[(\[{])' was never closed", "'{bracket}' was never closed"),
    (r"unmatched '(?P<bracket>[)\]}])'", "unmatched '{bracket}'"),
    (r"unterminated string literal \(detected at line (?P<line>\d{1,9})\)",
     "unterminated string literal (detected at line {line})"),
    (r"(?:float )?division by zero", "division by zero"),
    (r"maximum recursion depth exceeded.{0,100}", "maximum recursion depth exceeded"),
)
PYTHON_MESSAGE_IDS = tuple(msgid for _, msgid in PYTHON_MESSAGES)


def exception_name(name, t=None):
    """`name` as the reader says it: Python's built-in exceptions other than the contract's in
    words (English: the class name), every other name (the contract's, the submission's own
    classes) as it is."""
    if isinstance(name, str) and name in EXCEPTION_NAMES and t is not None:
        return t(name)
    return name


def python_message(name, msg, t=None):
    """Python's message `msg` of a built-in exception `name`, as a catalog sentence where it is
    one Python writes for a common error; else `msg` as it is."""
    import re

    if t is None or not isinstance(msg, str) or not isinstance(name, str) \
            or name not in EXCEPTION_NAMES or len(msg) > 1000:
        return msg
    for pattern, msgid in PYTHON_MESSAGES:
        m = re.fullmatch(pattern, msg.strip(), re.DOTALL)
        if m:
            return t(msgid, **m.groupdict())
    return msg


def reproducer_text(snippet: str, t) -> str:
    """A check's reproducer with its closing comment ("# or: andrea-conform ...") in the
    reader's language; the code itself stays as it is."""
    lead = "# " + MSG_REPRODUCE_OR.split("{command}")[0]
    lines = snippet.split("\n")
    if lines and lines[-1].startswith(lead):
        lines[-1] = "# " + t(MSG_REPRODUCE_OR, command=lines[-1][len(lead):])
    return "\n".join(lines)
