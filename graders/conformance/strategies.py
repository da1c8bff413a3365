"""Hypothesis strategies derived from a spec: every input the checks draw comes from here.

Sizes are mostly small (fast, and Hypothesis shrinks them further), sometimes the spec's real
sizes (ids up to V-1, T up to the context, the spec's d_model); the edge ids 0 and V-1 are
always reachable; tables are in the spec's dtype. The building blocks (``dim``, ``ids``,
``seeds``, ``table``, ``vectors``) compose into the arguments of each contract function
(``tables``, ``embed_args``, ``backward_args``, ``vector_pairs``, ``qk_rows``) and into the bad
arguments of the error inputs (``bad_ids``, ``lookup_bad_ids``, ``embed_too_long``, ...), in
the style of array-api-tests' ``hypothesis_helpers``.
"""

from __future__ import annotations

import weakref
from functools import lru_cache

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ID_DTYPES = (np.int64, np.int32)
REAL_SIZE_ODDS = 8  # about one example in this many uses the spec's real sizes

# The strategy builders below are cached: a check asks for the same strategy (same sizes) again
# and again, and Hypothesis works out properties of a new strategy object (is it empty, can its
# values be reused...) on its first draw. Cached, that is done once per strategy, not per draw.
_cached = lru_cache(maxsize=4096)


@_cached
def dim(real: int, small_max: int) -> st.SearchStrategy[int]:
    """A size: the spec's real one about once in REAL_SIZE_ODDS draws, else 1..small_max.

    Each dimension decides on its own, so ids up to V-1 usually come with a small d_model and a
    full (V, d_model) table is rare: examples stay cheap, and shrinking goes to small sizes.
    """
    flag = st.sampled_from([False] * (REAL_SIZE_ODDS - 1) + [True])
    return flag.flatmap(lambda real_size: st.just(real) if real_size
                        else st.integers(1, min(small_max, real)))


@st.composite
def sequence_sizes(draw, spec, *, d_small: int, batched: bool | None = None):
    """(vocab_size, context_length, d_model, ids shape (T,) or (B, T)).

    B is kept small when a row is large, so a real-size draw stays a few megabytes.
    """
    m = spec.model
    vocab = draw(dim(m.vocab_size, 64))
    context = draw(dim(m.context_length, 16))
    d = draw(dim(m.d_model, d_small))
    t = draw(st.integers(1, context))
    if batched is None:
        batched = draw(st.booleans())
    b_max = 4 if t * d <= 4096 else 2
    shape = (draw(st.integers(1, b_max)), t) if batched else (t,)
    return vocab, context, d, shape


@_cached
def ids(num_rows: int, shape) -> st.SearchStrategy[np.ndarray]:
    """Integer ids in [0, num_rows), edges 0 and num_rows-1 always reachable."""
    elements = st.one_of(st.just(0), st.just(num_rows - 1), st.integers(0, num_rows - 1))
    return hnp.arrays(dtype=st.sampled_from(ID_DTYPES), shape=shape, elements=elements)


@_cached
def seeds() -> st.SearchStrategy[int]:
    return st.integers(0, 2**32 - 1)


def table(seed: int, rows: int, d_model: int, dtype=np.float32) -> np.ndarray:
    """A random (rows, d_model) table with distinct rows, built from `seed` (fast at real sizes).

    Values are uniform in [-1, 1), both signs: the checks need distinct rows, not a particular
    distribution, and at the spec's real size (8449 x 768) a float32 normal draw costs about
    six times as much as a uniform one (benchmarks/bench_grade.py, docs/benchmarks.md).
    """
    out = np.random.default_rng(seed).random((rows, d_model), dtype=np.float32)
    out *= 2
    out -= 1
    out = out.astype(dtype, copy=False)
    return _remember(out, ("table", seed, rows, d_model, out.dtype.str))


# ------------------------------------------------------------------ how a large table was built
# A large table remembers how it was built (seed, sizes, dtype, special values), so that a
# process replaying the draws of a property (replay.py) can keep the recipe instead of the
# bytes: `origin` gives the recipe, `rebuild` the table again. The replay compares the rebuilt
# bytes with the drawn ones before it trusts a recipe.
RECIPE_MIN_BYTES = 1 << 20
_ORIGINS: dict[int, tuple[weakref.ref, tuple]] = {}


