"""Hostile (tamper scan, copy detection): native code run in the worker with no flag: a shared
library decoded at run time from a data file into the worker's writable home, and loaded with
NumPy's ``numpy.ctypeslib`` (``load_library``, ``ndpointer``, ``as_ctypes_type``): ctypes is
never named, no file handed in is a native library (the bytes are XOR-ed), and the import
rule's refusal of native code wraps ``_imp.create_dynamic`` (extension modules) only, not
``dlopen``.

The test hands in this file as `submission.py` beside `blob.bin`, a small C library (vnorm,
vdot) XOR-ed with one byte; norm and dot call it. A native library in the worker can change
the worker's memory (the threat model's ``native`` rule: ctypes, mmap).

Expected: a ``grader_tamper`` flag (rule ``native``: numpy.ctypeslib is ctypes), or the library
does not load (the worker's writable folders mounted noexec).
Happened (main at edebcec, bubblewrap): dot and norm passed, computed by the native library,
with no tamper flag. Now flagged (``native``: numpy.ctypeslib); the library still loads (the
writable tmpfs is not noexec; ctypes could reach dlopen however it is wrapped).
"""
import os
import tempfile
from pathlib import Path

import numpy as np
import numpy.ctypeslib as npc

_dir = tempfile.mkdtemp()
_path = os.path.join(_dir, ".".join(["libfast", "so"]))
with open(_path, "wb") as _f:
    _f.write(bytes(b ^ 0x5A for b in Path(__file__).with_name("blob.bin").read_bytes()))
_lib = npc.load_library("libfast", _dir)
_f32 = npc.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")
_long, _double = npc.as_ctypes_type(np.int64), npc.as_ctypes_type(np.float64)
_lib.vnorm.argtypes, _lib.vnorm.restype = [_f32, _long], _double
_lib.vdot.argtypes, _lib.vdot.restype = [_f32, _f32, _long], _double


def norm(v):
    v = np.ascontiguousarray(v, dtype=np.float32)
    return float(_lib.vnorm(v, v.size))


def dot(u, v):
    u = np.ascontiguousarray(u, dtype=np.float32)
    v = np.ascontiguousarray(v, dtype=np.float32)
    return float(_lib.vdot(u, v, u.size))
