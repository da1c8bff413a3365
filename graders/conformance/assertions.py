"""Precise assertions for conformance checks.

Every failure says what came back and what the spec wants, as a message template (a gettext
msgid) with its fields, plus the call that produced it:

    out.shape=(3, 4), but should be (3, 5)
    lookup(table=<float32 array of shape (10, 5)>, token_ids=np.array([0, 1, 2], dtype=np.int64))

Comparisons follow the spec's semantics: bit-for-bit where the operation does no arithmetic,
and relative to the problem's scale (not the result's) where it sums.
"""

from __future__ import annotations

import math
import reprlib
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from . import hints
from .registry import ConformanceError


def parameters(function: str) -> tuple[str, ...]:
    """The parameter names of a contract function (the spec's ``contract:``), so a failing
    call reads as the assignment does: embed_backward(token_ids=..., grad_out=..., ...)."""
    return _parameters().get(function, ())


@lru_cache(maxsize=None)
def _parameters() -> dict[str, tuple[str, ...]]:
    from spec import load_spec

    return {f.name: f.params for f in load_spec().contract.functions}


class Shown(str):
    """An argument shown as this text (e.g. ``np.random.default_rng(7)`` for a Generator)."""


_SEEDED: dict[int, tuple[int, np.random.Generator, dict]] = {}


def private_args(impl, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays to pass to one call into `impl`: copies, so that an implementation that
    changes its arguments in place cannot change the check's own data (EMB-PURE-01 reports the
    change itself). When every call already crosses as copies (its type says
    ``passes_copies = True``: the runner's wrapper, the grader's proxy) the arrays are passed as
    they are. The type is asked, not the object, so a submitted module cannot claim it."""
    if getattr(type(impl), "passes_copies", False) is True:
        return arrays
    return tuple(a.copy() for a in arrays)


def seeded_rng(seed: int) -> np.random.Generator:
    """``np.random.default_rng(seed)``, remembered so that a reproducer can show it as that
    call rather than as the generator's internal state."""
    rng = np.random.default_rng(seed)
    if len(_SEEDED) > 256:
        _SEEDED.clear()
    _SEEDED[id(rng)] = (seed, rng, rng.bit_generator.state)
    return rng


def seed_of(rng: np.random.Generator) -> int | None:
    """The seed of a generator from :func:`seeded_rng` that has not drawn yet, else None."""
    entry = _SEEDED.get(id(rng))
    if entry is None or entry[1] is not rng or rng.bit_generator.state != entry[2]:
        return None
    return entry[0]


# The most characters any value of an implementation takes in a message. Values are shown
# through bounded_repr, which never builds the whole repr of a large value first.
MAX_VALUE_CHARS = 200
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = MAX_VALUE_CHARS
_REPR.maxlong = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8
_REPR.maxlevel = 3


class BoundedValue(str):
    """A value shown through :func:`bounded_repr`: repr and every format spec give that text."""

    def __repr__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__str__(self)


