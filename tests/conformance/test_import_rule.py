"""The import rule (andrea_runtime/import_rule.py) judges what the submission's own code asks
for: the standard library, its own modules and the one list pass; anything else is a
ModuleNotFoundError, also a module this process has loaded already and one asked through
importlib; a library's own imports are not the submission's."""

from __future__ import annotations

import sys
from pathlib import Path

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


def test_a_module_written_at_run_time_is_not_the_submissions_own(run, tmp_path):
    """The submission's own modules are the files in its folder when the rule is made (before
    its code runs), as in the grader, whose worker imports them from the read-only hand-in
    (fifth red-team round, tests/attacks/filesystem/written_module.py): the self-check refuses
    a module written beside the submission at run time, as the grader does; one handed in
    (helper_mod), a package and a reload of one's own helper still import."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .inner import V\n")
    (tmp_path / "pkg" / "inner.py").write_text("V = 3\n")
    for name in ("fastpath", "pkg", "pkg.inner"):
        sys.modules.pop(name, None)
    ns = run("import importlib, pkg, helper_mod\nimportlib.reload(helper_mod)\n"
             "x = pkg.V + helper_mod.VALUE")
    assert ns["x"] == 10
    with pytest.raises(ModuleNotFoundError, match="No module named 'fastpath'"):
        run("from pathlib import Path\n"
            f"Path({str(tmp_path)!r}, 'fastpath.py').write_text('V = 1\\n')\n"
            "import fastpath")
    with pytest.raises(ModuleNotFoundError, match="No module named 'fastpath2'"):
        run("import importlib\nfrom pathlib import Path\n"
            f"Path({str(tmp_path)!r}, 'fastpath2.py').write_text('V = 1\\n')\n"
            "importlib.import_module('fastpath2')")
    assert "fastpath" not in sys.modules and "fastpath2" not in sys.modules


def test_removed_rule_leaves_imports_alone(tmp_path):
    rule = ImportRule(ALLOWED_PACKAGES, str(tmp_path)).install()
    rule.remove()
    exec(compile("import yaml", str(tmp_path / "sub.py"), "exec"), {})  # noqa: S102
    assert rule not in sys.meta_path


# ----------------------------------------------------------------------------- code not source
def _bytecode(folder, name: str, source: str, unchecked: bool = False) -> None:
    import py_compile

    (folder / "_src.py").write_text(source)
    mode = (py_compile.PycInvalidationMode.UNCHECKED_HASH if unchecked
            else py_compile.PycInvalidationMode.TIMESTAMP)
    py_compile.compile(str(folder / "_src.py"), cfile=str(folder / name), doraise=True,
                       invalidation_mode=mode)
    (folder / "_src.py").unlink()


@pytest.mark.parametrize("code", [
    # importlib's loader for bytecode, by name and through the suffix of a path
    "from importlib.machinery import SourcelessFileLoader\nimport types\n"
    "m = types.ModuleType('fast')\nSourcelessFileLoader('fast', 'fast.pyc').exec_module(m)",
    "import importlib.util as u\ns = u.spec_from_file_location('fast', 'fast.pyc')\n"
    "s.loader.exec_module(u.module_from_spec(s))",
    "import runpy\nrunpy.run_path('fast.pyc')",
    # a .pyc named like a standard module not loaded yet: a plain import statement
    "import this_is_stdlib_named",
    # a native library, through its loader and through _imp directly
    "from importlib.machinery import ExtensionFileLoader\nimport importlib.util as u\n"
    "l = ExtensionFileLoader('native', 'native.so')\n"
    "u.module_from_spec(u.spec_from_loader('native', l, origin='native.so'))",
    "import _imp, importlib.util as u\n"
    "_imp.create_dynamic(u.spec_from_file_location('native', 'native.so'))",
    # modules in a zip archive
    "import zipimport\nzipimport.zipimporter('lib.zip').find_spec('zipped')",
    # a .pth file's import lines (site runs them with exec)
    "import os, site\nsite.addsitedir(os.getcwd())",
])
def test_code_that_is_not_source_is_refused(run, tmp_path, monkeypatch, code):
    monkeypatch.chdir(tmp_path)
    _bytecode(tmp_path, "fast.pyc", "VALUE = 42\n")
    (tmp_path / "native.so").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(57))
    (tmp_path / "setup.pth").write_text("import sys; sys.pth_ran = True\n")
    import zipfile
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as z:
        z.writestr("zipped.py", "VALUE = 42\n")
    code = code.replace("this_is_stdlib_named", _unloaded_stdlib_module(tmp_path))
    with pytest.raises(ImportError, match="code that is not Python source"):
        run(code)
    assert not hasattr(sys, "pth_ran")


def _unloaded_stdlib_module(folder) -> str:
    """A standard module not loaded in this process, shadowed by a .pyc of that name."""
    for name in ("this", "antigravity", "xdrlib", "nntplib", "telnetlib", "mailcap", "sndhdr"):
        if name not in sys.modules:
            _bytecode(folder, f"{name}.pyc", "VALUE = 42\n")
            return name
    pytest.skip("every candidate module is loaded")


def test_a_zip_on_sys_path_provides_nothing(run, tmp_path):
    import zipfile
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as z:
        z.writestr("helper_mod.py", "VALUE = 42\n")
    sys.modules.pop("helper_mod", None)
    ns = run(f"import sys\nsys.path.insert(0, {str(tmp_path / 'lib.zip')!r})\n"
             "import helper_mod\nx = helper_mod.VALUE")
    sys.path[:] = [p for p in sys.path if not p.endswith("lib.zip")]
    sys.modules.pop("helper_mod", None)
    assert ns["x"] == 7       # the folder's helper_mod.py, not the archive's


@pytest.mark.parametrize("ruled", [False, True])
def test_a_bytecode_cache_written_at_run_time_is_never_read(run, tmp_path, ruled):
    """An unchecked hash-based .pyc (PEP 552) in __pycache__ replaces its source's code for
    Python whatever the source says; under the rule a module outside the trusted folders runs
    from its source (without the rule: the attack works, the test shows it is real)."""
    import importlib.util

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for folder in (tmp_path, scratch):     # the submission's module, copied to a scratch folder
        (folder / "cached_mod.py").write_text("VALUE = 7\n")
    cache = Path(importlib.util.cache_from_source(str(scratch / "cached_mod.py")))
    cache.parent.mkdir()
    _bytecode(cache.parent, cache.name, "VALUE = 42\n", unchecked=True)
    code = (f"import sys\nsys.path.insert(0, {str(scratch)!r})\nimport cached_mod\n"
            "x = cached_mod.VALUE")
    sys.modules.pop("cached_mod", None)
    try:
        if ruled:
            ns = run(code)
        else:
            ns: dict = {}
            exec(compile(code, str(tmp_path / "sub.py"), "exec"), ns)  # noqa: S102
    finally:
        sys.path[:] = [p for p in sys.path if p != str(scratch)]
        sys.modules.pop("cached_mod", None)
    assert ns["x"] == (7 if ruled else 42)


def test_the_libraries_native_modules_still_load(run):
    """NumPy's and SciPy's extension modules, the standard library's (lib-dynload)."""
    for name in [m for m in sys.modules if m.split(".")[0] in ("scipy",)]:
        sys.modules.pop(name, None)
    sys.modules.pop("_decimal", None)
    run("import numpy, decimal, _decimal\nfrom scipy import linalg, sparse\n"
        "numpy.linalg.norm(numpy.ones(3))")


