"""A reader of Dutch or Korean feedback: what in a text would be foreign to a student who reads
only that language (English words, Python's or the kit's exception classes other than the
contract's, the grader's machinery), with code left out. Used by the language meta-tests."""

from __future__ import annotations

import html
import re

from graders.grade import messages as M
from graders.grade.i18n import translator

# English words a Dutch or Korean sentence never needs (none is also a Dutch word).
ENGLISH = frozenset("""
the should but raised returned missing failed passed could defined named invalid expected
error errors with which this your must and are has have been did found allowed elements
function functions line cell check checks graded input smallest reproduce hint what went wrong
printed output because there than then when where while after before only other every each
called exhausted budget timed imported or cannot syntax value values conform conforms
against profile note course section skipped
""".split())
# The grader's machinery: never a student's business, anywhere in the text ...
INTERNALS = re.compile(r"hypothesis|falsifying|traceback|/tmp/|/sandbox|/work/|site-packages|"
                       r"RaceError|OutOfBoundsError|KernelError|FindingError|BuildError|"
                       r"CompileError", re.IGNORECASE)
# ... nor in a sentence (the reproducer's code imports the kit's load_impl).
INTERNAL_WORDS = re.compile(r"\bworker|\bproxy|protocol|sandbox|bwrap|bubblewrap|pickle|"
                            r"graders\.|\bpipe\b", re.IGNORECASE)
CONTRACT_EXCEPTIONS = {"TypeError", "ValueError", "IndexError"}
EXCEPTION = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b")
# Code, left out of the reading: 'quoted', “course titles”, and any token with code's
# punctuation or a digit (embed(), x[0, 0]=..., grad_out, file.cu:43, np.float32, 1e-07).
QUOTED = re.compile(r"'[^'\n]*'|“[^”\n]*”|\"[^\"\n]*\"")
CODE_CHARS = re.compile(r"[_()\[\]=/.<>|#{}*+\-\d\u2500]")


def prose_words(line: str) -> list[str]:
    """The words of `line` outside code (linear in the line's length: a text report's rules
    are thousands of characters long)."""
    return [w for tok in QUOTED.sub(" ", line).split() if not CODE_CHARS.search(tok)
            for w in re.findall(r"[A-Za-z]+", tok)]


def _code_blocks_removed(text: str, t) -> list[str]:
    """The prose lines of one feedback text: without the smallest input, the reproducer's
    code (its closing comment is kept, without the command), quoted source lines and the
    compiler's own log."""
    compiler = t(M.KERNEL_COMPILE_FAILED, log="").strip()
    prose, block = [], None
    for line in text.splitlines():
        if block == "reproducer":   # code up to its closing comment ("or:" in words)
            if line.startswith("# "):
                prose.append(line.split(":", 1)[0])
                block = None
            elif "\u2500" in line:     # the text format's next heading
                block = None
                prose.append(line)
            continue
        if block == "compiler":     # the compiler's log, quoted as it wrote it
            if line.strip() == t(M.IMPORT_HINT_KERNEL):
                block = None
                prose.append(line)
            continue
        if line.startswith(f"{t(M.REPRODUCE)}:"):
            block = "reproducer"
        elif line.strip() == compiler:
            block = "compiler"
        if not line.startswith("    "):   # the smallest input, a quoted source line
            prose.append(line)
    return prose


def unreadable(text: str, lang: str) -> list[str]:
    """What a `lang` reader of `text` would find foreign: English words, Python's exception
    class names other than the contract's, the grader's internals."""
    t = translator(lang)
    found = [m.group() for m in INTERNALS.finditer(text)]
    for line in _code_blocks_removed(text, t):
        found += [m.group() for m in INTERNAL_WORDS.finditer(line)]
        found += [e for e in EXCEPTION.findall(line) if e not in CONTRACT_EXCEPTIONS]
        found += [w for w in prose_words(line) if w.lower() in ENGLISH]
    return found


def page_text(page: str) -> str:
    """What a reader of an HTML page sees: its text, without scripts, styles and markup, code
    (<pre>, <code>) left out of the reading; a title or a label (title=, aria-label=) is text
    too."""
    page = re.sub(r"<(script|style|pre|code)\b.*?</\1>", "", page, flags=re.S)
    said = re.findall(r'(?:title|aria-label|alt)="([^"]*)"', page)
    return html.unescape(re.sub(r"<[^>]+>", "\n", page) + "\n" + "\n".join(said))
