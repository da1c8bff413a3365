"""The kernel loader of a grading worker: a .cu submission behind the contract's functions.

``andrea_runtime``'s worker imports nothing of andrea_gpu by name (the runtime uses only the
standard library and NumPy); for a kernel submission the grader names this module on the
worker's command line (``--kernel-loader andrea_gpu.worker_loader``) and puts it, with the rest
of the kernel runtime, in ``runtime/kernel`` (andrea_gpu less its reference kernels, ``ops.py``
and ``submission.py``). The worker calls

* :func:`load` ``(path, kernel_dir)``: the contract functions of the submission (the contract
  read from ``kernel_dir/contract.json``, the argument checks of ``andrea_runtime.validate``),
  or :class:`CompileError` when it does not compile;
* :func:`said` ``(exc)``: an exception's finding as plain data (a template and its values; a
  compile refusal: a list of them), which the grader checks again against its catalog of
  executor sentences, or None.
"""

from __future__ import annotations

import json
import os

#: What a compile error's message may hold (the compiler's log, cut).
LOG_LIMIT = 4000


class CompileError(Exception):
    """The kernel source does not compile (the message is the compiler's log); ``said``: the
    kit's refusal as sentences (host.CompileFeedback), where it is one."""

    said = None

    def translatable(self):
        return self.said


def load(path: str, kernel_dir: str):
    """The contract functions of the .cu file `path`, compiled as the grader compiles it (for
    the GPU with NVRTC, run where the worker can: on the GPU, else in the CPU executor)."""
    from andrea_runtime import validate
    from andrea_runtime.kernel_contract import KernelContract

    from . import host

    try:
        with open(os.path.join(kernel_dir, "contract.json"), encoding="utf-8") as f:
            contract = KernelContract.from_data(json.load(f))
    except (OSError, ValueError) as exc:   # the grader's file: unreadable, not the contract
        raise RuntimeError(f"kernel grading unavailable: {exc}") from None
    ok, log = host.compile_kernel_source(path, contract)
    if not ok:
        exc = CompileError(str(log)[:LOG_LIMIT])
        if isinstance(log, host.CompileFeedback):   # the kit's own sentences, translatable
            exc.said = log.translatable()
        raise exc
    return host.load_kernel_submission(path, contract, validate, compiled_for_gpu=True)


def said(exc: BaseException):
    """The finding of `exc` (``translatable()`` of andrea_gpu's exceptions) as plain data, or
    None (the worker reports it beside the exception; the grader trusts none of it unchecked)."""
    try:
        if not str(getattr(type(exc), "__module__", "")).startswith("andrea_gpu."):
            return None
        return json.loads(json.dumps(exc.translatable()))
    except BaseException:  # noqa: BLE001 - a hostile or odd exception: no finding
        return None
