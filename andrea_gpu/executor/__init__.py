"""The CPU executor: run CUDA kernel sources on the CPU, catching out-of-bounds and races.

``Module(source_text, name)`` compiles a .cu source with the host C++ compiler (cached, see
``build``), and ``Module.get_function(name)`` returns a kernel launched like ``cupy.RawKernel``
over numpy arrays. See ``launch`` for the checks and docs/gpu.md for the limits.
"""

from .build import BuildError, build, cache_dir, kernel_names
from .launch import (DEFAULT_ORDERS, Kernel, KernelError, Module, OutOfBoundsError, RaceError,
                     default_orders)

__all__ = ["BuildError", "build", "cache_dir", "kernel_names", "DEFAULT_ORDERS", "Kernel",
           "KernelError", "Module", "OutOfBoundsError", "RaceError", "default_orders"]
