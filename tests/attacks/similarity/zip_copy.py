"""Hostile (copy detection): the reference in a zip archive, imported with `zipimport`.

The test hands in a folder: this file as `submission.py` and `lib.zip`, which holds the
reference joined into one module `fastpath.py`. Copy detection reads the folder's files, not the
members of an archive, so the source inside is never compared; `zipimport` (or the archive put
on `sys.path`) runs it.

Expected: the worker refuses a zip archive of the submission as a source of modules (the import
rule wraps `zipimport.zipimporter`: only the interpreter's and the installed packages' archives
load; a path hook passes over a refused one, so an archive on `sys.path` provides nothing): an
ImportError the student reads in their language; the staff see `lib.zip` (a zip archive holding
a module) and `zipimport` flagged (rule ``compiled``).
"""
import zipimport
from importlib.util import module_from_spec
from pathlib import Path

_importer = zipimport.zipimporter(str(Path(__file__).with_name("lib.zip")))
_spec = _importer.find_spec("fastpath")
_mod = module_from_spec(_spec)
_spec.loader.exec_module(_mod)

lookup, embed, embed_backward = _mod.lookup, _mod.embed, _mod.embed_backward
init_table, dot, norm, cosine_similarity = _mod.init_table, _mod.dot, _mod.norm, _mod.cosine_similarity
