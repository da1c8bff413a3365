"""Shared fixtures for andrea_gpu's tests: the CPU executor by default, the GPU where one exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from andrea_gpu.backend import cuda_available

KERNELS = Path(__file__).resolve().parent / "kernels"
HAS_CUDA = cuda_available()
NO_CUDA_REASON = "no CUDA device (cupy.cuda.is_available() is False): GPU checks skipped"


@pytest.fixture(autouse=True)
def _backend_env(monkeypatch, request):
    """Tests run on the CPU executor unless marked gpu, which run on the device."""
    if request.node.get_closest_marker("gpu"):
        if not HAS_CUDA:
            pytest.skip(NO_CUDA_REASON)
        monkeypatch.setenv("ANDREA_GPU_BACKEND", "cuda")
    else:
        monkeypatch.setenv("ANDREA_GPU_BACKEND", "cpu")
    monkeypatch.delenv("ANDREA_EXEC_ORDERS", raising=False)


@pytest.fixture(scope="session")
def selftest_module():
    from andrea_gpu.executor import Module
    return Module((KERNELS / "selftest.cu").read_text(), "selftest.cu")
