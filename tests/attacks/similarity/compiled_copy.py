"""Hostile (copy detection): the reference handed in as compiled bytecode.

The test hands in a folder: this file as `submission.py` and `fastpath.pyc`, the reference's
`embedding.py`, `vectors.py` and argument checks joined into one module and compiled for the
grader's Python (`py_compile`). An `import fastpath` is refused (the import rule takes a
submission's own modules from its .py files), so this file loads the bytecode with importlib's
`SourcelessFileLoader`, which is no import statement, no `exec`, no `marshal` and no
`sys.modules`.

What it did (before the fix): 100 / 100 and no flag at all. Copy detection fingerprints Python
source (a .pyc holds NUL bytes, so it is not "Python under another name"), and the tamper scan
read the 15 lines below, none of which it named; the staff read a loader and saw nothing of the
copy. Two students handing in the same .pyc were no similar pair either.

Expected (and done): code that is not source cannot be compared, so it never passes silently.
The worker refuses to load compiled code from the submission's folder (the import rule,
``andrea_runtime/import_rule.py``: an ImportError the student reads in their language, every
check not run), and the tamper scan flags it for the staff (rule ``compiled``): the .pyc file
(its magic number) and the loader's lines.
"""
from importlib.machinery import SourcelessFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path

_loader = SourcelessFileLoader("fastpath", str(Path(__file__).with_name("fastpath.pyc")))
_mod = module_from_spec(spec_from_loader("fastpath", _loader))
_loader.exec_module(_mod)

lookup, embed, embed_backward = _mod.lookup, _mod.embed, _mod.embed_backward
init_table, dot, norm, cosine_similarity = _mod.init_table, _mod.dot, _mod.norm, _mod.cosine_similarity
token_embedding_params = _mod.token_embedding_params
position_embedding_params = _mod.position_embedding_params
embedding_params = _mod.embedding_params
