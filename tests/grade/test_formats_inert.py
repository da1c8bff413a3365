"""formats.inert: every character that shows nothing or changes how its neighbours show is
escaped, whatever the Unicode version of the running Python; visible text is left alone."""

from __future__ import annotations

import sys
import unicodedata

from graders.grade import formats

#: What must never reach an output raw (see graders/conformance/inert.py, _UNSAFE).
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
HANGUL_FILLERS = "\u115f\u1160\u3164\uffa0"


def test_every_invisible_character_of_this_unicode_is_escaped():
    missed = [f"U+{c:04X} ({unicodedata.category(chr(c))})" for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in INVISIBLE_CATEGORIES and chr(c) not in "\t\n"
              and formats.inert(chr(c)) == chr(c)]
    assert not missed, (f"{len(missed)} characters reach outputs raw under Unicode "
                        f"{unicodedata.unidata_version}: {missed[:20]}")


def test_fillers_and_look_alike_names_read_differently():
    for ch in HANGUL_FILLERS + "\xad\u061c\U000e0049":
        shown = formats.inert(f"bob{ch}.py")
        assert shown != "bob.py" and shown.startswith("bob\\") and ch not in shown, shown


def test_visible_text_of_every_language_is_left_alone():
    text = "Naïve café — 임베딩 테이블의 행 — 行列 — ١٢٣ — emoji 🙂\tand a tab\nand lines"
    assert formats.inert(text) == text
