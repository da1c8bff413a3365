"""Hostile (reports): words and numbers that no output may hold as they are.

dot() raises a ValueError whose message holds a lone surrogate ("\\ud800": no UTF-8 encoder
writes one; a batch stopped at it and every later student got no feedback file and no summary)
and terminal escape codes that clear the screen and print a fake "Total score: 100 / 100" when
a feedback file, summary.txt or summary.html is shown with `cat`. norm() returns NaN and
lookup() returns a row of infinities, whose values reach the report's message fields: `--format
json` and the gradebook held NaN and Infinity, which are not JSON (RFC 8259). The batch test
hands it in under a name with an escape code too.

Expected: every output is strict (json.loads refusing NaN/Infinity parses every JSON output;
the CSV, XML and HTML parse), no escape code or lone surrogate reaches any file (shown as
\\x1b, \\ud800), and the batch goes on: the next student gets a grade and a feedback file.
"""
import numpy as np

_FAKE = "\x1b[2J\x1b[H\x1b[32mTotal score: 100 / 100\x1b[0m \ud800 \u202e"


def dot(u, v):
    raise ValueError(_FAKE)


def norm(v):
    return float("nan")


def lookup(table, token_ids):
    return np.full(np.shape(table)[1:], np.inf, dtype=np.float32)
