"""Hostile (import rule, tamper scan): the import rule switched off from the submission in one
line with no flagged name, ``builtins.__import__.__self__.remove()`` (the rule's guarded import
is a bound method of the rule), then a native extension module decoded at run time into the
submission's writable folder and imported with a plain ``import``.

The test hands in this file as `submission.py` beside `blob.bin`, a C extension module
`fastpath` (its norm) XOR-ed with one byte. Its file name is built at run time from
``sysconfig``'s suffix, so no string names a native library; the copy's folder is writable
since ee1426c. With the rule removed, ``_imp.create_dynamic`` is NumPy's and the standard
library's again, and every import is allowed.

Expected: the rule cannot be removed by the submission (or the attempt is flagged for the
staff), and a native module from the submission's folder does not load.
Happened (main at edebcec, bubblewrap): vector_norm passed, computed by the native module;
no tamper flag. Now the rule installs plain functions (no ``__self__``: the line raises
AttributeError at import) and ``__self__`` is flagged (rule ``code``).
"""
import builtins
import sysconfig
from pathlib import Path

builtins.__import__.__self__.remove()

_here = Path(__file__).resolve().parent
_name = "fastpath" + sysconfig.get_config_var("EXT_SUFFIX")
(_here / _name).write_bytes(bytes(b ^ 0x5A for b in (_here / "blob.bin").read_bytes()))

import numpy as np  # noqa: E402

import fastpath  # noqa: E402


def norm(v):
    return fastpath.vnorm(np.ascontiguousarray(v, dtype=np.float64))
