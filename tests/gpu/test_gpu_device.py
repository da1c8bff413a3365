"""The same checks on a CUDA device, at the spec's real sizes. Skipped, with the reason, without one.

The autouse fixture in conftest.py skips every test marked ``gpu`` when CuPy sees no device
and otherwise sets ANDREA_GPU_BACKEND=cuda for it.
"""

from __future__ import annotations

import numpy as np
import pytest

import andrea_gpu
import andrea_ref
from andrea_gpu.backend import KERNEL_DIR, cuda_available
from andrea_gpu.submission import load_kernel_submission
from spec import load_spec

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(
    not cuda_available(), reason="no CUDA device (cupy.cuda.is_available() is False): GPU "
                                 "checks skipped")]

SPEC = load_spec()
V, T, D = SPEC.model.vocab_size, SPEC.model.context_length, SPEC.model.d_model


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(2024)
    tok = andrea_ref.init_table(V, D, rng)
    pos = andrea_ref.init_table(T, D, rng)
    ids = rng.integers(0, V, (4, T))
    grad = rng.standard_normal((4, T, D), dtype=np.float32)
    return tok, pos, ids, grad


def test_runs_on_the_device():
    assert andrea_gpu.engine().be.name == "cuda"


def test_forward_at_real_size_is_exact(real):
    tok, pos, ids, _ = real
    assert andrea_gpu.lookup(tok, ids).tobytes() == andrea_ref.lookup(tok, ids).tobytes()
    np.testing.assert_array_equal(andrea_gpu.embed(ids, tok, pos), andrea_ref.embed(ids, tok, pos))
    np.testing.assert_array_equal(andrea_gpu.embed(ids[0], tok, pos),
                                  andrea_ref.embed(ids[0], tok, pos))


@pytest.mark.parametrize("deterministic", [True, False])
def test_backward_at_real_size(real, deterministic):
    _, _, ids, grad = real
    few = ids % 7  # heavy repeats: the atomic path contends, the sorted path has long runs
    got = andrea_gpu.embed_backward(few, grad, V, T, deterministic=deterministic)
    want = andrea_ref.embed_backward(few, grad, V, T)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-7 * few.size * 5)


def test_deterministic_backward_is_bit_identical_on_the_device(real):
    _, _, ids, grad = real
    a = andrea_gpu.embed_backward(ids % 50, grad, V, T)
    b = andrea_gpu.embed_backward(ids % 50, grad, V, T)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a, b))


def test_nearest_tokens_on_the_device(real):
    tok = real[0]
    idx, val = andrea_gpu.nearest_tokens(tok[:3], tok, k=5)
    np.testing.assert_array_equal(idx[:, 0], [0, 1, 2])
    np.testing.assert_allclose(val[:, 0], 1.0, atol=1e-12)
    t64 = tok.astype(np.float64)
    want = t64[:3] @ t64.T / np.outer(np.linalg.norm(t64[:3], axis=1), np.linalg.norm(t64, axis=1))
    np.testing.assert_allclose(val, -np.sort(-want, axis=1)[:, :5], atol=1e-9)


def test_bad_ids_are_errors_on_the_device(real):
    tok, pos, ids, _ = real
    with pytest.raises(IndexError):
        andrea_gpu.embed(np.array([0, V]), tok, pos)


def test_submission_runs_on_the_device(real):
    tok, pos, ids, _ = real
    sub = load_kernel_submission(KERNEL_DIR / "embedding.cu", backend="cuda")
    for _ in range(3):
        np.testing.assert_array_equal(sub.embed(ids, tok, pos), andrea_ref.embed(ids, tok, pos))