def _remember(out: np.ndarray, recipe: tuple) -> np.ndarray:
    if out.nbytes >= RECIPE_MIN_BYTES:
        key = id(out)
        _ORIGINS[key] = (weakref.ref(out, lambda _, key=key: _ORIGINS.pop(key, None)), recipe)
    return out


def origin(a: np.ndarray) -> tuple | None:
    """The recipe of a large array built here (or of a reshaped view of one), else None."""
    for candidate, reshaped in ((a, False), (a.base, True)):
        entry = _ORIGINS.get(id(candidate)) if candidate is not None else None
        if entry is not None and entry[0]() is candidate:
            return ("reshape", entry[1], a.shape) if reshaped else entry[1]
    return None


def rebuild(recipe: tuple) -> np.ndarray:
    """The array `recipe` (from :func:`origin`) describes, built again."""
    kind = recipe[0]
    if kind == "table":
        _, seed, rows, d_model, dtype = recipe
        return table(seed, rows, d_model, np.dtype(dtype))
    if kind == "special":
        return with_special_values(rebuild(recipe[1]), recipe[2])
    if kind == "reshape":
        return rebuild(recipe[1]).reshape(recipe[2])
    raise ValueError(f"unknown recipe {kind!r}")


SPECIAL_VALUES = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, -3.4e38], dtype=np.float32)


def with_special_values(t: np.ndarray, seed: int) -> np.ndarray:
    """Sprinkle NaN, -0.0, +-inf and subnormals over `t`: a lookup must copy them bit for bit."""
    rng = np.random.default_rng(seed)
    flat = t.reshape(-1)
    k = min(flat.size, len(SPECIAL_VALUES))
    flat[rng.choice(flat.size, size=k, replace=False)] = SPECIAL_VALUES[:k].astype(t.dtype)
    before = origin(t)
    if before is not None and before[0] != "reshape":
        _remember(t, ("special", before, seed))
    return t


# Entries are 0 or of magnitude 1e-8..1e7. The course defines the cosine by
# u . v = |u| |v| cos(theta) and says nothing about extreme magnitudes, so any textbook float32
# formula must stay finite on these vectors: dot / (norm * norm), sqrt(sum v_i^2), and
# u.v / sqrt((u.u) (v.v)) (scipy.spatial.distance.cosine's), whose product of squared norms,
# at most n^2 * 1e28, fits a float32 up to n = 16384 and, at least 1e-32, stays a normal float32.
VECTOR_RANGE = (1e-8, 1e7)
VECTOR_SPREADS = (0, 3, 7)          # decades of magnitude within one vector


@_cached
def vectors(n: int, dtype) -> st.SearchStrategy[np.ndarray]:
    """Vectors whose entries are 0 or of magnitude 1e-8..1e7 (VECTOR_RANGE), in float32 or float64.

    Built from a seed and a spread (decades of magnitude: VECTOR_SPREADS) rather than element by
    element, so a failure shrinks in a few steps to a short vector of ordinary numbers. The range
    is wide enough to expose a wrong formula (float16 arithmetic overflows, a missing square root
    or a wrong norm is off by orders of magnitude) and narrow enough that no textbook formula of
    the course's cos(theta) overflows or underflows in float32.
    """
    return st.tuples(seeds(), st.sampled_from(VECTOR_SPREADS), st.booleans()).map(
        lambda t: _vector(n, dtype, *t))


def _vector(n: int, dtype, seed: int, spread: int, zeros: bool) -> np.ndarray:
    lo, hi = VECTOR_RANGE
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n) * 10.0 ** (spread * rng.uniform(-1.0, 1.0, n))
    v = np.sign(v) * np.clip(np.abs(v), lo, hi)
    if zeros:
        v[rng.random(n) < 0.25] = 0.0
    return v.astype(dtype)


def model_dtype(spec) -> np.dtype:
    """The dtype of the spec's tables (``model.dtype``)."""
    return np.dtype(spec.model.dtype)


# ----------------------------------------------------------------------- contract arguments
@st.composite
def tables(draw, spec, *, dtype=None, special: bool | None = False, d_small: int = 12):
    """A (rows, d_model) table in the spec's dtype (or `dtype`), at the spec's real size about
    one draw in eight; with `special` (None: drawn) NaN, -0.0, inf and subnormals sprinkled in."""
    rows = draw(dim(spec.model.vocab_size, 64))
    d = draw(dim(spec.model.d_model, d_small))
    seed = draw(seeds())
    out = table(seed, rows, d, model_dtype(spec) if dtype is None else dtype)
    if special is None:
        special = draw(st.booleans())
    return with_special_values(out, seed) if special else out


