"""Hostile (copy detection): hand in the reference, or a classmate's work, and not be flagged.

The test builds each variant from the reference (a disguised copy: renamed, reformatted,
comments and docstrings stripped, tests/workflow/disguise.py) and from this file's padding:

* padding: a first line of 100,000 tokens of varied code (`_pad = None and _pad + _pad <<
  _pad ...`, operators drawn at random so that each k-gram differs; names, attributes and
  builtins all read as one placeholder), then the copy: only the first 100,000 tokens were
  fingerprinted, so the copy was never read;
* UTF-7: the copy saved with `# -*- coding: utf-7 -*-` (Python reads it as code; the grader
  read the bytes as UTF-8, where every `_` and many other characters are `+AF8-`-style runs);
* subfolder: a folder submission whose module imports the copy from `lib/impl.py`: only the
  top-level files were compared;
* broken helper: a file `a.py` that stops Python's tokenizer (an unterminated triple-quoted
  string), joined before the module holding the copy: the rest of the text was never read;
* four identical copies of one student's work in a class of twelve: their shared fingerprints
  were in more than three submissions, counted as a template, and never flagged.

Expected: every variant is flagged (reference_copy; similar_to for the four copies), and no
honest submission of tests/corpus/correct is.
"""


def padding_line(tokens: int = 100_000) -> str:
    """One line of about `tokens` tokens whose k-grams are all different (never evaluated:
    `None and ...`)."""
    import random

    rng = random.Random(0)
    ops = ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "//", "@")
    return "_pad = None and _pad" + "".join(f" {rng.choice(ops)} _pad"
                                            for _ in range(tokens // 2)) + "\n"
