"""Every message template the checks and the runner can produce (gettext msgids).

A check reports a violation with ``fail(TEMPLATE, call, hint, **fields)``; the template is an
English sentence with ``str.format`` placeholders, so a grader can show it in the reader's
language with the numbers filled in. This module finds the templates in the source, so the
catalogs (``graders/conformance/locale``) can be checked for completeness:

* the first argument of every ``fail(...)`` call: a string literal, a module-level ``MSG_*``
  constant, or a conditional expression choosing between those;
* every module-level ``MSG_*`` string constant of the package.

A ``fail`` whose message is built at run time (an f-string, a variable) cannot be translated:
:func:`unresolved` lists those, and the project's tests keep that list empty.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _scan(path: Path) -> tuple[list[str], list[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.startswith("MSG_"):
                    constants[target.id] = node.value.value
    found, bad = list(constants.values()), []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "fail" and node.args):
            continue
        arg = node.args[0]
        branches = [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]
        for a in branches:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                found.append(a.value)
            elif isinstance(a, ast.Name) and a.id in constants:
                pass
            elif isinstance(a, ast.Name) and path.name == "assertions.py" and a.id == "template":
                pass  # fail() itself
            else:
                bad.append(f"{path.relative_to(PACKAGE.parent.parent)}:{node.lineno}")
    return found, bad


@lru_cache(maxsize=None)
def templates() -> tuple[str, ...]:
    """Every message template, in source order, without duplicates."""
    out: list[str] = []
    for path in _sources():
        for t in _scan(path)[0]:
            if t not in out:
                out.append(t)
    return tuple(out)


def unresolved() -> list[str]:
    """``file:line`` of every ``fail(...)`` whose message is not a findable template."""
    return [b for path in _sources() for b in _scan(path)[1]]
