"""Precise assertions for conformance checks.

Every failure says what came back, what the spec wants, and the call that produced it:

    out.shape=(3, 4), but should be (3, 5) [lookup(table=float32(10, 5), token_ids=int64(3,))]

Comparisons follow the spec's semantics: bit-for-bit where the operation does no arithmetic,
and relative to the problem's scale (not the result's) where it sums.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .registry import ConformanceError


def describe(value: Any, limit: int = 8) -> str:
    """A short, readable form of an argument: small arrays inline, large ones by dtype and shape."""
    if isinstance(value, np.ndarray):
        if value.size <= limit:
            return f"np.array({value.tolist()!r}, dtype={value.dtype.name})"
        return f"{value.dtype.name}{value.shape}"
    if isinstance(value, np.random.Generator):
        return "np.random.Generator"
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


def call_repr(fn: str, *args: Any, **kwargs: Any) -> str:
    parts = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return f"{fn}({', '.join(parts)})"


def fail(message: str, call: str | None = None, hint: str | None = None):
    raise ConformanceError(f"{message} [{call}]" if call else message, hint=hint)


def as_array(name: str, value: Any, call: str) -> np.ndarray:
    """The implementation's result as an ndarray; anything else is a failure."""
    if not isinstance(value, np.ndarray):
        fail(f"{name} is a {type(value).__name__}, but should be a numpy.ndarray", call)
    return value


def assert_shape(name: str, got: np.ndarray, want: tuple, call: str) -> None:
    if tuple(got.shape) != tuple(want):
        fail(f"{name}.shape={tuple(got.shape)}, but should be {tuple(want)}", call)


def assert_dtype(name: str, got: np.ndarray, want, call: str) -> None:
    want = np.dtype(want)
    if got.dtype != want:
        fail(f"{name}.dtype={got.dtype.name}, but should be {want.name}", call)


def _item(a: np.ndarray, idx) -> Any:
    """One element as a plain Python value (reads 1.5, not np.float32(1.5))."""
    return np.asarray(a)[idx].item()


def _first_mismatch(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def assert_bitwise_equal(name: str, got: np.ndarray, want: np.ndarray, call: str,
                         hint: str | None = None) -> None:
    """Identical bits (NaN payloads and -0.0 included): for operations that do no arithmetic."""
    assert_shape(name, got, want.shape, call)
    assert_dtype(name, got, want.dtype, call)
    g = np.ascontiguousarray(got).view(np.uint8).reshape(got.shape + (-1,))
    w = np.ascontiguousarray(want).view(np.uint8).reshape(want.shape + (-1,))
    bad = np.any(g != w, axis=-1)
    if bad.any():
        idx = _first_mismatch(bad)
        fail(f"{name}[{', '.join(map(str, idx))}]={_item(got, idx)!r}, but should be "
             f"{_item(want, idx)!r} (bit for bit; {int(bad.sum())} of {bad.size} elements differ)", call, hint)


def assert_equal(name: str, got: np.ndarray, want: np.ndarray, call: str,
                 hint: str | None = None) -> None:
    """Exactly equal values (finite data)."""
    assert_shape(name, got, want.shape, call)
    bad = got != want
    if np.any(bad):
        idx = _first_mismatch(bad)
        fail(f"{name}[{', '.join(map(str, idx))}]={_item(got, idx)!r}, but should be exactly "
             f"{_item(want, idx)!r} ({int(bad.sum())} of {bad.size} elements differ)", call, hint)


def assert_close_scaled(name: str, got, want, scale, tol: float, call: str,
                        hint: str | None = None) -> None:
    """|got - want| <= tol * scale element-wise; `scale` is the problem's size, not |want|.

    For a sum of n terms `scale` is n * sum(|terms|) (or n |u||v| for a dot product), so any
    summation order or accumulator width passes and a missing or doubled term does not.
    """
    got_a = np.asarray(got, dtype=np.float64)
    want_a = np.asarray(want, dtype=np.float64)
    if got_a.shape != want_a.shape:
        fail(f"{name}.shape={got_a.shape}, but should be {want_a.shape}", call)
    bound = tol * np.asarray(scale, dtype=np.float64)
    err = np.abs(got_a - want_a)
    bad = ~(err <= bound)  # NaN counts as bad
    if np.any(bad):
        if got_a.ndim == 0:
            fail(f"{name}={float(got_a)!r}, but should be {float(want_a)!r} "
                 f"(|error| {float(err):.3g} > allowed {float(bound):.3g})", call, hint)
        idx = _first_mismatch(bad)
        b = bound[idx] if np.ndim(bound) else bound
        fail(f"{name}[{', '.join(map(str, idx))}]={_item(got_a, idx)!r}, but should be "
             f"{_item(want_a, idx)!r} "
             f"(|error| {err[idx]:.3g} > allowed {float(b):.3g}; {int(bad.sum())} of "
             f"{bad.size} elements off)", call, hint)


def assert_raises(expected: type[BaseException], fn: Callable, *args: Any, call: str,
                  hint: str | None = None, **kwargs: Any) -> BaseException:
    """`fn(*args)` must raise `expected` (a subclass counts). Returns the exception."""
    try:
        fn(*args, **kwargs)
    except expected as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - a wrong exception type is the finding
        fail(f"raised {type(exc).__name__}({str(exc)[:120]!r}), but should raise "
             f"{expected.__name__}", call, hint)
    fail(f"returned normally, but should raise {expected.__name__}", call, hint)


def scalar(name: str, value: Any, call: str) -> float:
    """A real number result (Python or NumPy scalar, or a 0-d array)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        fail(f"{name} is a {type(value).__name__}, but should be a real number", call)
    v = float(value)
    if math.isnan(v):
        fail(f"{name} is nan, but should be a number", call)
    return v
