"""Error inputs as data: every bad input the checks try, and the error it must raise.

In the style of PyTorch OpInfo's ``ErrorInput(input, error_type, error_regex)``: one table
(``ERROR_INPUTS``) instead of a hand-written loop per check. Each entry names the clause it
belongs to, the contract function it calls, what is wrong with the arguments, the exception
type the spec prescribes, and a regular expression for the reference's message. Its arguments
are either fixed (built from the spec) or drawn by Hypothesis (``graders.conformance.
strategies``). One function, :func:`check_error_inputs`, runs a clause's entries;
``andrea-conform --list`` lists them.

A submission is judged on the exception type only: the message is the student's to word. The
regex holds the project's own implementations (andrea_ref, andrea_gpu) to one wording, so both
backends fail alike (tests/conformance/test_error_inputs.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from . import hints, strategies as S
from .assertions import assert_raises, call_repr, seeded_rng
from .replay import given

Args = Callable[[Any], tuple]                                 # spec -> arguments
Draw = Callable[[Any], st.SearchStrategy]                     # spec -> strategy of arguments


@dataclass(frozen=True)
class ErrorInput:
    """One bad input: `function(*args)` must raise `error` (message like `regex`)."""

    clause: str
    function: str
    what: str                       # what is wrong with the arguments, in words
    error: type[Exception]
    regex: str                      # the reference's message (not required of submissions)
    args: Args | None = None        # fixed arguments, built from the spec ...
    draw: Draw | None = None        # ... or a strategy of arguments
    hint: str | None = None


def _sizes(function: str, spec) -> tuple:
    d = spec.model.d_model
    if function == "init_table":
        return (8, 4, seeded_rng(0))   # shown as np.random.default_rng(0) in a reproducer
    return {"token_embedding_params": (8, d), "position_embedding_params": (8, d),
            "embedding_params": (8, 8, d)}[function]


def _size_errors() -> list[ErrorInput]:
    """PAR-ERR-01: each size argument of each function that takes sizes, replaced by a bad
    value (init_table's rng stays a Generator)."""
    out = []
    for fn, names in (("token_embedding_params", ("vocab_size", "d_model")),
                      ("position_embedding_params", ("context_length", "d_model")),
                      ("embedding_params", ("vocab_size", "context_length", "d_model")),
                      ("init_table", ("num_rows", "d_model"))):
        for i, name in enumerate(names):
            for bad, err, regex in ((0, ValueError, "at least 1"), (-5, ValueError, "at least 1"),
                                    (2.5, TypeError, "integer"), ("768", TypeError, "integer"),
                                    (None, TypeError, "integer")):
                def args(spec, fn=fn, i=i, bad=bad):
                    a = list(_sizes(fn, spec))
                    a[i] = bad
                    return tuple(a)
                out.append(ErrorInput("PAR-ERR-01", fn, f"{name}={bad!r}", err, regex, args))
    return out


_TABLE = lambda spec: S.table(0, 16, 4, S.model_dtype(spec))      # noqa: E731
_POSITIONS = lambda spec: S.table(1, 8, 4, S.model_dtype(spec))   # noqa: E731
_NOT_INTEGER_IDS = (("float ids", np.array([1.0, 3.0])), ("fractional ids", np.array([0.5])),
                    ("bool ids", np.array([True, False])), ("string ids", np.array(["1", "2"])),
                    ("float32 ids", np.array([1, 2], dtype=np.float32)))
_GRAD = np.ones((3, 4), dtype=np.float32)

ERROR_INPUTS: tuple[ErrorInput, ...] = (
    *_size_errors(),
    # EMB-ERR-01: ids out of range never wrap around
    ErrorInput("EMB-ERR-01", "lookup", "one id < 0 or >= rows (drawn)", IndexError,
               "out of range", draw=S.lookup_bad_ids, hint=hints.WRAP_AROUND),
    ErrorInput("EMB-ERR-01", "embed", "one id < 0 or >= rows (drawn)", IndexError,
               "out of range", draw=S.embed_bad_ids, hint=hints.WRAP_AROUND),
    # EMB-ERR-02: ids that are not integers
    *(ErrorInput("EMB-ERR-02", "lookup", what, TypeError, "must be integers",
                 lambda spec, ids=ids: (_TABLE(spec), ids), hint=hints.NOT_INTEGER)
      for what, ids in _NOT_INTEGER_IDS),
    *(ErrorInput("EMB-ERR-02", "embed", what, TypeError, "must be integers",
                 lambda spec, ids=ids: (ids, _TABLE(spec), _POSITIONS(spec)),
                 hint=hints.NOT_INTEGER)
      for what, ids in _NOT_INTEGER_IDS),
    # EMB-ERR-03: a sequence longer than the context
    ErrorInput("EMB-ERR-03", "embed", "T > rows of the position table (drawn)", ValueError,
               "more than the context length", draw=S.embed_too_long, hint=hints.CONTEXT),
    # EMB-ERR-04: tables of different d_model
    ErrorInput("EMB-ERR-04", "embed", "token and position tables of different d_model (drawn)",
               ValueError, "d_model", draw=S.embed_mismatched_d_model),
    # BWD-ERR-01: the backward's ids, grad_out and sequence length
    ErrorInput("BWD-ERR-01", "embed_backward", "id = vocab_size", IndexError, "out of range",
               lambda spec: (np.array([0, 1, 8]), _GRAD, 8, 16), hint=hints.WRAP_AROUND),
    ErrorInput("BWD-ERR-01", "embed_backward", "id = -1", IndexError, "out of range",
               lambda spec: (np.array([0, -1, 2]), _GRAD, 8, 16), hint=hints.WRAP_AROUND),
    ErrorInput("BWD-ERR-01", "embed_backward", "float ids", TypeError, "must be integers",
               lambda spec: (np.array([0.0, 1.0, 2.0]), _GRAD, 8, 16), hint=hints.NOT_INTEGER),
    *(ErrorInput("BWD-ERR-01", "embed_backward", f"grad_out of shape {shape}", ValueError,
                 "grad_out must have shape",
                 lambda spec, shape=shape: (np.array([0, 1, 2]), np.ones(shape, np.float32), 8, 16))
      for shape in ((2, 4), (3,), (1, 3, 4))),
    ErrorInput("BWD-ERR-01", "embed_backward", "T > context_length (drawn)", ValueError,
               "more than the context length", draw=S.backward_too_long, hint=hints.CONTEXT),
    # VEC-ERR-01: lengths that differ; the cosine of a zero vector
    *(ErrorInput("VEC-ERR-01", fn, f"lengths {n} and {m}", ValueError, "same length",
                 lambda spec, n=n, m=m: (np.ones(n, np.float32), np.ones(m, np.float32)))
      for fn in ("dot", "cosine_similarity") for n, m in ((3, 4), (768, 767), (1, 2))),
    *(ErrorInput("VEC-ERR-01", "cosine_similarity", what, ValueError, "zero vector",
                 lambda spec, a=a, b=b: (a * np.ones(5, np.float32), b * np.ones(5, np.float32)),
                 hint=hints.ZERO_VECTOR)
      for what, a, b in (("v is zero", 1, 0), ("u is zero", 0, 1), ("both are zero", 0, 0))),
)


def error_inputs(clause: str | None = None, function: str | None = None) -> list[ErrorInput]:
    """The entries of `clause` (and `function`), in table order."""
    return [e for e in ERROR_INPUTS
            if (clause is None or e.clause == clause)
            and (function is None or e.function == function)]


def check_error_input(impl, spec, ei: ErrorInput, *, match_message: bool = False) -> None:
    """`impl` must raise `ei.error` for `ei`'s arguments (each drawn example, if drawn); with
    `match_message`, its message must also match `ei.regex`."""
    import re

    def once(args: tuple) -> None:
        call = call_repr(ei.function, *args)
        exc = assert_raises(ei.error, getattr(impl, ei.function), *args, call=call, hint=ei.hint)
        if match_message and not re.search(ei.regex, str(exc)):  # the project's own wording
            raise AssertionError(f"{call} raised {type(exc).__name__}({str(exc)!r}), whose "
                                 f"message does not match {ei.regex!r}")

    if ei.draw is None:
        once(ei.args(spec))
        return

    @given(args=ei.draw(spec))
    def prop(args):
        once(args)

    prop()


def check_error_inputs(impl, spec, clause: str, *, functions: tuple[str, ...] | None = None,
                       match_message: bool = False) -> None:
    """Every error input of `clause` (calling one of `functions`, default all), in table
    order: the first that is not met fails. A function `impl` does not define is left out:
    the runner fails the check for a missing function of its own group before it gets here,
    and another group's (the check's ``if_present``) costs points only in that group."""
    entries = [e for e in error_inputs(clause) if functions is None or e.function in functions]
    entries = [e for e in entries if callable(getattr(impl, e.function, None))] or entries
    if not entries:
        raise LookupError(f"no error inputs for clause {clause}")
    for ei in entries:
        check_error_input(impl, spec, ei, match_message=match_message)


def listing() -> list[str]:
    """One line per error input, for ``andrea-conform --list``."""
    return [f"{e.clause:12} {e.function + '()':28} {e.what:54} -> {e.error.__name__}"
            for e in ERROR_INPUTS]
