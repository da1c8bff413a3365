"""Hostile (copy detection, tamper scan): the reference's source kept as scrambled bytes in a
data file and run by a source loader of the submission's own, with no exec, eval, compile,
marshal or decoding module named anywhere.

The test hands in a folder: this file as `submission.py`, an empty `fastpath.py` (so the
loader's path is a .py literal that exists) and `vocab.bin`, the reference module XOR-ed with
one byte. The loader subclasses importlib's `SourceFileLoader` and overrides `get_data`: the
import system compiles and runs what it returns. Copy detection reads `submission.py` and the
empty `fastpath.py`; the tamper scan sees a class statement and `spec_from_loader`.

Expected: the staff are shown a ``grader_tamper`` flag (code built at run time from data, as
``exec(zlib.decompress(...))`` is), or the copy does not run.
Happened (main at edebcec, bubblewrap): both checks passed, no tamper flag at all, no copy
flag: a copy of another student's code handed in this way is invisible to the staff. Now
flagged (rule ``exec``: a class deriving from importlib's loaders); the copy still runs.
"""
import importlib.machinery
import importlib.util
from pathlib import Path

_HERE = Path(__file__).resolve().parent


class _Loader(importlib.machinery.SourceFileLoader):
    def get_data(self, path):
        if str(path).endswith(".py"):
            return bytes(b ^ 0x5A for b in (_HERE / "vocab.bin").read_bytes())
        return super().get_data(path)


_spec = importlib.util.spec_from_loader("fastpath", _Loader("fastpath", str(_HERE / "fastpath.py")))
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)

lookup, embed, embed_backward = _mod.lookup, _mod.embed, _mod.embed_backward
init_table, dot, norm, cosine_similarity = _mod.init_table, _mod.dot, _mod.norm, _mod.cosine_similarity
