"""Text that every output can hold as it is: ``inert(text)`` shows each character that shows
nothing, or changes how its neighbours show, as a visible escape (``\\x1b``, ``\\u202e``).

The one home of that rule: the submission model names files with it
(``submission.printable_name``) and the grader's formats pass every report through it
(``graders.grade.formats.inert_report``). Standard library only.
"""

from __future__ import annotations

import re

# Every character that shows nothing, or changes how its neighbours show, is escaped: the
# Unicode categories Cc (controls but tab and newline), Cf (format: bidi marks, embeddings,
# overrides and isolates, zero-width characters, the soft hyphen, the Arabic letter mark, the
# byte-order mark, the invisible tag characters), Cs (lone surrogates: no UTF-8 encoder writes
# one, and a batch stopped at a message holding one), Co (private use, drawn as any font
# likes), Zl and Zp (line and paragraph separators), the Hangul fillers that display as blank,
# and the non-characters XML 1.0 refuses. Two names that look alike must read differently.
# The ranges are those of Unicode 14 (Python 3.11); tests/grade/test_formats_inert.py checks
# that they cover every such character of the running Python's Unicode.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f"
    "\u0890\u0891\u08e2\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ud800-\uf8ff\ufeff\uffa0\ufff9-\ufffb\ufffe\uffff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000f0000-\U000ffffd"
    "\U00100000-\U0010fffd]")


def _escape_char(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    """`text` with every control character shown as a visible escape (\\x1b, \\u202e)."""
    return _UNSAFE.sub(_escape_char, text)
