"""Hostile (copy detection): the reference as a native extension module (a .so) beside a short
`submission.py`.

The test hands in a folder: this file as `submission.py` and `fastpath.so` (an ELF shared object:
what Cython or a C compiler makes of the reference). An `import fastpath` is refused (own
modules are .py files), so this file loads it with importlib's `ExtensionFileLoader`. Machine
code cannot be fingerprinted, and nothing here names what the tamper scan looked for.

Expected: the worker refuses to load a native library from the submission's folder (the import
rule wraps `_imp.create_dynamic`, what every extension loader calls: only the interpreter's and
the installed packages' folders may provide one): an ImportError the student reads in their
language; the staff see `fastpath.so` (its ELF header) and the loader flagged (``compiled``).
"""
from importlib.machinery import ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path

_path = str(Path(__file__).with_name("fastpath.so"))
_loader = ExtensionFileLoader("fastpath", _path)
_mod = module_from_spec(spec_from_loader("fastpath", _loader, origin=_path))
_loader.exec_module(_mod)

lookup, embed, embed_backward = _mod.lookup, _mod.embed, _mod.embed_backward
init_table, dot, norm, cosine_similarity = _mod.init_table, _mod.dot, _mod.norm, _mod.cosine_similarity
