"""Parameter counts: PAR-TOKEN-01, PAR-POS-01, PAR-EMB-01, PAR-ERR-01, shares and tying."""

from __future__ import annotations

import math
import numbers

from hypothesis import strategies as st

from spec import round_half_up

from ..assertions import call_repr, fail
from ..error_inputs import check_error_inputs
from ..registry import check
from ..replay import given

_SIZES = st.integers(1, 200_000)


def _count(impl, fn: str, *args) -> int:
    call = call_repr(fn, *args)
    got = getattr(impl, fn)(*args)
    if isinstance(got, bool) or not isinstance(got, numbers.Integral):
        _not_an_int(fn, got, call)
    return int(got)


def _not_an_int(fn: str, got, call: str):
    fail("{function} returned {type} {got!r}, but should return an int", call,
         function=fn, type=type(got).__name__, got=got)


def _count_value(impl, fn: str, *args) -> int:
    """The count `fn` gives, for the shares: a whole number of another type (6488832.0) is read
    as its value, since the type is the count's own clause (PAR-TOKEN-01, PAR-EMB-01) and a
    bug costs points once; anything else fails as in :func:`_count`."""
    got = getattr(impl, fn)(*args)
    if isinstance(got, numbers.Integral) and not isinstance(got, bool):
        return int(got)
    if isinstance(got, numbers.Real) and math.isfinite(got) and float(got).is_integer():
        return int(got)
    _not_an_int(fn, got, call_repr(fn, *args))


def _expect(impl, fn: str, args: tuple, want: int) -> None:
    got = _count(impl, fn, *args)
    if got != want:
        fail("{function}(...)={got:,}, but should be {want:,}", call_repr(fn, *args),
             function=fn, got=got, want=want)


_D_MODELS = st.integers(1, 4096)


def _count_check(impl, fn: str, spec_args: tuple, stated, sizes, formula) -> None:
    """`fn` gives the count the course states at the spec's sizes, and `formula` at any size."""
    _expect(impl, fn, spec_args, int(stated))

    @given(args=sizes)
    def any_size(args):
        _expect(impl, fn, args, formula(*args))

    any_size()


@check("PAR-TOKEN-01", requires=("token_embedding_params",))
def token_table_params(impl, spec):
    """The token table has V * d_model parameters (6,488,832 for ANDREA-120M)."""
    m = spec.model
    _count_check(impl, "token_embedding_params", (m.vocab_size, m.d_model),
                 spec.quantities["token_table_params"].value,
                 st.tuples(_SIZES, _D_MODELS), lambda v, d: v * d)


@check("PAR-POS-01", requires=("position_embedding_params",))
def position_table_params(impl, spec):
    """The position table has T * d_model parameters (786,432 for ANDREA-120M)."""
    m = spec.model
    _count_check(impl, "position_embedding_params", (m.context_length, m.d_model),
                 spec.quantities["position_table_params"].value,
                 st.tuples(_SIZES, _D_MODELS), lambda t, d: t * d)


@check("PAR-EMB-01", requires=("embedding_params",))
def embedding_layer_params(impl, spec):
    """The embedding layer holds both tables (7,275,264 for ANDREA-120M)."""
    m = spec.model
    _count_check(impl, "embedding_params", (m.vocab_size, m.context_length, m.d_model),
                 spec.quantities["embedding_params"].value,
                 st.tuples(_SIZES, _SIZES, _D_MODELS), lambda v, t, d: (v + t) * d)


@check("PAR-ERR-01", requires=("token_embedding_params", "position_embedding_params",
                               "embedding_params"))
def param_count_errors(impl, spec):
    """Non-integer sizes are a TypeError; sizes below 1 a ValueError."""
    check_error_inputs(impl, spec, "PAR-ERR-01", functions=(
        "token_embedding_params", "position_embedding_params", "embedding_params"))


@check("PAR-SHARE-01", "PAR-SHARE-02", "PAR-UNTIED-01",
       requires=("token_embedding_params", "embedding_params"))
def parameter_shares(impl, spec):
    """The shares the course states follow from the implementation's counts; tying (or, for a
    tied spec, untying) the output projection changes the model by exactly the token table."""
    m = spec.model
    tok = _count_value(impl, "token_embedding_params", m.vocab_size, m.d_model)
    emb = _count_value(impl, "embedding_params", m.vocab_size, m.context_length, m.d_model)
    q = spec.quantities
    for name, value in (("token_table_share_percent", 100 * tok / m.total_params),
                        ("embedding_share_percent", 100 * emb / m.total_params)):
        want = q[name]
        if round_half_up(value, want.decimals or 0) != want.value:
            fail("{name}: {value:.4f} % rounds to {rounded}, but the course states "
                 "{stated} % ({clause})", name=name, value=value,
                 rounded=round_half_up(value, want.decimals or 0), stated=want.value,
                 clause=want.clause)
    # The output projection is a (V, d_model) matrix: an untied spec's model would shrink by
    # the token table if it were tied; a tied spec's model (whose embedding count is the same,
    # the projection being the token table) would grow by it if it were untied.
    if tok != q["tied_savings_params"].value:
        fail("untying the output projection adds {got:,} parameters by the implementation's "
             "count, but the spec says {want:,} (PAR-UNTIED-01)" if m.tied_embeddings else
             "a tied model saves {got:,} parameters by the implementation's count, but the "
             "spec says {want:,} (PAR-UNTIED-01)", got=tok, want=q["tied_savings_params"].value)