def bounded_repr(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """repr(value), at most `limit` characters, built without the whole repr of a large value."""
    if isinstance(value, np.ndarray):
        text = describe(value)
    elif isinstance(value, (str, bytes, bytearray)) and len(value) > limit:
        unit = "characters" if isinstance(value, str) else "bytes"
        text = f"{value[:limit]!r}... ({len(value)} {unit})"
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        text = f"<an int of {value.bit_length()} bits>"
    else:
        try:
            text = _REPR.repr(value)
        except Exception:  # noqa: BLE001 - a value whose repr fails is shown by its type
            text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def said_of(exc: BaseException) -> dict | None:
    """The kernel executor's finding that `exc` carries (``{"msgid", "fields"}``: andrea_gpu's
    KernelError, or one rebuilt from a grading worker's reply), else None. A message field
    ``X_said`` holds it beside the English ``X``, so a grader can show it translated."""
    said = getattr(exc, "_andrea_said", None)
    if said is None and type(exc).__module__.startswith("andrea_gpu."):
        try:
            said = exc.translatable()
        except Exception:  # noqa: BLE001 - no finding then
            said = None
    return said if isinstance(said, dict) else None


def _bounded_field(value: Any) -> Any:
    """A message field as is when small (numbers, short text), else its bounded repr."""
    if value is None or isinstance(value, (bool, float, np.floating, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)) and int(value).bit_length() <= 200:
        return value
    if type(value) is str and len(value) <= MAX_VALUE_CHARS:
        return value
    if (type(value) in (tuple, list) and len(value) <= 32
            and all(type(v) is not type(value) and _bounded_field(v) is v for v in value)):
        return value   # a shape, a short list of numbers
    if isinstance(value, BoundedValue):
        return value
    return BoundedValue(bounded_repr(value))


def describe(value: Any, limit: int = 8) -> str:
    """A short, readable form of an argument: small arrays inline, large ones by dtype and shape."""
    if isinstance(value, Shown):
        return str(value)
    if isinstance(value, np.ndarray):
        if value.size <= limit:
            return f"np.array({value.tolist()!r}, dtype=np.{value.dtype.name})"
        return f"<{value.dtype.name} array of shape {tuple(value.shape)}>"
    if isinstance(value, np.random.Generator):
        return "np.random.Generator(...)"
    return bounded_repr(value, 60)


def call_repr(fn: str, *args: Any, **kwargs: Any) -> str:
    """``fn(name=value, ...)`` with the contract's parameter names."""
    names = parameters(fn)
    parts = [f"{names[i]}={describe(a)}" if i < len(names) else describe(a)
             for i, a in enumerate(args)]
    parts += [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return f"{fn}({', '.join(parts)})"


MSG_MUTATED = ("{function}() changed its input in place ({arguments}), but no function may "
               "modify its arguments")


def mutation(function: str, keys) -> ConformanceError:
    """The violation of a call that changed arguments in place (EMB-PURE-01, BWD-PURE-01: for
    every function); `keys` are argument positions or keyword names."""
    names = parameters(function)
    shown = ", ".join(names[k] if isinstance(k, int) and 0 <= k < len(names)
                      else f"argument {str(k)[:40]}" for k in list(keys)[:8])
    fields = {"function": function, "arguments": shown}
    return ConformanceError(MSG_MUTATED.format(**fields), hint=hints.MUTATION,
                            template=MSG_MUTATED, fields=fields)


def fail(template: str, call: str | None = None, hint: str | Callable[[], str | None] | None = None, *,
         cause: str = "wrong_value", **fields: Any):
    """Raise the violation `template` (an English msgid with ``str.format`` fields); every field
    that holds a value of the implementation is bounded (see bounded_repr).

    `hint` may be a function of no arguments: it is called only here, when the check fails, so
    a costly diagnosis (which common bug does this output match?) is not paid on every pass.
    """
    if callable(hint):
        hint = hint()
    fields = {k: v if k.endswith("_said") and isinstance(v, dict) else _bounded_field(v)
              for k, v in fields.items()}
    raise ConformanceError(template.format(**fields), hint=hint, cause=cause,
                           template=template, fields=fields, call=call)


def as_array(name: str, value: Any, call: str, *, exact_type: bool = False) -> np.ndarray:
    """The implementation's result as a real-valued ndarray; anything else is a failure.

    A (nested) list or tuple of real numbers is read as the array it spells, unless
    `exact_type`: that the result is an ndarray of the right dtype is one clause's
    (EMB-LOOKUP-03, EMB-DTYPE-01, BWD-SHAPE-01, INIT-SHAPE-01, whose checks ask for the exact
    type), so ``table[ids].tolist()`` costs points there, once, and its values, which are right,
    are judged as values everywhere else.
    """
    if isinstance(value, (list, tuple)) and not exact_type:
        try:
            arr = np.asarray(value)
        except Exception:  # noqa: BLE001 - ragged or strange: not an array of numbers
            arr = None
        if arr is not None and arr.dtype.kind in "biuf":
            return arr
    if not isinstance(value, np.ndarray):
        fail("{name} is a {type}, but should be a numpy.ndarray", call,
             name=name, type=type(value).__name__)
    if value.dtype.kind not in "biuf":
        fail("{name} has dtype {dtype}, but should hold real numbers", call,
             name=name, dtype=str(value.dtype))
    return value


def in_shape(got: np.ndarray, want: tuple) -> np.ndarray:
    """`got` in the shape `want` when it is `want` with axes of length 1 dropped or added, or
    with neighbouring axes merged (a result that was squeezed, or flattened to (B*T, d)): the
    values then sit in the same row-major order, the shape is its own clause's (EMB-LOOKUP-03,
    EMB-COMB-02), and a value check judges the values, so a bug of the shape alone costs
    points once. Anything else (axes swapped, another size) is returned as it is and fails the
    value check's own shape test."""
    want = tuple(want)
    if got.shape == want or got.size != math.prod(want):
        return got
    mine = [n for n in got.shape if n != 1]
    theirs = iter(n for n in want if n != 1)
    for n in mine:                      # each of got's axes is a run of want's axes, in order
        run = 1
        while run < n:
            run *= next(theirs, n + 1)
        if run != n:
            return got
    return got.reshape(want) if next(theirs, None) is None else got


def assert_shape(name: str, got: np.ndarray, want: tuple, call: str) -> None:
    if tuple(got.shape) != tuple(want):
        fail("{name}.shape={got}, but should be {want}", call,
             name=name, got=tuple(got.shape), want=tuple(want))


def assert_dtype(name: str, got: np.ndarray, want, call: str, hint: str | Callable[[], str | None] | None = None) -> None:
    want = np.dtype(want)
    if got.dtype != want:
        fail("{name}.dtype={got}, but should be {want}", call, hint,
             name=name, got=got.dtype.name, want=want.name)


def _item(a: np.ndarray, idx) -> Any:
    """One element as a plain Python value (reads 1.5, not np.float32(1.5))."""
    return np.asarray(a)[idx].item()


def _first_mismatch(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _index(idx) -> str:
    return ", ".join(map(str, idx))


def assert_bitwise_equal(name: str, got: np.ndarray, want: np.ndarray, call: str,
                         hint: str | Callable[[], str | None] | None = None) -> None:
    """Identical bits (NaN payloads and -0.0 included): for operations that do no arithmetic.

    When only -0.0 became 0.0 or a NaN spread to other elements, the hint says that the
    operation did arithmetic (e.g. a one-hot product) where it should only copy.
    """
    assert_shape(name, got, want.shape, call)
    assert_dtype(name, got, want.dtype, call)
    g = np.ascontiguousarray(got).view(np.uint8).reshape(got.shape + (-1,))
    w = np.ascontiguousarray(want).view(np.uint8).reshape(want.shape + (-1,))
    bad = np.any(g != w, axis=-1)
    if bad.any():
        idx = _first_mismatch(bad)
        fail("{name}[{index}]={got!r}, but should be {want!r} (bit for bit; {bad} of {size} "
             "elements differ)", call, (hint() if callable(hint) else hint) or _arithmetic_hint(got, want),
             name=name, index=_index(idx), got=_item(got, idx), want=_item(want, idx),
             bad=int(bad.sum()), size=int(bad.size))


def _arithmetic_hint(got: np.ndarray, want: np.ndarray) -> str | None:
    """The hint for a copy that went through arithmetic: -0.0 lost its sign, or NaN spread."""
    from . import hints

    if got.dtype.kind != "f":
        return None
    same_value = (got == want) | (np.isnan(got) & np.isnan(want))
    zero_sign = (want == 0) & (got == 0) & (np.signbit(want) != np.signbit(got))
    nan_spread = np.isnan(got) & ~np.isnan(want)
    if nan_spread.any() and np.isnan(want).any():
        return hints.ARITHMETIC_LOOKUP
    if zero_sign.any() and np.all(same_value | ~np.isfinite(want)):
        return hints.ARITHMETIC_LOOKUP
    return None


def assert_equal(name: str, got: np.ndarray, want: np.ndarray, call: str,
                 hint: str | Callable[[], str | None] | None = None) -> None:
    """Exactly equal values (finite data)."""
    assert_shape(name, got, want.shape, call)
    bad = got != want
    if np.any(bad):
        idx = _first_mismatch(bad)
        fail("{name}[{index}]={got!r}, but should be exactly {want!r} ({bad} of {size} "
             "elements differ)", call, hint, name=name, index=_index(idx),
             got=_item(got, idx), want=_item(want, idx), bad=int(bad.sum()), size=int(bad.size))


def assert_close_scaled(name: str, got, want, scale, tol: float, call: str,
                        hint: str | Callable[[], str | None] | None = None) -> None:
    """|got - want| <= tol * scale element-wise; `scale` is the problem's size, not |want|.

    For a sum of n terms `scale` is n * sum(|terms|) (or n |u||v| for a dot product), so any
    summation order or accumulator width passes and a missing or doubled term does not.
    """
    got_a = np.asarray(got, dtype=np.float64)
    want_a = np.asarray(want, dtype=np.float64)
    if got_a.shape != want_a.shape:
        fail("{name}.shape={got}, but should be {want}", call,
             name=name, got=got_a.shape, want=want_a.shape)
    bound = tol * np.asarray(scale, dtype=np.float64)
    err = np.abs(got_a - want_a)
    bad = ~(err <= bound)  # NaN counts as bad
    if np.any(bad):
        if got_a.ndim == 0:
            fail("{name}={got!r}, but should be {want!r} (|error| {error:.3g} > allowed "
                 "{allowed:.3g})", call, hint, name=name, got=float(got_a),
                 want=float(want_a), error=float(err), allowed=float(bound))
        idx = _first_mismatch(bad)
        b = bound[idx] if np.ndim(bound) else bound
        fail("{name}[{index}]={got!r}, but should be {want!r} (|error| {error:.3g} > allowed "
             "{allowed:.3g}; {bad} of {size} elements off)", call, hint, name=name,
             index=_index(idx), got=_item(got_a, idx), want=_item(want_a, idx),
             error=float(err[idx]), allowed=float(b), bad=int(bad.sum()), size=int(bad.size))


#: The error types of the contract (error_inputs.py): an exception may be only one of them.
#: Other bases do not count: no check expects them, so they cannot pass one (a student's
#: ``class UnknownId(IndexError, KeyError)`` is a correct IndexError).
ERROR_TYPES = (TypeError, ValueError, IndexError)


def assert_raises(expected: type[BaseException], fn: Callable, *args: Any, call: str,
                  hint: str | Callable[[], str | None] | None = None, **kwargs: Any) -> BaseException:
    """`fn(*args)` must raise `expected` (a subclass counts), and not an exception that is
    also another of the contract's error types (one class deriving from TypeError, ValueError
    and IndexError at once would pass every error check without telling the errors apart).
    Returns the exception."""
    try:
        fn(*args, **kwargs)
    except ConformanceError:   # the call's own verdict (a result too large to read)
        raise
    except expected as exc:
        also = [t.__name__ for t in ERROR_TYPES
                if isinstance(exc, t) and not issubclass(expected, t) and not issubclass(t, expected)]
        if also:
            fail("{function}() raised {got}, which is a {want} but also a {also}: each error "
                 "must be raised as its own type", call, hint, cause="wrong_exception",
                 function=_function(call, fn), got=type(exc).__name__, want=expected.__name__,
                 also=" and a ".join(also))
        return exc
    except Exception as exc:  # noqa: BLE001 - a wrong exception type is the finding
        if type(exc).__name__ == expected.__name__:     # a class of its own, named like it
            fail("{function}() raised its own class named {got} ({error!r}), which is not the "
                 "built-in {want}: raise {want} itself or a subclass of it", call, hint,
                 cause="wrong_exception", function=_function(call, fn), got=type(exc).__name__,
                 error=str(exc)[:120], want=expected.__name__)
        said = said_of(exc)  # a kernel finding: its line and threads come last, keep them
        fail("{function}() raised {got}({error!r}), but should raise {want}", call, hint,
             cause="wrong_exception", function=_function(call, fn), got=type(exc).__name__,
             error=str(exc)[:120] if said is None else BoundedValue(repr(str(exc)[:1000])),
             want=expected.__name__, error_said=said)
    fail("{function}() returned normally, but should raise {want}", call, hint,
         cause="wrong_exception", function=_function(call, fn), want=expected.__name__)


def _function(call: str | None, fn: Callable) -> str:
    if call and "(" in call:
        return call.split("(", 1)[0]
    return getattr(fn, "__name__", "function")


def scalar(name: str, value: Any, call: str) -> float:
    """A real number result (Python or NumPy scalar, or a 0-d array)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if (isinstance(value, (bool, np.bool_, complex, np.complexfloating))
            or not isinstance(value, (int, float, np.number))):
        fail("{name} is a {type}, but should be a real number", call,
             name=name, type=type(value).__name__)
    v = float(value)
    if math.isnan(v):
        fail("{name} is nan, but should be a number", call, name=name)
    return v
