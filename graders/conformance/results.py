"""How large a contract function's result may be for given arguments, judged before it is read.

Every contract function's result has a size its arguments fix (the spec's ``contract:``
``returns``): ``lookup(table, token_ids)`` gives ``token_ids.size * d_model`` values,
``embed_backward(ids, grad, V, context)`` gives ``(V + context) * d``, a count or a norm one.
A result far larger than that is wrong whatever its values, and reading it is what costs:
a submission answering every call with 376 MB of zeros (still under the 384 MiB reply cap)
took the grader to 7.5 GB while the checks decoded, converted and kept each answer. So the
size is judged first, the same way in both places a result arrives:

* the grader's proxy (``graders/grade/proxy.py``) sends :func:`allowed_values` and
  :func:`reply_bytes` with each request; the worker answers a larger result with its size
  alone, and a reply longer than the bound is never read (the worker is killed);
* the kit's runner (``andrea-conform``, in process) counts the returned value with
  :func:`count_values` before any check looks at it.

Either way the check fails with :data:`MSG_TOO_LARGE` ("lookup() returned 47000000 values
where 8 were expected"), or, where the worker's reply was too long for values within the bound
(a string of characters that take several bytes each), :data:`MSG_TOO_MANY_BYTES` ("lookup()
returned a result of 360012 bytes where 4 values were expected ... (at most 262528 bytes)").
Both have plural forms, chosen by the values expected ("where 1 was expected"). The bound leaves room for every honest mistake of shape (twice the
expected values, and :data:`FLOOR` more): a transposed, squeezed, unsummed or float64 result
is still read and judged by its check.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable

import numpy as np

from andrea_runtime import protocol as P

from .messages import MSG_TOO_LARGE, MSG_TOO_MANY_BYTES  # noqa: F401 - their home
from .registry import ConformanceError

#: A result may hold this many times the values the contract gives for the arguments ...
SLACK = 2
#: ... plus this many (small results: a whole small table, a one-hot matrix, a list).
FLOOR = 4096
#: Bytes a reply may take per allowed value: 16 for the widest array element (complex128),
#: and room for a value written as JSON in the reply's header (a list of floats).
BYTES_PER_VALUE = 48
#: Bytes of every reply beyond its values (the header's keys, a Generator's state).
REPLY_OVERHEAD = 1 << 16



def _index(value: Any) -> int | None:
    """`value` as a non-negative int (Python or NumPy integer), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        n = operator.index(value)
    except TypeError:
        return None
    return n if n >= 0 else None


def _size(value: Any) -> int | None:
    """The number of elements of an array-like argument (an ndarray, a nested list, a number)."""
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (int, float, np.generic)):
        return 1
    if isinstance(value, (list, tuple)):   # the check's own argument (e.g. positions)
        try:
            return int(np.size(value))
        except Exception:  # noqa: BLE001 - ragged: every item counts
            return count_values(value, stop=1 << 40)
    return None


def _last(value: Any) -> int | None:
    """The length of the last axis of an array argument (d_model of a table)."""
    if isinstance(value, np.ndarray):
        return int(value.shape[-1]) if value.ndim else 1
    if isinstance(value, (list, tuple)):
        try:
            shape = np.shape(value)
        except Exception:  # noqa: BLE001 - ragged: no d_model to read
            return None
        return int(shape[-1]) if shape else 1
    return None


def _product(*factors: int | None) -> int | None:
    return None if any(f is None for f in factors) else math.prod(factors)


def _sum(*terms: int | None) -> int | None:
    return None if any(t is None for t in terms) else sum(terms)


# The values each contract function returns, from its arguments by the contract's parameter
# names; None where the arguments fix no size (an error input: the function must raise, so no
# result is expected, and :func:`expected_values` says 0).
EXPECTED: dict[str, Callable[[dict], int | None]] = {
    "token_embedding_params": lambda a: 1,
    "position_embedding_params": lambda a: 1,
    "embedding_params": lambda a: 1,
    "init_table": lambda a: _product(_index(a.get("num_rows")), _index(a.get("d_model"))),
    "lookup": lambda a: _product(_size(a.get("token_ids")), _last(a.get("table"))),
    "embed": lambda a: _product(_size(a.get("token_ids")), _last(a.get("token_table"))),
    "embed_backward": lambda a: _product(
        _sum(_index(a.get("vocab_size")), _index(a.get("context_length"))),
        _last(a.get("grad_out"))),
    "dot": lambda a: 1,
    "norm": lambda a: 1,
    "cosine_similarity": lambda a: 1,
    "sinusoidal_encoding": lambda a: _product(_size(a.get("positions")),
                                              _index(a.get("d_model"))),
    "rope": lambda a: _size(a.get("x")),
}


def expected_values(function: str, args: tuple, kwargs: dict) -> int | None:
    """How many values `function(*args, **kwargs)` returns by the contract: 0 for arguments
    that fix no size (an error input, which must raise), None for a function the contract does
    not have (only the reply cap applies)."""
    from .assertions import parameters

    rule = EXPECTED.get(function)
    if rule is None:
        return None
    names = parameters(function)
    bound = {names[i]: a for i, a in enumerate(args) if i < len(names)}
    bound.update(kwargs)
    try:
        n = rule(bound)
    except Exception:  # noqa: BLE001 - arguments the rule cannot read: an error input
        n = None
    return n if isinstance(n, int) and n >= 0 else 0


def allowed_values(want: int | None) -> int | None:
    """The most values a result may hold when `want` are expected (None: no bound)."""
    return None if want is None else SLACK * want + FLOOR


def reply_bytes(allowed: int | None) -> int | None:
    """The longest reply that can carry `allowed` values (None: no bound but the cap)."""
    return None if allowed is None else BYTES_PER_VALUE * allowed + REPLY_OVERHEAD


def count_values(value: Any, stop: int | None = None) -> int:
    """The values `value` holds (``andrea_runtime.protocol.values_in``: the worker counts a
    result the same way)."""
    return P.values_in(value, stop)


def too_large(function: str, got: int, want: int) -> ConformanceError:
    """The violation of a result of `got` values where `want` were expected."""
    return _violation(MSG_TOO_LARGE, function=function, got=int(got), want=int(want))


def too_many_bytes(function: str, got: int, want: int, limit: int) -> ConformanceError:
    """The violation of a reply of `got` bytes, more than `limit`, the most a result of `want`
    values may take (the worker counted its values within the bound)."""
    return _violation(MSG_TOO_MANY_BYTES, function=function, got=int(got), want=int(want),
                      limit=int(limit))


def _violation(msgid: str, **fields) -> ConformanceError:
    from .i18n import translator

    return ConformanceError(translator("en")(msgid, **fields), template=msgid, fields=fields)
