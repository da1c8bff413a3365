"""Hostile (reads the kit where it is installed into the system's Python): the sandbox binds
/usr and the interpreter's prefix whole, so `pip install .` into them would put andrea_ref, the
spec and the reference kernels inside the sandbox. The test pretends that a standard-library
package (xmlrpc) is part of the kit; this file prints what it finds of it.

Expected: the kit's folders are covered by an empty read-only tmpfs: nothing to list.
"""
import os

_DIR = os.path.join(os.path.dirname(os.__file__), "xmlrpc")
try:
    print("KIT-LISTING", sorted(os.listdir(_DIR)))
except OSError as exc:
    print("KIT-LISTING error", type(exc).__name__)


def norm(v):
    return float(sum(float(x) * float(x) for x in v)) ** 0.5