def test_removed_rule_restores_the_loaders(tmp_path):
    import _imp
    import zipimport
    from importlib import _bootstrap_external, machinery

    import pkgutil
    import runpy
    import site

    def hooks():
        return (machinery.SourcelessFileLoader.get_code, _imp.create_dynamic,
                zipimport.zipimporter.__init__, _bootstrap_external.cache_from_source,
                site.addpackage, pkgutil.read_code, getattr(runpy, "read_code", None))

    before = hooks()
    rule = ImportRule(ALLOWED_PACKAGES, str(tmp_path)).install()
    assert all(a is not b for a, b in zip(hooks()[:-1], before))
    rule.remove()
    assert hooks() == before


def test_packages_installed_inside_the_submissions_folder_are_the_libraries(tmp_path):
    """A notebook kept in the home folder, whose packages were installed with `pip install
    --user` (~/.local/lib/pythonX.Y/site-packages, on sys.path): the installed package's own
    imports and its extension modules are the library's, not the submission's (fourth red-team
    round: andrea-conform refused matplotlib's import of packaging and NumPy's
    _pocketfft_umath there, while the grader passed the same notebook). A folder handed in
    under the name site-packages is still the submission's."""
    import _bisect
    import subprocess

    home = tmp_path / "home"
    site_dir = home / ".local" / "lib" / "site-packages"
    pkg = site_dir / "libpkg"
    pkg.mkdir(parents=True)
    so = Path(getattr(_bisect, "__file__", "") or "")
    if not so.name.startswith("_bisect."):
        pytest.skip("_bisect is built into this Python: no extension module to copy")
    (pkg / so.name).write_bytes(so.read_bytes())
    (pkg / "__init__.py").write_text("import libdep\nfrom libpkg import _bisect\n")
    (site_dir / "libdep.py").write_text("X = 1\n")
    (home / "hw.py").write_text("import libpkg\nOK = libpkg._bisect.bisect_right([1, 2], 1)\n")
    own = home / "site-packages"                  # the submission's own folder, so named
    own.mkdir()
    (own / so.name).write_bytes(so.read_bytes())
    (own / "hw.py").write_text("import _bisect\n")
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "from andrea_runtime.import_rule import ImportRule\n"
        f"sys.path[:0] = [{str(site_dir)!r}]\n"
        "def load(folder):\n"
        "    rule = ImportRule(['libpkg'], folder).install()\n"
        "    try:\n"
        "        ns = {}\n"
        "        exec(compile(open(folder + '/hw.py').read(), folder + '/hw.py', 'exec'), ns)\n"
        "        return 'ok'\n"
        "    except ImportError as exc:\n"
        "        return 'refused: ' + str(exc)[:120]\n"
        "    finally:\n"
        "        rule.remove()\n"
        f"print(load({str(home)!r}))\n"
        f"sys.path.insert(0, {str(own)!r}); sys.modules.pop('_bisect', None)\n"
        f"print(load({str(own)!r}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, timeout=120)
    lines = out.stdout.splitlines()
    assert lines[:1] == ["ok"], (out.stdout, out.stderr)
    assert len(lines) == 2 and lines[1].startswith("refused"), (out.stdout, out.stderr)
    assert "not Python source" in lines[1], lines
