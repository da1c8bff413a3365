"""Kernel submissions in this checkout: ``andrea_gpu.host`` with the spec's contract.

The grader's worker uses ``andrea_gpu.host`` directly, with the contract as JSON and only the
kernel runtime in its sandbox. This module is the same thing for code that runs next to the
project (tests, the course's own tools): it reads the contract from the spec (the ``kernels:``
key of spec/andrea-120m.yaml), checks arguments with ``andrea_runtime.validate``, and takes the
contract functions that have no kernel (the spec's ``contract:`` less lookup, embed and
embed_backward: the parameter counts, init_table, dot, norm, cosine) from andrea_ref, so a
``KernelSubmission`` offers the whole Python contract.

* ``compile_kernel_source(path) -> (ok, log)``: refused includes, missing entry points,
  signature mismatches and NVRTC errors for the contract's arch (sm_90). Works without a GPU.
* ``load_kernel_submission(path) -> KernelSubmission``: lookup, embed and embed_backward
  launch the submitted kernels on a CUDA device or the CPU executor (see andrea_gpu.host for
  the launch shapes and the kernel-level bad-id checks).
"""

from __future__ import annotations

from pathlib import Path

import andrea_ref
from andrea_runtime import validate
from spec import load_spec

from . import host
from .host import KernelContractError, SubmissionError

MAX_SOURCE_BYTES = host.MAX_SOURCE_BYTES


class KernelContract(host.KernelContract):
    """The kernel contract, read from a spec."""

    @classmethod
    def from_spec(cls, spec=None) -> "KernelContract":
        spec = spec if spec is not None and hasattr(spec, "raw") else load_spec(spec)
        if getattr(spec, "kernels", None) is None:
            raise SubmissionError(f"spec {spec.name} defines no kernel contract (no 'kernels:')")
        return spec.kernels


def compile_kernel_source(path, *, spec=None, arch: str | None = None) -> tuple[bool, str]:
    """Compile a submitted .cu with NVRTC (no GPU needed); (ok, compiler log or feedback)."""
    return host.compile_kernel_source(path, KernelContract.from_spec(spec), arch=arch)


class KernelSubmission:
    """A kernel submission behind the Python contract (see the module docstring)."""

    #: embed_backward takes `outputs`: a check of one gradient launches only that gradient's
    #: kernel (graders/conformance/checks/backward.py), so each kernel is charged to its own
    #: clauses.
    kernel_outputs = True

    def __init__(self, kernels: host.KernelHost, functions: tuple[str, ...] = ()):
        self.kernels = kernels
        self.path = kernels.path
        self.contract = kernels.contract
        # The spec's required contract functions that no kernel computes: andrea_ref's.
        self._from_reference = tuple(f for f in functions
                                     if f not in ("lookup", "embed", "embed_backward"))

    def __getattr__(self, name):
        if name in self.__dict__.get("_from_reference", ()):
            return getattr(andrea_ref, name)
        raise AttributeError(f"{type(self).__name__} has no {name!r}")

    @property
    def backend(self) -> str:
        return self.kernels.backend

    def lookup(self, table, token_ids):
        return self.kernels.lookup(table, token_ids)

    def embed(self, token_ids, token_table, position_table):
        return self.kernels.embed(token_ids, token_table, position_table)

    def embed_backward(self, token_ids, grad_out, vocab_size, context_length, *, outputs=None):
        return self.kernels.embed_backward(token_ids, grad_out, vocab_size, context_length,
                                           outputs=outputs)

    def __repr__(self):
        return f"KernelSubmission({self.path!r}, backend={self.backend!r})"


def load_kernel_submission(path, *, backend: str | None = None, spec=None,
                           compile_first: bool = False) -> KernelSubmission:
    """Build a submitted .cu for `backend` (default: cuda if available, else the CPU executor).

    Raises SubmissionError (with the compiler log) when includes are refused, entry points are
    missing, a signature differs from the contract, or the source does not build.
    `compile_first` (the self-check): first compile it with NVRTC for the GPU, as the grader's
    worker does (andrea_gpu/worker_loader.py), so that what NVRTC rejects and g++ would take (a
    helper function without __device__, a host main()) is refused here too, with NVRTC's log
    (a ``SubmissionError`` whose ``compile_log`` is set); where NVRTC cannot be loaded the
    executor's build alone decides, as before.
    """
    from .nvrtc import NvrtcUnavailable

    spec = spec if spec is not None and hasattr(spec, "contract") else load_spec(spec)
    contract = KernelContract.from_spec(spec)
    compiled = False
    if compile_first:
        try:
            ok, log = host.compile_kernel_source(path, contract)
        except NvrtcUnavailable:
            ok, log = None, ""      # said by the kit (messages.MSG_NO_NVRTC): nvrtc_skipped
        if ok is False and not isinstance(log, host.CompileFeedback):
            exc = SubmissionError(f"kernel submission {Path(path).name} does not compile", log)
            exc.compile_log = str(log)
            raise exc
        compiled = ok is True
    impl = KernelSubmission(host.load_kernel_submission(
        path, contract, validate, backend=backend, compiled_for_gpu=compiled),
        spec.contract.required)
    impl.nvrtc_skipped = compile_first and ok is None
    return impl


__all__ = ["KernelContract", "KernelContractError", "KernelSubmission", "SubmissionError",
           "compile_kernel_source", "load_kernel_submission"]
