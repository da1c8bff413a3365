"""Kernel submissions: a student's .cu file behind the Python contract, for the grader.

The kernel contract is data in the spec (the ``kernels:`` key of spec/andrea-120m.yaml): the
entry point names, their parameter types, and the launch-shape rule. This module turns it into

* ``compile_kernel_source(path) -> (ok, log)``: NVRTC compile for the contract's arch (sm_90)
  of the source plus a generated signature check (``static_assert`` per entry point, appended
  after the student's text so line numbers in the log are theirs). Works without a GPU.
* ``load_kernel_submission(path) -> KernelSubmission``: an object with the ten contract
  functions. lookup, embed and embed_backward launch the submitted kernels (float32; other
  dtypes go to andrea_ref, the contract being float32), on a CUDA device or the CPU executor;
  the rest is andrea_ref's. Every launch uses the next shape of ``launch.test_shapes`` in turn,
  so a kernel that forgets its grid-stride or block-stride loop is caught.

The grader calls both inside its isolated worker process; nothing here forks or sandboxes.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import andrea_ref
from spec import load_spec

from .backend import get_backend
from .executor.build import BuildError, kernel_names
from .ops import Engine

MAX_SOURCE_BYTES = 1 << 20


class SubmissionError(ValueError):
    """A kernel submission cannot be used (unreadable, missing entry points, does not compile).

    ``log`` holds the compiler output where there is one.
    """

    def __init__(self, message: str, log: str = ""):
        self.log = log
        super().__init__(message + (f"\n{log.strip()}" if log.strip() else ""))


@dataclass(frozen=True)
class EntryPoint:
    name: str
    params: tuple[tuple[str, str], ...]  # (name, C type)
    grid: str
    computes: str

    def signature(self) -> str:
        args = ", ".join(f"{t} {n}" for n, t in self.params)
        return f'extern "C" __global__ void {self.name}({args})'


@dataclass(frozen=True)
class KernelContract:
    arch: str
    entry_points: tuple[EntryPoint, ...]
    test_shapes: tuple[tuple, ...]
    rule: str

    @classmethod
    def from_spec(cls, spec=None) -> "KernelContract":
        spec = spec if spec is not None and hasattr(spec, "kernels") else load_spec(spec)
        k = spec.kernels
        if k is None:
            raise SubmissionError(f"spec {spec.name} defines no kernel contract (no 'kernels:')")
        eps = tuple(EntryPoint(e.name, tuple((p.name, p.type) for p in e.params), e.grid,
                               e.computes) for e in k.entry_points)
        return cls(k.arch, eps, k.test_shapes, k.launch_rule)

    def check_source(self) -> str:
        """C++ appended to a submission: one static_assert per entry point's signature."""
        lines = ["", "// ---- andrea kernel contract: signature checks (generated) ----",
                 "template <typename A, typename B> struct andrea_contract_same "
                 "{ static const bool value = false; };",
                 "template <typename A> struct andrea_contract_same<A, A> "
                 "{ static const bool value = true; };"]
        for ep in self.entry_points:
            types = ", ".join(t for _, t in ep.params)
            lines.append(f"static_assert(andrea_contract_same<decltype(&{ep.name}), "
                         f"void (*)({types})>::value, \"{ep.name} must be declared as: "
                         f"{ep.signature().replace(chr(34), chr(92) + chr(34))}\");")
        return "\n".join(lines) + "\n"


def _read(path) -> tuple[str, str]:
    p = Path(path)
    if not p.is_file():
        raise SubmissionError(f"kernel submission {path}: no such file")
    data = p.read_bytes()
    if len(data) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"kernel submission {path}: {len(data)} bytes, more than the "
                              f"{MAX_SOURCE_BYTES} allowed")
    try:
        return data.decode("utf-8"), p.name
    except UnicodeDecodeError:
        raise SubmissionError(f"kernel submission {path}: not UTF-8 text") from None


def _missing(text: str, contract: KernelContract) -> list[str]:
    defined = set(kernel_names(text))
    return [ep.signature() for ep in contract.entry_points if ep.name not in defined]


