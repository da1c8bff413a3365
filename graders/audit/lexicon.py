"""The lexicon: the words the course documents use for the spec's facts
(``spec/lexicon/lexicon.yaml``).

Validated against ``spec/lexicon/lexicon.schema.json`` (JSON Schema, as the spec is) and for the
references between its parts (a binding names a unit and an owner that exist). A bad file is a
:class:`LexiconError`, one paragraph naming the file, the place and the problem.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import jsonschema
import yaml

from spec import SPEC_DIR

LEXICON_PATH = SPEC_DIR / "lexicon" / "lexicon.yaml"
SCHEMA_PATH = SPEC_DIR / "lexicon" / "lexicon.schema.json"


class LexiconError(ValueError):
    """The lexicon file is unreadable, violates its schema, or refers to parts it lacks."""


@lru_cache(maxsize=None)
def load_lexicon(path: str | None = None) -> dict:
    p = Path(path) if path else LEXICON_PATH
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LexiconError(f"lexicon {p}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise LexiconError(f"lexicon {p}: not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        raise LexiconError(f"lexicon {p}: not valid YAML ({' '.join(str(exc).split())[:200]})") \
            from None
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(raw),
                    key=lambda e: list(map(str, e.absolute_path)))
    problems = [f"at {'/'.join(map(str, e.absolute_path)) or 'the top level'}: "
                f"{e.message[:200]}" for e in errors[:5]]
    if not problems:
        problems = _reference_problems(raw)
    if problems:
        raise LexiconError(f"invalid lexicon {p}: " + "; ".join(problems))
    return raw


def _reference_problems(raw: dict) -> list[str]:
    out = []
    for i, b in enumerate(raw["bindings"]):
        if b["unit"] not in raw["units"]:
            out.append(f"at bindings/{i}: unit {b['unit']!r} is not one of units")
        if "owner" in b and b["owner"] not in raw["owners"]:
            out.append(f"at bindings/{i}: owner {b['owner']!r} is not one of owners")
    ids = [c["id"] for c in raw["claims"]]
    for dup in sorted({x for x in ids if ids.count(x) > 1}):
        out.append(f"at claims: the id {dup!r} is used twice")
    return out


def terms(entry: dict | None, lang: str) -> list[str]:
    """The terms of a per-language entry for `lang` (its own and those under `all`)."""
    if not entry:
        return []
    return list(entry.get("all", [])) + list(entry.get(lang, []))


def term_pattern(words: list[str]) -> re.Pattern | None:
    """One case-insensitive pattern for plain-text terms: longest first; a term that starts
    with a Latin letter, a digit or a Hangul syllable starts a word ("행" is not inside
    "수행"); spaces match any run of spaces."""
    if not words:
        return None
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"\s+".join(re.escape(x) for x in w.split())
        if re.match(r"[A-Za-z0-9]", w):
            body = r"(?<![A-Za-z0-9À-ÿ_])" + body
        elif re.match(r"[\uac00-\ud7a3]", w):
            body = r"(?<![\uac00-\ud7a3])" + body
        parts.append(body)
    return re.compile("|".join(parts), re.I)
