"""The notes on a notebook, worded once: the lines left out because they only work inside
Jupyter, and the cells that raised while the notebook ran (the cells after them still ran).

``andrea-conform`` (the self-check, in the student's own process) and ``andrea-grade`` (every
format and feedback file) render them here, from the same plain data, in the reader's language,
so that both say the same sentence for the same notebook:

* a line left out: ``{"cell", "line", "kind", "text"}`` (``sources.Dropped.to_dict()``; the
  report's ``notebook.dropped``), and how many were left out in all (``dropped_total``);
* a cell that raised: ``{"cell", "line", "type", "msg"}`` (:func:`raised_cell`; the report's
  ``import.cells``), its line None where the traceback does not reach into that cell.

At most :data:`MAX_NOTES` of each are said; the lines left out beyond them are counted.
"""

from __future__ import annotations

from .i18n import exception_name, python_message
from .messages import (MSG_DROPPED_CELL_MAGIC, MSG_DROPPED_GET_IPYTHON, MSG_DROPPED_HELP,
                       MSG_DROPPED_IPYTHON_IMPORT, MSG_DROPPED_MAGIC, MSG_DROPPED_MORE,
                       MSG_DROPPED_SHELL, MSG_NOTE_CELL_RAISED, MSG_NOTE_CELL_RAISED_AT,
                       MSG_NOTE_DROPPED)

#: The most notes of each kind (lines left out, cells that raised) one report says.
MAX_NOTES = 20

#: What a line left out was (``sources.Dropped.kind``), as the note names it.
DROPPED_KINDS = {
    "magic": MSG_DROPPED_MAGIC, "shell": MSG_DROPPED_SHELL, "get_ipython": MSG_DROPPED_GET_IPYTHON,
    "help": MSG_DROPPED_HELP, "cell_magic": MSG_DROPPED_CELL_MAGIC,
    "ipython_import": MSG_DROPPED_IPYTHON_IMPORT,
}


def _english(msgid: str, **fields) -> str:
    return msgid.format(**fields) if fields else msgid


def one_line(text, limit: int) -> str:
    """`text` on one line (runs of white space one space), at most `limit` characters."""
    try:
        return " ".join(str(text).split())[:limit]
    except Exception:  # noqa: BLE001 - an odd __str__
        return ""


def raised_cell(locate, first: int, line: int | None, type_name: str, msg) -> dict | None:
    """A cell that raised as the notes read it: ``{"cell", "line", "type", "msg"}``, from the
    first line of the cell in the notebook's module, the line that raised (None: unknown) and
    the exception's name and message. `locate` maps a line of the module to (cell, line in
    that cell), or None (``sources.Source.locate``). None for no cell of the notebook."""
    cell = (locate(first) or (0, 0))[0]
    if not cell:
        return None
    at = locate(line) if line else None
    return {"cell": cell, "line": at[1] if at and at[0] == cell else None,
            "type": one_line(type_name, 100), "msg": one_line(msg, 300)}


def exception_message(exc: BaseException) -> str:
    """What a cell's exception says: a SyntaxError's message without the module's file name."""
    try:
        return str(exc.msg) if isinstance(exc, SyntaxError) else str(exc)
    except Exception:  # noqa: BLE001 - an odd __str__
        return ""


def dropped_note(d: dict, t=None) -> str:
    """The note on one line left out, in `t`'s language (English without one)."""
    t = t or _english
    kind = DROPPED_KINDS.get(d.get("kind"), MSG_DROPPED_MAGIC)
    return t(MSG_NOTE_DROPPED, cell=d["cell"], line=d["line"], text=d["text"], kind=t(kind))


def cell_raised_note(c: dict, t=None) -> str:
    """The note on one cell that raised, in `t`'s language (English without one)."""
    typ, msg = c.get("type", "Error"), c.get("msg", "")
    fields = {"cell": c.get("cell"), "type": exception_name(typ, t),
              "msg": python_message(typ, msg, t)}
    t = t or _english
    if c.get("line"):
        return t(MSG_NOTE_CELL_RAISED_AT, line=c["line"], **fields)
    return t(MSG_NOTE_CELL_RAISED, **fields)


def notebook_notes(notebook: dict | None, cells: list | None, t=None) -> list[str]:
    """Every note on a notebook, in `t`'s language: the cells that raised, then the lines left
    out (and how many more were, beyond those listed). `notebook` holds ``dropped`` and
    ``dropped_total`` (the report's ``notebook``; ``sources.Source.to_dict()``), `cells` the
    cells that raised; either may be None (a module, or a notebook that ran cleanly)."""
    notes = [cell_raised_note(c, t) for c in (cells or [])[:MAX_NOTES]]
    dropped = (notebook or {}).get("dropped") or []
    notes += [dropped_note(d, t) for d in dropped[:MAX_NOTES]]
    total = (notebook or {}).get("dropped_total") or len(dropped)
    more = max(total, len(dropped)) - min(len(dropped), MAX_NOTES)
    if more > 0:
        notes.append((t or _english)(MSG_DROPPED_MORE, n=more))
    return notes
