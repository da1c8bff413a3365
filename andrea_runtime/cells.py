"""The one notebook cell loop: a notebook's code cells run as Jupyter runs them.

Used by ``andrea-conform`` (``graders.conformance.sources``, in the student's own process) and
by the grader's worker (in the sandbox), so a notebook's verdict does not depend on which of
them ran it. Standard library only.

The cells are one Python source (``graders.conformance.sources`` builds it from the notebook),
each cell a range of its lines. They run cell after cell in one namespace, each compiled on
its own with the line numbers of the whole source:

* every cell is compiled first, as one module would be; a ``from __future__`` import holds for
  the cells after it;
* a cell that does not compile (a ``SyntaxError``) is recorded and not run, the other cells
  are (Jupyter runs each cell on its own);
* a cell that raises an ``Exception`` is recorded and the cells after it still run (what the
  failing cell would have defined is missing);
* a ``MemoryError`` and every ``BaseException`` that is not an ``Exception`` (``SystemExit``,
  ``KeyboardInterrupt``) propagate: they stop the notebook as they stop a module.
"""

from __future__ import annotations

import re

_LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(text: str, *, keepends: bool = False) -> list[str]:
    """`text` split where Python ends a line (``\\n``, ``\\r\\n``, ``\\r``) and nowhere else, as
    ``str.splitlines`` would with those ends only. ``str.splitlines`` also splits at ``\\x0b``,
    ``\\x0c``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029, which Python reads as part of
    a line: a U+2028 pasted into a comment or a string ran in Jupyter and was a SyntaxError
    here, the cell's definitions lost (``tests/attacks/notebooks/unicode_line_separator.ipynb``)."""
    out, start = [], 0
    for m in _LINE_END.finditer(text):
        out.append(text[start:m.end() if keepends else m.start()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


def format_ranges(ranges) -> str:
    """Cell ranges as the worker reads them from its cells file: ``2-5,7-9``."""
    return ",".join(f"{a}-{b}" for a, b in ranges)


def parse_ranges(text: str) -> list[tuple[int, int]]:
    """The ranges of :func:`format_ranges`; ValueError (naming the text) when malformed."""
    try:
        ranges = [tuple(int(x) for x in part.split("-")) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"cell ranges look like 2-5,7-9, not {text[:40]!r}") from None
    if any(len(r) != 2 or not 1 <= r[0] <= r[1] for r in ranges):
        raise ValueError(f"cell ranges look like 2-5,7-9, not {text[:40]!r}")
    return ranges


def run_cells(text: str, filename: str, ranges, namespace: dict, *, keep: int | None = None,
              ) -> list[tuple[int, BaseException, int | None]]:
    """Run the cells `ranges` (first and last line, 1-based) of `text` in `namespace` (see the
    module docstring). Returns ``(first line, exception, line it was raised at)`` of each cell
    that raised an ``Exception`` or does not compile (at most `keep` of them)."""
    import __future__

    future_mask = 0
    for feature in __future__.all_feature_names:
        future_mask |= getattr(__future__, feature).compiler_flag
    lines = source_lines(text, keepends=True)
    flags, codes = 0, []
    for first, last in ranges:          # every cell compiled first, as one module would be
        chunk = "\n" * (first - 1) + "".join(lines[first - 1:last])
        try:
            code = compile(chunk, filename, "exec", flags, dont_inherit=True)
        except SyntaxError as exc:
            codes.append((first, exc))
            continue
        flags |= code.co_flags & future_mask     # a cell's __future__ import holds after it
        codes.append((first, code))
    failed: list = []
    for first, code in codes:
        full = keep is not None and len(failed) >= keep
        if isinstance(code, SyntaxError):        # that cell alone fails, in its turn
            if not full:
                failed.append((first, code, code.lineno))
            continue
        try:
            exec(code, namespace)  # noqa: S102 - the caller decides where this runs
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - a cell's error is recorded, as Jupyter does
            if not full:
                failed.append((first, exc, raised_at(exc, filename)))
    return failed


def raised_at(exc: BaseException, filename: str) -> int | None:
    """The line of the cell's own code that raised (the call into a function, say); None
    where no frame of `filename` is in the traceback (or the traceback cannot be read)."""
    try:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                return tb.tb_lineno
            tb = tb.tb_next
    except BaseException:  # noqa: BLE001 - a hostile traceback: no line
        pass
    return None
