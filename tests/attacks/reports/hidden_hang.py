"""Hostile (hidden verdicts): a function of a hidden or after-the-due-date group never returns
(a busy loop): each call runs into the per-call limit, its worker is killed and restarted, and
the function is then refused as timed out before.

Expected (tests/grade/test_hidden_results.py): what students see before publication is the
correct submission's, byte for byte: no timeout, no restart, no time taken from a visible
check.
"""


def hidden_fault(fn):
    def hang(*args, **kwargs):
        while True:
            pass

    return hang
