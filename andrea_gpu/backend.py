"""Where andrea_gpu's kernels run: a CUDA device through CuPy, or the CPU executor.

Both backends take the same kernel sources and offer the same small interface, so the host
code in ``andrea_gpu.ops`` is written once:

* ``module(text, name)`` -> object with ``get_function(name)``; the kernel is called as
  ``kernel(grid, block, args, shared_mem=0)`` (``cupy.RawKernel``'s convention);
* ``xp``: the array library (cupy or numpy), ``asarray`` / ``asnumpy`` to move data;
* ``shape(kind, n)``: the launch shape for `n` work items of a kind of kernel.

``get_backend()`` picks "cuda" when ``cupy.cuda.is_available()`` and "cpu" otherwise; the
environment variable ``ANDREA_GPU_BACKEND=cuda|cpu`` overrides the choice.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
ENV_VAR = "ANDREA_GPU_BACKEND"
BACKENDS = ("cuda", "cpu")


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run on this machine (e.g. cuda without a device)."""


def cuda_available() -> bool:
    """True when CuPy is installed and sees at least one CUDA device."""
    try:
        import cupy
        return bool(cupy.cuda.is_available())
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean "no"
        return False


def kernel_source(name: str) -> str:
    """The text of one of andrea_gpu's kernel files (``embedding.cu``, ``cosine.cu``)."""
    path = KERNEL_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"andrea_gpu has no kernel source {name!r} in {KERNEL_DIR}")
    return path.read_text(encoding="utf-8")


class CpuBackend:
    """Kernels on the CPU executor over numpy arrays (small launch shapes: fibers are slow)."""

    name = "cpu"
    xp = np

    def __init__(self):
        self._modules: dict[tuple[str, str], object] = {}

    def module(self, text: str, name: str):
        from .executor import Module
        key = (name, text)
        if key not in self._modules:
            self._modules[key] = Module(text, name)
        return self._modules[key]

    @staticmethod
    def asarray(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a)

    @staticmethod
    def launch(kernel, grid, block, args, shared_mem=0, deterministic=True):
        """Run `kernel`; schedules are compared only for kernels meant to be deterministic."""
        kernel(grid, block, args, shared_mem=shared_mem, check_order=deterministic)

    @staticmethod
    def asnumpy(a) -> np.ndarray:
        return np.asarray(a)

    @staticmethod
    def shape(kind: str, n: int, width: int | None = None) -> tuple[tuple[int], tuple[int]]:
        """(grid, block): every kernel is grid-stride, so few blocks of few threads suffice."""
        block = 64 if kind == "flat" else 32
        return (max(1, min(n, 8)),), (block,)


class CudaBackend:
    """Kernels on the current CUDA device through ``cupy.RawModule``."""

    name = "cuda"

    def __init__(self):
        if not cuda_available():
            raise BackendUnavailable("ANDREA_GPU_BACKEND=cuda but CuPy sees no CUDA device")
        import cupy
        self.xp = cupy
        self._modules: dict[tuple[str, str], object] = {}

    def module(self, text: str, name: str):
        from .nvrtc import OPTIONS
        key = (name, text)
        if key not in self._modules:
            self._modules[key] = self.xp.RawModule(code=text, options=OPTIONS,
                                                   backend="nvrtc")
        return self._modules[key]

    def asarray(self, a):
        return self.xp.ascontiguousarray(self.xp.asarray(a))

    @staticmethod
    def launch(kernel, grid, block, args, shared_mem=0, deterministic=True):
        kernel(grid, block, tuple(args), shared_mem=shared_mem)

    def asnumpy(self, a) -> np.ndarray:
        return self.xp.asnumpy(a)

    @staticmethod
    def shape(kind: str, n: int, width: int | None = None) -> tuple[tuple[int], tuple[int]]:
        """(grid, block) for `n` work items.

        "rows": one block per row, threads across the row's `width` vectors (rounded up to a
        warp, 64..256; d_model = 768 gives 192 threads, one float4 each); "reduce": blocks of
        256 with shared-memory reductions; "flat": one thread per item.
        """
        if kind == "flat":
            return (max(1, min(-(-n // 256), 1 << 16)),), (256,)
        if kind == "reduce":
            return (max(1, min(n, 1 << 20)),), (256,)
        block = 128 if width is None else min(256, max(64, -(-width // 32) * 32))
        return (max(1, min(n, 1 << 20)),), (block,)


@lru_cache(maxsize=None)
def _make(name: str):
    return CudaBackend() if name == "cuda" else CpuBackend()


def backend_name() -> str:
    """The backend in force: $ANDREA_GPU_BACKEND if set, else cuda if a device exists, else cpu."""
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env:
        if env not in BACKENDS:
            raise ValueError(f"{ENV_VAR} must be one of {', '.join(BACKENDS)}, got {env!r}")
        return env
    return "cuda" if cuda_available() else "cpu"


def get_backend(name: str | None = None):
    """The backend object for `name` (default: ``backend_name()``)."""
    name = backend_name() if name is None else name
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    return _make(name)
