"""Hostile (copy detection): a reference copy whose builtins and NumPy functions are called
under names of its own.

The test builds it from the disguised reference (tests/workflow/disguise.py) with `aliased()`:
every builtin the copy names (`len`, `isinstance`, `ValueError`, ...) is bound to a name of its
own first (`_b0 = len`) and called by it, and `np.asarray(...)` becomes `asarray(...)` after
`from numpy import *`. Copy detection kept builtin and attribute names as they are (only other
names became one placeholder), so every k-gram around a call changed: the copy went from 0.81
to unflagged. It runs as the reference does.

Expected: flagged (reference_copy); no honest submission of tests/corpus/correct is, as a
reference copy or in a pair, nor any independent file of tests/workflow/test_copy_flags.py
within half the threshold.
"""
import builtins
import re


def aliased(source: str) -> str:
    """`source` with its builtins called through aliases and NumPy's names imported bare."""
    used = sorted({m for m in re.findall(r"\b([A-Za-z_]+)\b", source)
                   if m in dir(builtins) and m not in ("None", "True", "False")
                   and not m.startswith("__")})
    head = "import builtins as _B\n" + "".join(f"_b{i} = _B.{b}\n" for i, b in enumerate(used))
    for i, b in enumerate(used):
        source = re.sub(rf"(?<![.\w]){b}\b", f"_b{i}", source)
    return "from numpy import *\nimport numpy as np\n" + head + re.sub(r"\bnp\.", "", source)
