"""What the sandbox receives imports nothing above it: ``andrea_runtime`` (copied whole into
every worker) imports only the standard library, NumPy and itself, an optional package only
inside ``try`` (it falls back to its own code); the kernel runtime beside it (andrea_gpu less
what the grader leaves out) imports neither the reference, nor the spec, nor the grader, and
the runtime names none of it: the grader names its kernel loader as data
(``--kernel-loader``). Measured from the code's own imports, at any depth of a function."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from graders.grade.sandbox import KERNEL_RUNTIME_EXCLUDED
from graders.grade.sandbox.scratch import KERNEL_LOADER

ROOT = Path(__file__).resolve().parents[2]
STDLIB = set(sys.stdlib_module_names)


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(top-level package, inside a try) of every absolute import of `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, bool]] = []

    def walk(node, guarded):
        if isinstance(node, ast.Import):
            out.extend((a.name.split(".")[0], guarded) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.module.split(".")[0], guarded))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" \
                and node.args and isinstance(node.args[0], ast.Constant):
            out.append((str(node.args[0].value).split(".")[0], guarded))
        for child in ast.iter_child_nodes(node):
            walk(child, guarded or (isinstance(node, ast.Try) and child in node.body))

    walk(tree, False)
    return out


def _modules(folder: Path, excluded=()) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts
                  and p.relative_to(folder).parts[0] not in excluded)


@pytest.mark.parametrize("path", _modules(ROOT / "andrea_runtime"), ids=lambda p: p.name)
def test_the_runtime_imports_only_the_standard_library_and_numpy(path):
    bad = [(name, guarded) for name, guarded in _imports(path)
           if name not in STDLIB | {"numpy", "andrea_runtime"} and not guarded]
    assert bad == [], f"{path.name} imports {bad}"


def test_the_runtime_names_nothing_of_the_kernel_runtime():
    for path in _modules(ROOT / "andrea_runtime"):
        assert "andrea_gpu" not in {name for name, _ in _imports(path)}, path.name


@pytest.mark.parametrize("path", _modules(ROOT / "andrea_gpu", KERNEL_RUNTIME_EXCLUDED),
                         ids=lambda p: str(p.relative_to(ROOT / "andrea_gpu")))
def test_the_kernel_runtime_imports_no_reference_spec_or_grader(path):
    names = {name for name, _ in _imports(path)}
    assert not names & {"andrea_ref", "spec", "graders"}, (path.name, names)


def test_the_kernel_loader_is_in_the_kernel_runtime():
    module = KERNEL_LOADER.split(".")
    assert module[0] == "andrea_gpu" and module[1] + ".py" not in KERNEL_RUNTIME_EXCLUDED
    assert (ROOT / "andrea_gpu" / f"{module[1]}.py").is_file()
