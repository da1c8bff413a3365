"""Replaying the inputs a property drew, for the next implementation graded by the same process.

A batch grades hundreds of submissions with the same checks, spec and profile. Hypothesis is
derandomized: what a property draws depends only on the property (its code, strategies and
settings) and on the outcome of each example, and for every implementation that passes the
property that outcome is "passed" each time. So every such implementation gets exactly the same
inputs, in the same order, and working them out again for each one costs more than running
them (in a grading process about half of the CPU time is Hypothesis's generation machinery:
the choice tree, the mutator, the spans of every draw; docs/benchmarks.md).

When enabled (:func:`enable`; the batch's pool processes do it), the first time a property
passes, what each example drew is kept: private copies made as it is drawn, before the body
can touch it, or for a large table the recipe it was built from (strategies.origin), kept only
after the recipe was seen to give the same bytes. The next time the same property runs (same
check, same place in it, same spec, same settings and code) its body is called on copies of
those values, example after example, inside Hypothesis's own seeding of the global random
generators, without the engine. These are the inputs Hypothesis would draw, bit for bit: an
implementation that passes them passes the property, and one that faults on one of them (a
timeout, a crash: not shrunk either way) stops the check on the same call. Anything else ends
the replay and Hypothesis runs the property from its start, as it always does: an example that
fails or raises (so a failing implementation gets the smallest failing example, message and
reproducer it would have had; tests/conformance/test_replay.py compares them), or a body that
asks for other draws than the kept ones (another label, strategy or count). An implementation
that fails a replayed example but passes when Hypothesis asks again (its answers depend on how
often it was asked) fails with the replayed example's failure, as it would graded alone.

What a property draws must not depend on the implementation's answers. The runner counts calls
into the implementation (:func:`note_call`); a property that draws after a call in the same
example is never kept, because its draws could follow the answers.

Memory is bounded: a property whose kept values pass PROPERTY_BYTES is not kept (it always runs
in Hypothesis), and all kept ones together stay under MAX_BYTES (least recently used out). It
uses two long-stable internals of Hypothesis (``function_digest``: the seed of a derandomized
run; ``deterministic_PRNG``: the seeding around each example); without them nothing is
replayed.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import hashlib
import json
import sys
import traceback
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import hypothesis
from hypothesis import strategies as st

from . import strategies as S

try:  # the seed of a derandomized run, and Hypothesis's seeding of the global generators
    from hypothesis.internal.entropy import deterministic_PRNG
    from hypothesis.internal.reflection import function_digest
except ImportError:  # pragma: no cover - another Hypothesis: never replay
    deterministic_PRNG = function_digest = None

PROPERTY_BYTES = 8 * 2**20   # a property that draws more than this is not kept
MAX_BYTES = 64 * 2**20       # all kept properties of a process together

_enabled = False


def enable(on: bool = True) -> None:
    """Keep and replay drawn inputs in this process (a batch's pool process)."""
    global _enabled
    _enabled = bool(on) and function_digest is not None


def enabled() -> bool:
    return _enabled


def clear() -> None:
    """Forget every kept property."""
    KEPT.clear()


class _Diverged(BaseException):
    """The body asked for another draw than the kept one (BaseException: a check body that
    catches Exception cannot swallow it)."""


@dataclass
class _Example:
    kwargs: dict[str, Any]                 # the drawn arguments, except `data`
    data_arg: str | None = None            # the name of the ``st.data()`` argument, if any
    draws: list[tuple[tuple, Any]] = field(default_factory=list)
    steered: bool = False                  # a draw came after a call into the implementation


class _Store:
    """Kept properties, least recently used out past MAX_BYTES."""

    def __init__(self):
        self._items: OrderedDict[tuple, tuple[list[_Example], int]] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = self.fallbacks = 0

    def get(self, key):
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key, examples: list[_Example], size: int) -> None:
        self.drop(key)
        if size > PROPERTY_BYTES:
            return
        self._items[key] = (examples, size)
        self.bytes += size
        while self.bytes > MAX_BYTES and self._items:
            _, (_, old) = self._items.popitem(last=False)
            self.bytes -= old

    def drop(self, key) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self.bytes -= item[1]

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0
        self.hits = self.misses = self.fallbacks = 0

    def __len__(self) -> int:
        return len(self._items)


KEPT = _Store()


# ----------------------------------------------------------------------------- scope
@dataclass
class _Scope:
    base: tuple
    count: int = 0


_scope: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar("andrea_replay",
                                                                       default=None)
_SPEC_KEYS: dict[int, tuple[weakref.ref, str]] = {}


