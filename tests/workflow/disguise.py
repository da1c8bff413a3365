"""Disguised copies for the copy-flag tests: names renamed, reformatted, comments and docstrings
stripped (ast.unparse), several files merged into one module as a student would hand it in."""
import ast
import builtins
import re
from pathlib import Path

from spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = set(load_spec().contract.names)  # the names a disguise must keep


def disguise(source: str, salt: str = "x") -> str:
    tree = ast.parse(source)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
    keep = set(dir(builtins)) | CONTRACT | imported
    mapping: dict[str, str] = {}

    def new(name):
        if name in keep or name.startswith("__"):
            return name
        return mapping.setdefault(name, f"{salt}{len(mapping)}")

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            node.id = new(node.id)
            return node

        def visit_arg(self, node):
            node.arg = new(node.arg)
            return node

        def visit_FunctionDef(self, node):
            node.name = new(node.name)
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(
                    getattr(body[0], "value", None), ast.Constant):
                node.body = body[1:] or [ast.Pass()]
            self.generic_visit(node)
            return node

        def visit_keyword(self, node):   # f(name=...) keeps the callee's parameter names
            self.generic_visit(node)
            return node

    return ast.unparse(Rename().visit(tree)) + "\n"


def reference_as_one_module() -> str:
    """andrea_ref's modules merged into one file, as a student copying it would."""
    parts = []
    for f in ("andrea_runtime/validate.py", "andrea_ref/vectors.py", "andrea_ref/embedding.py",
              "andrea_ref/positions.py"):
        t = (ROOT / f).read_text(encoding="utf-8")
        t = re.sub(r"^from (\.\w*|andrea_runtime) ?import .*$", "", t, flags=re.M)
        t = t.replace("from __future__ import annotations", "").replace("validate.", "")
        parts.append(t)
    return "\n".join(parts)
