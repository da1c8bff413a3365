"""andrea_gpu against andrea_ref on random inputs: on the CPU executor, and on the GPU if any.

Every test runs once per backend. The cuda run (marked gpu) is generated only where CuPy sees
a device; elsewhere test_cuda_run_of_this_module stands for it and is skipped with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import andrea_gpu
import andrea_ref
from andrea_gpu.backend import BackendUnavailable, backend_name, get_backend
from andrea_gpu.ops import Engine


HAS_CUDA = andrea_gpu.cuda_available()
BACKEND_PARAMS = ["cpu"] + ([pytest.param("cuda", marks=pytest.mark.gpu)] if HAS_CUDA else [])


@pytest.fixture(autouse=True, params=BACKEND_PARAMS)
def backend(request, monkeypatch):
    monkeypatch.setenv("ANDREA_GPU_BACKEND", request.param)
    return request.param


SPECIAL = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, -3.4e38], dtype=np.float32)


def _case(seed, dtype=np.float32, batched=True):
    rng = np.random.default_rng(seed)
    v, ctx, d = rng.integers(1, 40), rng.integers(1, 12), rng.integers(1, 13)
    t = rng.integers(1, ctx + 1)
    shape = (rng.integers(1, 4), t) if batched else (t,)
    ids = rng.integers(0, v, shape).astype(rng.choice([np.int64, np.int32, np.uint8])
                                           if v < 256 else np.int64)
    tok = rng.standard_normal((v, d)).astype(dtype)
    pos = rng.standard_normal((ctx, d)).astype(dtype)
    return rng, ids, tok, pos


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_lookup_and_embed_match_the_reference_bit_for_bit(seed, dtype):
    rng, ids, tok, pos = _case(seed, dtype, batched=seed % 2 == 0)
    flat = tok.reshape(-1)
    with np.errstate(over="ignore"):  # -3.4e38 is -inf in float16
        flat[: min(flat.size, 6)] = SPECIAL[: min(flat.size, 6)].astype(dtype)
    got, want = andrea_gpu.lookup(tok, ids), andrea_ref.lookup(tok, ids)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    got, want = andrea_gpu.embed(ids, tok, pos), andrea_ref.embed(ids, tok, pos)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_lookup_of_any_id_shape_and_scalar_ids():
    tab = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(andrea_gpu.lookup(tab, 2), tab[2])
    ids = np.array([[[0, 3]], [[1, 1]]])
    np.testing.assert_array_equal(andrea_gpu.lookup(tab, ids), tab[ids])
    assert andrea_gpu.lookup(tab, np.zeros((0, 5), int)).shape == (0, 5, 3)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("deterministic", [True, False])
def test_backward_matches_the_reference(seed, dtype, deterministic):
    rng, ids, tok, pos = _case(seed, dtype, batched=seed % 2 == 1)
    ids = ids % 3  # few distinct ids: many repeats to accumulate
    v, ctx = tok.shape[0], pos.shape[0]
    grad = rng.standard_normal(ids.shape + (tok.shape[1],)).astype(dtype)
    got = andrea_gpu.embed_backward(ids, grad, v, ctx, deterministic=deterministic)
    want = andrea_ref.embed_backward(ids, grad, v, ctx)
    eps = np.finfo(dtype).eps
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=0, atol=8 * eps * ids.size * np.abs(grad).max())
    absent = np.setdiff1d(np.arange(v), ids)
    assert not got[0][absent].any() and not got[1][ids.shape[-1]:].any()


def test_deterministic_backward_is_bit_identical_across_runs_and_launch_shapes():
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 5, (3, 40))
    grad = (rng.standard_normal((3, 40, 8)) * 10.0 ** rng.integers(-6, 6, (3, 40, 1))
            ).astype(np.float32)
    first = andrea_gpu.embed_backward(ids, grad, 5, 40)
    for _ in range(2):
        again = andrea_gpu.embed_backward(ids, grad, 5, 40)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(first, again))
    be = get_backend("cpu")
    for grid, block in ((1, 32), (7, 64)):
        eng = Engine(be, andrea_gpu.kernel_source("embedding.cu"),
                     shapes=lambda kind, n, g=grid, b=block: ((g,), (b,)))
        other = eng.embed_backward(ids, grad, 5, 40)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(first, other))


BAD_CALLS = [
    ("lookup", lambda m: m.lookup(np.zeros((4, 2), np.float32), [0, 4])),
    ("lookup", lambda m: m.lookup(np.zeros((4, 2), np.float32), [-1])),
    ("lookup", lambda m: m.lookup(np.zeros((4, 2), np.float32), [0.5])),
    ("lookup", lambda m: m.lookup(np.zeros((4, 2), np.int32), [0])),
    ("embed", lambda m: m.embed(np.zeros(5, int), np.zeros((4, 2), np.float32),
                                np.zeros((4, 2), np.float32))),
    ("embed", lambda m: m.embed(np.zeros(3, int), np.zeros((4, 2), np.float32),
                                np.zeros((4, 3), np.float32))),
    ("embed", lambda m: m.embed(np.array([True]), np.zeros((4, 2), np.float32),
                                np.zeros((4, 2), np.float32))),
    ("embed", lambda m: m.embed([0], np.zeros((4, 2), np.float32), np.zeros((4, 2), np.float64))),
    ("embed_backward", lambda m: m.embed_backward([0, 9], np.zeros((2, 2), np.float32), 9, 4)),
    ("embed_backward", lambda m: m.embed_backward([0, 1], np.zeros((3, 2), np.float32), 9, 4)),
    ("embed_backward", lambda m: m.embed_backward([0, 1], np.zeros((2, 2), np.float32), 0, 4)),
    ("embed_backward", lambda m: m.embed_backward([0, 1], np.zeros((2, 2), np.int64), 9, 4)),
    ("cosine_similarity", lambda m: m.cosine_similarity([0.0, 0.0], [1.0, 2.0])),
    ("cosine_similarity", lambda m: m.cosine_similarity([1.0], [1.0, 2.0])),
]


@pytest.mark.parametrize("case", range(len(BAD_CALLS)), ids=lambda i: BAD_CALLS[i][0])
def test_bad_input_gives_the_reference_error(case):
    _, call = BAD_CALLS[case]
    with pytest.raises(Exception) as ref:
        call(andrea_ref)
    with pytest.raises(type(ref.value)) as got:
        call(andrea_gpu)
    assert str(got.value) == str(ref.value)


def test_bad_ids_are_reported_by_the_device_not_read():
    """Ids that bypass the host check never reach memory: the kernel reports the first one."""
    eng = andrea_gpu.engine("cpu")
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    ids = np.array([1, 7, 2, -3], dtype=np.int32)
    out = np.zeros((4, 2), np.float32)
    bad = np.full(1, np.iinfo(np.int32).max, np.int32)
    eng.mod.get_function("andrea_embed_forward")(
        (2,), (32,), (ids, table, table, out, np.int32(4), np.int32(4), np.int32(2), np.int32(4),
                      bad))
    assert bad[0] == 1
    np.testing.assert_array_equal(out[[0, 2]], table[[1, 2]] + table[[0, 2]])
    with pytest.raises(IndexError, match=r"token_ids\[1\] = 7 is out of range \[0, 4\) "
                                         r"\(reported by the device"):
        eng._check_bad(bad, ids, 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_similarity_matches_the_reference(dtype):
    rng = np.random.default_rng(11)
    for n in (1, 3, 50):
        u, v = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
        u64, v64 = u.astype(np.float64), v.astype(np.float64)
        exact = float(u64 @ v64 / np.linalg.norm(u64) / np.linalg.norm(v64))
        got = andrea_gpu.cosine_similarity(u, v)
        assert got == pytest.approx(exact, abs=1e-12)  # accumulated in double
        assert got == pytest.approx(andrea_ref.cosine_similarity(u, v),
                                    abs=8 * n * float(np.finfo(dtype).eps))
    big = np.array([3e38, 4e38], dtype=np.float64)  # would overflow a naive sum of squares
    assert andrea_gpu.cosine_similarity(big, big) == pytest.approx(1.0)
    assert andrea_gpu.cosine_similarity([1, 0], [-2, 0]) == -1.0


def test_nearest_tokens_ranks_by_cosine():
    rng = np.random.default_rng(5)
    table = rng.standard_normal((70, 16)).astype(np.float32)
    table[9] = table[4] * 3.0  # same direction as row 4, so cosine 1 as well
    queries = np.stack([table[4], -table[20]])
    idx, val = andrea_gpu.nearest_tokens(queries, table, k=5)
    assert idx.shape == (2, 5) and val.shape == (2, 5)
    t64, q64 = table.astype(np.float64), queries.astype(np.float64)
    want = (q64 @ t64.T) / np.outer(np.linalg.norm(q64, axis=1), np.linalg.norm(t64, axis=1))
    for i in range(2):
        order = np.lexsort((np.arange(70), -np.round(want[i], 9)))[:5]
        np.testing.assert_allclose(val[i], want[i][order], atol=1e-9)
        assert set(idx[i][2:]) == set(order[2:])
    assert set(idx[0][:2]) == {4, 9} and np.all(val[0][:2] == pytest.approx(1.0))
    i1, v1 = andrea_gpu.nearest_tokens(table[7], table, 3)
    assert i1.shape == (3,) and i1[0] == 7
    with pytest.raises(ValueError, match="k = 71 is more than the 70 rows"):
        andrea_gpu.nearest_tokens(table[0], table, 71)
    with pytest.raises(ValueError, match="query has d_model = 3"):
        andrea_gpu.nearest_tokens(np.ones(3), table, 1)
    table[30] = 0
    with pytest.raises(ValueError, match="table row 30 is all zeros"):
        andrea_gpu.nearest_tokens(table[0], table, 1)


def test_inputs_are_not_mutated():
    rng, ids, tok, pos = _case(2)
    grad = rng.standard_normal(ids.shape + (tok.shape[1],)).astype(np.float32)
    before = [a.copy() for a in (ids, tok, pos, grad)]
    andrea_gpu.lookup(tok, ids), andrea_gpu.embed(ids, tok, pos)
    andrea_gpu.embed_backward(ids, grad, tok.shape[0], pos.shape[0])
    for a, b in zip((ids, tok, pos, grad), before):
        assert a.tobytes() == b.tobytes()


def test_backend_is_chosen_at_run_time(monkeypatch, backend):
    assert backend_name() == backend and andrea_gpu.engine().be.name == backend
    monkeypatch.delenv("ANDREA_GPU_BACKEND")
    assert backend_name() == ("cuda" if HAS_CUDA else "cpu")
    monkeypatch.setenv("ANDREA_GPU_BACKEND", "tpu")
    with pytest.raises(ValueError, match="ANDREA_GPU_BACKEND must be one of cuda, cpu"):
        andrea_gpu.lookup(np.zeros((2, 2), np.float32), [0])
    if not HAS_CUDA:
        monkeypatch.setenv("ANDREA_GPU_BACKEND", "cuda")
        with pytest.raises(BackendUnavailable, match="no CUDA device"):
            andrea_gpu.lookup(np.zeros((2, 2), np.float32), [0])


@pytest.mark.skipif(HAS_CUDA, reason="the cuda run of this module is generated instead")
@pytest.mark.gpu
def test_cuda_run_of_this_module():
    """Placeholder where no GPU exists: with one, every test above also runs on cuda."""