def _spec_key(spec) -> str:
    """A content key of the spec (its parsed data), worked out once per spec object."""
    entry = _SPEC_KEYS.get(id(spec))
    if entry is not None and entry[0]() is spec:
        return entry[1]
    raw = getattr(spec, "raw", None)
    text = json.dumps(raw, sort_keys=True, default=repr) if raw else repr(spec)
    key = hashlib.sha256(text.encode()).hexdigest()
    if len(_SPEC_KEYS) > 64:
        for k in [k for k, (ref, _) in _SPEC_KEYS.items() if ref() is None]:
            del _SPEC_KEYS[k]
    try:
        _SPEC_KEYS[id(spec)] = (weakref.ref(spec), key)
    except TypeError:  # not weakly referenceable: not remembered
        pass
    return key


def _settings_key(s) -> tuple:
    return (s.max_examples, s.derandomize, tuple(s.phases), s.report_multiple_bugs,
            repr(s.database), hypothesis.__version__)


@contextlib.contextmanager
def check_scope(check_id: str, spec):
    """The properties run inside this block belong to check `check_id` on `spec`; they are
    told apart by the order they run in (and by their settings and code)."""
    if not _enabled:
        yield
        return
    token = _scope.set(_Scope((check_id, _spec_key(spec))))
    try:
        yield
    finally:
        _scope.reset(token)


# ----------------------------------------------------------------------------- values
def _size(value) -> int:
    if isinstance(value, _Rebuilt):
        return 256
    if isinstance(value, np.ndarray):
        return value.nbytes + 128
    if isinstance(value, (tuple, list)):
        return 64 + sum(_size(v) for v in value)
    if isinstance(value, dict):
        return 64 + sum(_size(k) + _size(v) for k, v in value.items())
    return sys.getsizeof(value)


class _Rebuilt:
    """A large drawn array kept as the recipe it was built from (strategies.origin)."""

    __slots__ = ("recipe",)

    def __init__(self, recipe: tuple):
        self.recipe = recipe


def _kept(value):
    """What is kept of a drawn value: a private copy, or for a large table its recipe (after
    checking that the recipe gives the same bytes)."""
    if isinstance(value, np.ndarray):
        if value.nbytes >= S.RECIPE_MIN_BYTES and not value.dtype.hasobject:
            recipe = S.origin(value)
            if recipe is not None:
                again = S.rebuild(recipe)
                if (again.dtype == value.dtype and again.shape == value.shape
                        and np.array_equal(again.reshape(-1).view(np.uint8),
                                           np.ascontiguousarray(value).reshape(-1)
                                           .view(np.uint8))):
                    return _Rebuilt(recipe)
        return value.copy()
    if type(value) is tuple:
        return tuple(_kept(v) for v in value)
    if type(value) is list:
        return [_kept(v) for v in value]
    return _copy(value)


def _copy(value):
    """A private copy: the body (and what it hands on) may change what it was given."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (int, float, str, bytes, bool, type(None), type)):
        return value
    if isinstance(value, _Rebuilt):
        return S.rebuild(value.recipe)
    if type(value) is tuple:
        return tuple(_copy(v) for v in value)
    if type(value) is list:
        return [_copy(v) for v in value]
    return copy.deepcopy(value)


def _draw_key(strategy, label) -> tuple:
    fn = getattr(strategy, "function", None)
    return (label, type(strategy).__name__, getattr(fn, "__qualname__", None))


_calls = [0]   # calls into the implementation so far (the runner counts them)


def note_call() -> None:
    """The runner calls this before every call into the implementation under test."""
    _calls[0] += 1


class _RecordingData:
    """Hypothesis's ``data`` object, keeping a copy of each value it draws."""

    def __init__(self, data, example: _Example, keep: Callable):
        self._data, self._example, self._keep = data, example, keep
        self._calls = _calls[0]

    def draw(self, strategy, label=None):
        if _calls[0] != self._calls:
            # Drawn after the implementation answered: what is drawn could depend on the
            # answer, so this property is never replayed.
            self._example.steered = True
        value = self._data.draw(strategy, label=label)
        self._example.draws.append((_draw_key(strategy, label), self._keep(value)))
        return value

    def __repr__(self):
        return repr(self._data)


class _ReplayData:
    """Stands for ``data`` in a replayed example: hands out the kept draws, in order."""

    def __init__(self, example: _Example):
        self._draws = iter(example.draws)
        self.left = len(example.draws)

    def draw(self, strategy, label=None):
        kept = next(self._draws, None)
        if kept is None or kept[0] != _draw_key(strategy, label):
            raise _Diverged()
        self.left -= 1
        return _copy(kept[1])


# ----------------------------------------------------------------------------- given
_SEEDS: dict[tuple, int] = {}


def _seed_of(test: Callable) -> int:
    """The seed Hypothesis derandomizes `test` with (the same code, the same seed)."""
    code = test.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name)
    if key not in _SEEDS:
        _SEEDS[key] = int.from_bytes(function_digest(test), "big")
    return _SEEDS[key]


