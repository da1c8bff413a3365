"""A notebook cell's text as IPython cleans it up before running it (standard library only).

Jupyter's kernel (IPython) does not compile a cell as it is: its input transformer first
removes leading empty lines, the cell's **common leading indentation** (a method pasted as a
cell, ``    def backward(self, dout):``, runs), and pasted **prompts**: the Python shell's
``>>> `` / ``... `` (doctest style, also indented, except inside triple-quoted strings) and
IPython's ``In [3]: `` / ``   ...: ``. A cell compiled as plain Python fails on all of these
(IndentationError, SyntaxError), while it ran for the student.

:func:`transform_cell` applies those cleanup steps (IPython's ``TransformerManager``'s
``cleanup_transforms``): this module's copy of them, whether or not IPython is installed (so
the self-check and the grader agree wherever they run; IPython's own on request), which
follows IPython 9.18 (``inputtransformer2.py``, Modified BSD License, Copyright (c)
IPython Development Team) and which the project's tests compare with IPython's own on a corpus
of cells and on Hypothesis-drawn ones (``tests/conformance/test_ipython_input.py``). The copy
runs in time linear in the cell; IPython's doctest prompt stripper does not (it slices a line
again for every triple quote in it: ``tests/attacks/notebooks/triple_quote_prompts.py``).

Unlike IPython, the result has exactly as many lines as the cell: leading empty lines stay
(as empty lines), so line numbers still point into the notebook's cell. IPython's other
transformations (``%magic``, ``!shell``, ``name?`` help, ``%%cell`` magics) are not here:
graders.conformance.sources turns those lines into ``pass`` (line by line, after this cleanup,
as IPython's order is) and names them in the notes.

Nothing of the project is imported here (a module of andrea_runtime, which the grader copies
whole into its sandbox), so that it runs where only the standard library is available.
"""

from __future__ import annotations

import re
from textwrap import dedent

__all__ = ["transform_cell", "cleanup_lines"]

_IPYTHON_STEPS = None   # IPython's cleanup transforms, once looked up (False: not installed)