def compile_kernel_source(path, *, spec=None, arch: str | None = None) -> tuple[bool, str]:
    """Compile a submitted .cu with NVRTC (no GPU needed); (ok, compiler log or feedback).

    The log names missing entry points and signature mismatches as well as compile errors.
    Raises SubmissionError for an unreadable file and NvrtcUnavailable when NVRTC cannot be
    loaded (a problem of the machine, not of the submission).
    """
    from .nvrtc import compile_source

    contract = KernelContract.from_spec(spec)
    text, name = _read(path)
    missing = _missing(text, contract)
    if missing:
        return False, ("missing kernel entry points (each must be defined as written):\n"
                       + "\n".join(f"  {sig}" for sig in missing))
    res = compile_source(text + contract.check_source(), name, arch or contract.arch)
    log = res.log
    if res.ok and 'extern "C"' not in text:
        return False, (log + "\nentry points must be declared extern \"C\" so the grader can "
                       "find them by name").strip()
    return res.ok, log


class _ShapeCycle:
    """Launch shapes from the contract's test_shapes, one after the other, launch by launch."""

    def __init__(self, shapes):
        self._it = itertools.cycle(shapes)

    def __call__(self, kind: str, n: int):
        grid, block = next(self._it)
        if grid == "rows":
            grid = -(-n // block) if kind == "flat" else n
        return (max(1, min(int(grid), 65535)),), (int(block),)


class KernelSubmission:
    """A kernel submission behind the ten-function contract (see the module docstring)."""

    token_embedding_params = staticmethod(andrea_ref.token_embedding_params)
    position_embedding_params = staticmethod(andrea_ref.position_embedding_params)
    embedding_params = staticmethod(andrea_ref.embedding_params)
    init_table = staticmethod(andrea_ref.init_table)
    dot = staticmethod(andrea_ref.dot)
    norm = staticmethod(andrea_ref.norm)
    cosine_similarity = staticmethod(andrea_ref.cosine_similarity)

    def __init__(self, path, engine: Engine, contract: KernelContract):
        self.path = str(path)
        self.contract = contract
        self._engine = engine

    @property
    def backend(self) -> str:
        return self._engine.be.name

    def lookup(self, table, token_ids):
        return self._engine.lookup(table, token_ids)

    def embed(self, token_ids, token_table, position_table):
        return self._engine.embed(token_ids, token_table, position_table)

    def embed_backward(self, token_ids, grad_out, vocab_size, context_length):
        return self._engine.embed_backward(token_ids, grad_out, vocab_size, context_length)

    def __repr__(self):
        return f"KernelSubmission({self.path!r}, backend={self.backend!r})"


def load_kernel_submission(path, *, backend: str | None = None, spec=None) -> KernelSubmission:
    """Build a submitted .cu for `backend` (default: cuda if available, else the CPU executor).

    Raises SubmissionError (with the compiler log) when entry points are missing, a signature
    differs from the contract, or the source does not build for the backend.
    """
    contract = KernelContract.from_spec(spec)
    text, name = _read(path)
    missing = _missing(text, contract)
    if missing:
        raise SubmissionError(f"kernel submission {path} lacks entry points: "
                              + "; ".join(missing))
    be = get_backend(backend)
    source = text + contract.check_source()
    try:
        engine = Engine(be, source, name, native=False, deterministic=False,
                        shapes=_ShapeCycle(contract.test_shapes))
        for ep in contract.entry_points:  # on cuda this is where NVRTC compiles
            engine.mod.get_function(ep.name)
    except BuildError as exc:
        raise SubmissionError(f"kernel submission {path} does not build for the CPU executor",
                              exc.log) from None
    except Exception as exc:  # cupy's CompileException and friends
        if be.name != "cuda":
            raise
        raise SubmissionError(f"kernel submission {path} does not build for the GPU",
                              str(exc)) from None
    return KernelSubmission(path, engine, contract)


__all__ = ["KernelContract", "KernelSubmission", "SubmissionError", "compile_kernel_source",
           "load_kernel_submission"]
