"""Hostile (hidden verdicts): a function of a hidden group answers correctly but then changes
its array arguments in place. The purity check (EMB-PURE-01, a visible check) is charged with
the arguments any check's call changed: it ran after every other check, so a hidden check's
call turned a visible verdict into a failure.

Expected (tests/grade/test_hidden_results.py): the purity check runs after the visible checks
only, before any hidden one; what students see before publication is the correct
submission's, byte for byte.
"""
import numpy as np


def hidden_fault(fn):
    def mutates(*args, **kwargs):
        out = fn(*args, **kwargs)
        for a in args:
            if isinstance(a, np.ndarray) and a.size and a.flags.writeable:
                a.flat[0] = a.flat[0] + 1
        return out

    return mutates
