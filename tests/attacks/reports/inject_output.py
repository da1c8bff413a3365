"""Hostile (output injection): prints and raises text made to break or fake the grader's
reports: ANSI escapes (clear screen, a green fake "Total score: 100 / 100"), characters XML
cannot hold, a CDATA end, HTML with script, rich markup and emoji codes, a bidi override, and
a spreadsheet formula.

Expected: every format is valid (JUnit parses), the text report holds no escape character and
no interpreted markup, Gradescope output is declared plain text.
"""
EVIL = ("\x1b[2J\x1b[H\x1b[32mTotal score: 100 / 100\x1b[0m \x00\x01\x07\x0b\x0c\ud800"
        "]]> <script>alert(1)</script><img src=x onerror=alert(2)> [bold green]FULL MARKS[/] "
        ":thumbs_up: \u202egnp.exe =HYPERLINK(\"http://evil\",\"x\") \x9b31m")
print(EVIL.replace("\ud800", ""))  # a lone surrogate cannot be printed as UTF-8


def lookup(table, token_ids):
    raise IndexError(EVIL)


def dot(u, v):
    return EVIL
