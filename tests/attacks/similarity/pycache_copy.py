"""Hostile (copy detection): a module's bytecode cache written at run time, so an honest-looking
`helper.py` runs the reference.

The test hands in a folder: this file as `submission.py`, a `helper.py` whose functions are an
honest attempt (they raise NotImplementedError), and `cache.bin`: the reference compiled as an
*unchecked hash-based* .pyc (PEP 552), which Python loads for `helper.py` without reading the
source at all. The folder reader skips `__pycache__` and the worker's copy of the folder is
read-only, so this file copies `helper.py` to a scratch folder, writes the cache there, puts the
folder first on `sys.path` and imports its own module: a plain `import` of a module named like
a .py file beside it, no loader, no `exec`. Copy detection and the tamper scan read `helper.py`, which is not the code that runs.

Expected: the worker never reads the bytecode cache of a file of the submission (the import rule
makes `cache_from_source` fail for paths outside the interpreter's and the installed packages'
folders): `helper.py`'s source runs (its checks fail); the staff see `cache.bin` (a .pyc's magic
number) and `cache_from_source` flagged (rule ``compiled``).
"""
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

_here = Path(__file__).resolve().parent
_dir = Path(tempfile.mkdtemp())
shutil.copyfile(_here / "helper.py", _dir / "helper.py")
_cache = Path(importlib.util.cache_from_source(str(_dir / "helper.py")))
_cache.parent.mkdir(exist_ok=True)
shutil.copyfile(_here / "cache.bin", _cache)
sys.path.insert(0, str(_dir))

from helper import *  # noqa: E402,F401,F403 - the module whose cache was just written
