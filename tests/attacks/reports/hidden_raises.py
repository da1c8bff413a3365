"""Hostile (hidden verdicts): a function of a hidden or after-the-due-date group raises an
exception of its own on every call.

Expected (tests/grade/test_hidden_results.py): the hidden checks fail; what students see
before publication is the correct submission's, byte for byte.
"""


class HiddenError(RuntimeError):
    pass


def hidden_fault(fn):
    def raises(*args, **kwargs):
        raise HiddenError("raised by a hidden function")

    return raises