@st.composite
def embed_args(draw, spec, *, batched: bool | None = None):
    """(token_ids, token_table, position_table) with T <= context, sometimes at real sizes."""
    vocab, context, d, shape = draw(sequence_sizes(spec, d_small=12, batched=batched))
    token_ids = draw(ids(vocab, shape))
    seed = draw(seeds())
    dtype = model_dtype(spec)
    return token_ids, table(seed, vocab, d, dtype), table(seed + 1, context, d, dtype)


@st.composite
def backward_args(draw, spec, *, few_ids: bool | None = None):
    """(token_ids, grad_out, vocab_size, context_length); with `few_ids` (None: drawn) the ids
    come from a pool of at most 3, so they repeat."""
    vocab, context, d, shape = draw(sequence_sizes(spec, d_small=8))
    if few_ids is None:
        few_ids = draw(st.booleans())
    token_ids = draw(ids(min(vocab, 3) if few_ids else vocab, shape))
    grad = table(draw(seeds()), int(np.prod(shape)), d, model_dtype(spec))
    return token_ids, grad.reshape(shape + (d,)), vocab, context


@st.composite
def vector_pairs(draw, spec):
    """(u, v, dtype): two vectors of one length (the spec's d_model about one draw in eight)."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    n = draw(dim(spec.model.d_model, 64))
    return draw(vectors(n, dtype)), draw(vectors(n, dtype)), dtype


@st.composite
def qk_rows(draw, n: int):
    """(x, d): n float64 rows of an even width d (query and key rows for RoPE)."""
    d = 2 * draw(st.integers(1, 16))
    return table(draw(seeds()), n, d, np.float64), d


# ----------------------------------------------------------------------- bad arguments
def bad_ids(num_rows: int) -> st.SearchStrategy[np.ndarray]:
    """Ids with one entry out of range: negative (must not wrap) or >= num_rows."""
    bad = st.one_of(st.integers(-3 * num_rows, -1), st.integers(num_rows, 3 * num_rows))
    return st.tuples(st.integers(1, 8), st.integers(0, 7), bad).map(
        lambda t: _place(num_rows, *t))


def _place(num_rows, n, where, bad):
    out = np.arange(n, dtype=np.int64) % num_rows
    out[where % n] = bad
    return out


@st.composite
def lookup_bad_ids(draw, spec):
    """lookup arguments (table, token_ids) with one id out of range."""
    t = draw(tables(spec))
    return t, draw(bad_ids(t.shape[0]))


@st.composite
def embed_bad_ids(draw, spec):
    """embed arguments (token_ids, token_table, position_table) with one id out of range."""
    t = draw(tables(spec))
    token_ids = draw(bad_ids(t.shape[0]))
    return token_ids, t, table(1, max(len(token_ids), 1), t.shape[1], t.dtype)


@st.composite
def _too_long(draw, spec):
    context = draw(dim(spec.model.context_length, 16))
    t = context + draw(st.integers(1, 8))
    shape = (2, t) if draw(st.booleans()) else (t,)
    return context, np.zeros(shape, dtype=np.int64)


@st.composite
def embed_too_long(draw, spec):
    """embed arguments whose sequence is longer than the position table (T > context)."""
    context, token_ids = draw(_too_long(spec))
    dtype = model_dtype(spec)
    return token_ids, table(0, 8, 4, dtype), table(1, context, 4, dtype)


@st.composite
def backward_too_long(draw, spec):
    """embed_backward arguments whose sequence is longer than context_length."""
    context, token_ids = draw(_too_long(spec))
    return token_ids, np.ones(token_ids.shape + (4,), dtype=model_dtype(spec)), 8, context


@st.composite
def embed_mismatched_d_model(draw, spec):
    """embed arguments whose token and position tables have different d_model."""
    d_tok, d_pos = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    if d_tok == d_pos:
        d_pos += 1
    dtype = model_dtype(spec)
    return np.array([0, 1, 2], dtype=np.int64), table(0, 8, d_tok, dtype), table(1, 8, d_pos, dtype)