def transform_cell(text: str, *, use_ipython: bool | None = None) -> str:
    """`text` (one cell) as IPython's cleanup leaves it, with as many lines as `text`.

    `use_ipython`: True uses IPython's own transforms (ImportError without IPython); False
    or None (the readers of the grader and the self-check) this module's copy, whether or
    not IPython is installed: the kit and the grader then clean a cell up alike wherever
    they run, and in time linear in the cell (IPython's own doctest prompt stripper slices
    the line again for every triple quote: a 5 MB line held the grader for minutes)."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    lead = 0
    while lead < len(lines) and (not lines[lead] or lines[lead].isspace()):
        lead += 1
    if lead == len(lines):
        return text
    body = lines[lead:]
    ends = body[-1][-1:] in ("\n", "\r")
    if not ends:
        body[-1] += "\n"      # IPython's transform_cell ends a cell with a newline first
    try:
        out = cleanup_lines(body, use_ipython=use_ipython)
    except ImportError:
        raise
    except Exception:  # noqa: BLE001 - a cleanup that breaks leaves the cell as written
        return text
    if len(out) != len(body):
        return text           # not expected: keep the cell's own lines (and line numbers)
    if not ends and out[-1] != "\n" and out[-1].endswith("\n"):
        out[-1] = out[-1][:-1]          # (a last line left empty keeps its newline: a line)
    return "".join(["\n" if ln.endswith(("\n", "\r")) else "" for ln in lines[:lead]] + out)


def cleanup_lines(lines: list[str], *, use_ipython: bool | None = None) -> list[str]:
    """IPython's cleanup transforms on `lines` (each with its line end, no leading empty
    line): IPython's own (``use_ipython`` True) or this module's."""
    steps = _ipython_steps() if use_ipython else None
    if steps is None:
        if use_ipython:
            raise ImportError("IPython is not installed")
        steps = (leading_indent, classic_prompt, ipython_prompt)
    for step in steps:
        lines = step(lines)
    return list(lines)


def _ipython_steps():
    global _IPYTHON_STEPS
    if _IPYTHON_STEPS is None:
        try:
            from IPython.core.inputtransformer2 import TransformerManager
            _IPYTHON_STEPS = tuple(TransformerManager().cleanup_transforms)
        except Exception:  # noqa: BLE001 - not installed, or broken: this module's copy
            _IPYTHON_STEPS = False
    return _IPYTHON_STEPS or None


# ----------------------------------------------------------------------------- IPython's steps
def leading_indent(lines: list[str]) -> list[str]:
    """Remove the minimum common leading indentation from all lines (textwrap.dedent)."""
    if not lines:
        return lines
    return dedent("".join(lines)).splitlines(keepends=True)


class PromptStripper:
    """Remove pasted input prompts from a block of input (IPython's class of that name).

    `prompt_re` matches any prompt (with continuations), `initial_re` only a first-line one.
    Without `doctest`: when the first line has an initial prompt or the second any prompt,
    every line's prompt is stripped. With `doctest` (the ``>>>`` prompts): prompts may be
    indented; ``...`` counts as a continuation only in a block with a ``>>>`` line outside
    triple-quoted strings; prompts inside a triple-quoted string that started without one are
    kept; each stretch of lines outside strings where a prompt was stripped is dedented."""

    def __init__(self, prompt_re, initial_re=None, *, doctest=False):
        self.prompt_re = prompt_re
        self.initial_re = initial_re or prompt_re
        self.doctest = doctest
        if doctest:
            self._doctest_initial_re = re.compile(r"^\s*>>>")
            self._doctest_ps1_re = re.compile(r"^\s*>>>[ \t]?")
            self._doctest_ps2_re = re.compile(r"^\s*\.\.\.[ \t]?")
            self._triple_quote_re = re.compile(r"(?<!\\)(\"\"\"|''')")

    def _triple_quote_mask(self, lines: list[str]) -> list[bool]:
        """For each line, whether it is inside a triple-quoted string whose prompts are kept
        (IPython's heuristic, line by line)."""
        mask: list[bool] = []
        in_triple: str | None = None
        preserve_prompt = False
        seen_prompt = False
        string_prefix_re = re.compile(r"(?i)^[rubf]*$")
        for line in lines:
            mask.append(in_triple is not None and preserve_prompt)
            for j, m in enumerate(self._triple_quote_re.finditer(line)):
                q = m.group(1)
                if in_triple is None:
                    in_triple = q
                    if j:
                        # The text before a later quote of the line holds the earlier one,
                        # which no prompt removes and no string prefix holds: IPython's test
                        # is False there. Not slicing the line again for every quote keeps
                        # this linear (a line of many quotes took the grader minutes).
                        preserve_prompt = mask[-1] = False
                        continue
                    before_quote = line[: m.start()]
                    stripped = self._doctest_ps1_re.sub("", before_quote, count=1)
                    stripped = self._doctest_ps2_re.sub("", stripped, count=1)
                    had_prompt = stripped != before_quote
                    prompted_code = had_prompt and seen_prompt
                    preserve_prompt = bool(
                        not prompted_code and string_prefix_re.match(stripped.strip()))
                    mask[-1] = preserve_prompt
                elif in_triple == q:
                    in_triple = None
                    preserve_prompt = False
            seen_prompt = seen_prompt or bool(self._doctest_initial_re.match(line))
        return mask

    def _strip(self, lines):
        return [self.prompt_re.sub("", line, count=1) for line in lines]

    def __call__(self, lines):
        if not lines:
            return lines
        if self.doctest:
            triple_mask = self._triple_quote_mask(lines)
            if not any((not inside) and self._doctest_initial_re.match(line)
                       for line, inside in zip(lines, triple_mask)):
                return lines
            out_lines: list[str] = []
            stripped_mask: list[bool] = []
            for line, inside in zip(lines, triple_mask):
                if inside:
                    out_lines.append(line)
                    stripped_mask.append(False)
                    continue
                if self._doctest_ps1_re.match(line):
                    new = self._doctest_ps1_re.sub("", line, count=1)
                elif self._doctest_ps2_re.match(line):
                    new = self._doctest_ps2_re.sub("", line, count=1)
                else:
                    new = line
                out_lines.append(new)
                stripped_mask.append(new != line)
            dedented: list[str] = []
            i = 0
            while i < len(out_lines):
                j = i
                inside = triple_mask[i]
                while j < len(out_lines) and triple_mask[j] == inside:
                    j += 1
                segment = out_lines[i:j]
                if not inside and any(stripped_mask[i:j]):
                    dedented.extend(dedent("".join(segment)).splitlines(keepends=True))
                else:
                    dedented.extend(segment)
                i = j
            return dedented
        if self.initial_re.match(lines[0]) or (len(lines) > 1 and self.prompt_re.match(lines[1])):
            return self._strip(lines)
        return lines


classic_prompt = PromptStripper(
    prompt_re=re.compile(r"^(>>>|\.\.\.)( |$)"),
    initial_re=re.compile(r"^>>>( |$)"),
    doctest=True,
)

ipython_prompt = PromptStripper(
    re.compile(
        r"""
        ^(                         # from the beginning of a line, either
        ((\[nav\]|\[ins\])?\ )?    # a vi editing mode prompt, if there,
        In\                        # 'In' and a space,
        \[\d+\]:                   # the command's number,
        \                          # a mandatory space
        |                          # or
        \s*                        # leading whitespace,
        \.{3,}:                    # three (or more) dots and a colon
        \ ?                        # and an optional space
        )
        """,
        re.VERBOSE,
    )
)
