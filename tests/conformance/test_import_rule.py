"""The import rule (andrea_runtime/import_rule.py) judges what the submission's own code asks
for: the standard library, its own modules and the one list pass; anything else is a
ModuleNotFoundError, also a module this process has loaded already and one asked through
importlib; a library's own imports are not the submission's."""

from __future__ import annotations

import sys

import pytest

from andrea_runtime.import_rule import ImportRule
from graders.conformance.sources import ALLOWED_PACKAGES


@pytest.fixture
def run(tmp_path, monkeypatch):
    """Run `code` as the submission's (compiled with a file name in its folder) under the
    rule; `relative`: with the folder as the current directory and a relative file name."""
    (tmp_path / "helper_mod.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def go(code: str, relative: bool = False) -> dict:
        name = str(tmp_path / "sub.py")
        if relative:
            monkeypatch.chdir(tmp_path.parent)
            name = f"{tmp_path.name}/sub.py"
        rule = ImportRule(ALLOWED_PACKAGES, str(tmp_path)).install()
        ns: dict = {}
        try:
            exec(compile(code, name, "exec"), ns)  # noqa: S102 - the test's own code
        finally:
            rule.remove()
        return ns

    return go


@pytest.mark.parametrize("code", [
    "import math, json, itertools\nfrom collections import Counter",
    "import numpy as np\nimport scipy.sparse\nimport matplotlib.pyplot as plt",
    "import helper_mod\nx = helper_mod.VALUE",
    "from __future__ import annotations\nimport os.path",
    "try:\n    import tqdm\nexcept ImportError:\n    tqdm = None",
])
def test_what_a_submission_may_import(run, code):
    run(code)


@pytest.mark.parametrize("code", [
    "import yaml",                        # installed and already loaded here
    "import hypothesis.strategies",       # the test tooling
    "from rich.console import Console",
    "import tqdm",                        # not installed at all
    "import importlib\nimportlib.import_module('babel')",
    "def f():\n    import yaml\nf()",      # inside a function, at call time
])
def test_what_it_may_not(run, code):
    with pytest.raises(ModuleNotFoundError, match="a submission may import only"):
        run(code)


def test_code_compiled_with_a_relative_path_is_the_submissions_too(run):
    with pytest.raises(ModuleNotFoundError, match="No module named 'yaml'"):
        run("import yaml", relative=True)


def test_a_library_imports_what_it_needs(run):
    """matplotlib imports PIL, dateutil, pyparsing...: not the submission's imports."""
    for name in [m for m in sys.modules if m.split(".")[0] in ("PIL", "matplotlib")]:
        sys.modules.pop(name, None)
    run("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "plt.plot([1, 2])")


def test_removed_rule_leaves_imports_alone(tmp_path):
    rule = ImportRule(ALLOWED_PACKAGES, str(tmp_path)).install()
    rule.remove()
    exec(compile("import yaml", str(tmp_path / "sub.py"), "exec"), {})  # noqa: S102
    assert rule not in sys.meta_path