def forget_locals(exc: BaseException | None) -> None:
    """Drop the local variables of the finished frames in `exc`'s traceback (and in those of
    the exceptions it chains or groups): a failure is kept as its message, its bounded fields
    and where it happened, never as the values the failing call returned. Hypothesis keeps a
    failing example's exception while it shrinks and reports, and each of its frames held a
    result (a submission answering every call with 376 MB kept gigabytes alive)."""
    todo, seen = [exc], set()
    while todo and len(seen) < 64:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if e.__traceback__ is not None:
            traceback.clear_frames(e.__traceback__)   # an executing frame is left as it is
        for attr in ("returned",):   # what a violation carried for the runner
            if attr in vars(e):
                delattr(e, attr)
        todo += [e.__cause__, e.__context__, *(getattr(e, "exceptions", None) or ())]


def _forgetting(test: Callable) -> Callable:
    """`test`, whose failures keep no local variable of its frames (:func:`forget_locals`)."""

    @functools.wraps(test)
    def body(*args, **kwargs):
        try:
            return test(*args, **kwargs)
        except BaseException as exc:
            forget_locals(exc)
            raise

    return body


def given(**strategies: st.SearchStrategy) -> Callable:
    """``hypothesis.given`` (keyword strategies only) whose draws a pool process keeps and
    replays (see the module's docstring). Outside :func:`enable` it is Hypothesis's own."""

    def decorate(test: Callable) -> Callable:
        # Hypothesis binds the settings in force here (the profile) to the test.
        wrapped = hypothesis.given(**strategies)(_forgetting(test))
        if not _enabled:
            return wrapped
        settings = hypothesis.settings.default

        @functools.wraps(test)
        def run():
            scope = _scope.get()
            if scope is None:
                return wrapped()
            scope.count += 1
            code = test.__code__
            key = (*scope.base, scope.count, _settings_key(settings), code.co_filename,
                   code.co_firstlineno, tuple(sorted(strategies)))
            kept = KEPT.get(key)
            failure = None
            if kept is not None:
                ok, failure = _replay(test, kept)
                if ok:
                    KEPT.hits += 1
                    return None
                KEPT.fallbacks += 1
                KEPT.drop(key)
            else:
                KEPT.misses += 1
            examples, size = _record(test, wrapped)   # raises for a failing implementation
            if failure is not None:
                # It failed a replayed example (an input Hypothesis draws, at the same place in
                # the same sequence of calls) and passed every example when asked again: an
                # implementation whose answers depend on how often it was asked. Graded alone
                # it fails on that example, so it fails here too (never a pass bought by
                # being asked twice), and nothing of this run is kept.
                raise failure
            if not any(e.steered for e in examples):
                KEPT.put(key, examples, size)
            return None

        return run

    return decorate


def _record(test: Callable, wrapped: Callable) -> tuple[list[_Example], int]:
    """Run `wrapped` (Hypothesis's wrapper of `test`), keeping copies of what each example
    drew."""
    examples: list[_Example] = []
    tally = [0]   # bytes kept; past PROPERTY_BYTES nothing more is copied (nor kept)

    def keep(value):
        if tally[0] > PROPERTY_BYTES:
            return None
        kept = _kept(value)
        tally[0] += _size(kept)
        return kept

    def shim(*args, **kwargs):
        example = _Example({})
        for name, value in kwargs.items():
            if isinstance(value, st.DataObject):
                example.data_arg = name
                kwargs[name] = _RecordingData(value, example, keep)
            else:
                example.kwargs[name] = keep(value)
        result = test(*args, **kwargs)
        # Only examples that ran to the end: Hypothesis also starts examples that it abandons
        # in a draw (a choice sequence too long), and those never happened for the property.
        examples.append(example)
        return result

    # Hypothesis takes a derandomized run's seed from the function it calls; it calls the
    # shim, so the seed is given explicitly: the one it would take from `test`.
    wrapped = hypothesis.seed(_seed_of(test))(wrapped)
    wrapped.hypothesis.inner_test = shim
    try:
        wrapped()
    finally:
        wrapped.hypothesis.inner_test = test
    return examples, tally[0]


def _replay(test: Callable, examples: list[_Example]) -> tuple[bool, Exception | None]:
    """Run `test` on the kept examples: (True, None) when all passed; else False (the property
    must run in Hypothesis) and the exception of the example that failed, if one did."""
    for example in examples:
        kwargs = {k: _copy(v) for k, v in example.kwargs.items()}
        data = None
        if example.data_arg is not None:
            data = kwargs[example.data_arg] = _ReplayData(example)
        try:
            with deterministic_PRNG():
                test(**kwargs)
        except _Diverged:
            return False, None
        except Exception as exc:  # noqa: BLE001 - a failing example: Hypothesis runs it and shrinks
            return False, exc
        if data is not None and data.left:
            return False, None
    return True, None
