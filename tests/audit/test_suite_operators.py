"""Meta-tests of andrea-audit suite's mutation operators: each writes the expected mutant of a
small sample source, and changes nothing else of the file."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graders.audit.mutate import OPERATORS, python_mutants
from graders.audit.mutate_cu import cuda_mutants, tokenize

ROOT = Path(__file__).resolve().parents[2]

SAMPLE = '''"""A sample implementation (module docstring: never mutated)."""
import math

import numpy as np

LIMIT = 3   # module constants are never mutated


def _check(name, value):
    if value < 1:
        raise ValueError(name)
    return value


def backward(ids, grads, rows):
    """Docstring."""
    g = np.zeros((rows, grads.shape[1]), dtype=np.float32)   # keep this comment
    for t in range(ids.shape[0]):
        g[ids[t]] += grads[t]
    return g


def backward_at(ids, grads, rows):
    g = np.zeros((rows, grads.shape[-1]), dtype=np.float32)
    np.add.at(g, ids, grads)
    return g


def total(x):
    return x.sum(axis=0)


def first(x, n):
    n = _check("n", n)
    return x[:n]


def in_range(ids, rows):
    if ids.min() < 0 or ids.max() >= rows:
        raise IndexError("out of range")
    return ids.astype(np.int64)


def init(rows, d, rng):
    return rng.standard_normal((rows, d)) * (1.0 / math.sqrt(d))


def scaled(x, c):
    y = x * c
    return y


def private(x):
    return x.copy()


def mean_of(a, b):
    return np.subtract(a, b).mean()
'''

# operator -> (a line the mutant must have, a line it must no longer have)
EXPECTED = {
    "scatter_assign": ("        g[ids[t]] = grads[t]", "        g[ids[t]] += grads[t]"),
    "add_at_assign": ("    g[ids] = grads", "    np.add.at(g, ids, grads)"),
    "axis": ("    return x.sum(axis=1)", "    return x.sum(axis=0)"),
    "index_shift": ("        g[ids[t - 1]] += grads[t]", None),
    "slice_bound": ("    return x[:n - 1]", "    return x[:n]"),
    "range_bound": ("    for t in range(ids.shape[0] - 1):", None),
    "compare_boundary": ("    if ids.min() <= 0 or ids.max() >= rows:", None),
    "remove_check": ("    if ids.max() >= rows:", None),
    "dtype": ("    return ids.astype(np.float64)", None),
    "sqrt": ("    return rng.standard_normal((rows, d)) * (1.0 / d)", None),
    "reduction": ("    return x.mean(axis=0)", None),
    "drop_copy": ("    return x", "    return x.copy()"),
    "in_place": ("    x *= c", "    y = x * c"),
    "swap_args": ("    return np.subtract(b, a).mean()", None),
    "global_rng": ("    return _andrea_global_rng.standard_normal((rows, d)) * (1.0 / math.sqrt(d))",
                   None),
}


@pytest.fixture(scope="module")
def mutants():
    return python_mutants(SAMPLE, "sample.py")


@pytest.mark.parametrize("operator", sorted(EXPECTED))
def test_operator_writes_the_expected_mutant(operator, mutants):
    want, gone = EXPECTED[operator]
    mine = [m for m in mutants if m.operator == operator]
    assert mine, f"no {operator} mutant of the sample"
    hits = [m for m in mine if want in m.mutated.splitlines()]
    assert hits, f"{operator}: none has {want!r}:\n" + "\n".join(m.diff() for m in mine)
    m = hits[0]
    if gone:
        assert gone not in m.mutated.splitlines()
    ast.parse(m.mutated)                        # every mutant is valid Python
    assert m.kind and m.function and m.description and m.line > 0


def test_only_function_bodies_change_and_the_rest_is_kept_byte_for_byte(mutants):
    assert len({m.mutated for m in mutants}) == len(mutants)   # no duplicates
    for m in mutants:
        assert "keep this comment" in m.mutated
        assert m.mutated.startswith('"""A sample implementation')
        assert "LIMIT = 3   # module constants" in m.mutated
        diff = [ln for ln in m.diff(0).splitlines() if ln[:1] in "+-"
                and not ln.startswith(("+++", "---"))]
        if m.operator in ("in_place",) or m.operator == "global_rng":
            continue   # two lines: the new statement and its use
        added = [ln for ln in diff if ln.startswith("+")]
        assert len(added) == 1, m.diff()      # one line in (a removed check: several out)
        assert len(diff) == 2 or m.operator == "remove_check", m.diff()


def test_a_raise_guard_removed_and_its_boundary_is_an_errors_bug(mutants):
    removed = [m for m in mutants if m.operator == "remove_check" and m.function == "_check"]
    assert any("if value < 1" not in m.mutated for m in removed)
    flips = [m for m in mutants if m.operator == "compare_boundary"
             and m.function == "in_range"]
    assert flips and all(m.kind == "errors" for m in flips)
    checker_bypass = [m for m in mutants if m.operator == "remove_check"
                      and m.function == "first"]
    assert any('    n = n\n' in m.mutated for m in checker_bypass)


def test_every_python_operator_is_exercised_by_the_sample():
    python_ops = {op for op in OPERATORS if op not in (
        "atomic_to_plain", "remove_syncthreads", "drop_grid_stride", "bound_off_by_one",
        "remove_id_check")}
    assert python_ops == set(EXPECTED)


def test_a_source_that_does_not_parse_is_one_clear_error():
    from graders.audit.mutate import MutationError

    with pytest.raises(MutationError, match="broken.py: does not parse"):
        python_mutants("def f(:\n", "broken.py")


# ----------------------------------------------------------------------------- CUDA
KERNEL = r'''// sample kernel: atomicAdd( in a comment is never touched
#include <cstdint>
__device__ bool ok(int id, int n) {
    if (id >= 0 && id < n) return true;
    return false;
}

extern "C" __global__ void scatter(const int *ids, const float *g, float *out, int n_ids,
                                   int d, int rows) {
    __shared__ float tile[32];
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x) {
        const int id = ids[row];
        if (!ok(id, rows)) continue;
        tile[threadIdx.x % 32] = g[row];
        __syncthreads();
        for (int c = threadIdx.x; c < d; c += blockDim.x)
            atomicAdd(out + (size_t)id * d + c, reinterpret_cast<const float *>(g)[c]);
    }
}

__device__ void unused(float *p) { atomicAdd(p, 1.0f); }
'''

CU_EXPECTED = {
    "atomic_to_plain": "*(out + (size_t)id * d + c) += reinterpret_cast<const float *>(g)[c];",
    "remove_syncthreads": "        ;\n",
    "drop_grid_stride": "    if (int row = blockIdx.x; row < n_ids) {",
    "bound_off_by_one": "    for (int row = blockIdx.x; row <= n_ids; row += gridDim.x) {",
    "remove_id_check": "    if (true) return true;",
}


@pytest.mark.parametrize("operator", sorted(CU_EXPECTED))
def test_cuda_operator_writes_the_expected_mutant(operator):
    mine = [m for m in cuda_mutants(KERNEL, "k.cu") if m.operator == operator]
    assert mine, operator
    assert any(CU_EXPECTED[operator] in m.mutated for m in mine), \
        "\n".join(m.diff() for m in mine)
    for m in mine:
        assert "atomicAdd( in a comment" in m.mutated
        assert "unused" not in m.description and "unused" not in (m.function or "")


def test_a_dropped_grid_stride_loop_still_builds_its_jumps_leave_the_thread():
    (m,) = [m for m in cuda_mutants(KERNEL, "k.cu") if m.operator == "drop_grid_stride"]
    assert "        if (!ok(id, rows)) return;" in m.mutated
    assert "c += blockDim.x)" in m.mutated          # the inner (block-stride) loop is kept


def test_a_grid_stride_step_kept_in_a_variable_is_recognised():
    src = ("extern \"C\" __global__ void k(float *o, int n) {\n"
           "    const int step = blockDim.x * gridDim.x;\n"
           "    for (int i = threadIdx.x; i < n; i += step) o[i] = 0;\n}\n")
    (m,) = [m for m in cuda_mutants(src, "k.cu") if m.operator == "drop_grid_stride"]
    assert "    if (int i = threadIdx.x; i < n) o[i] = 0;" in m.mutated


def test_cuda_removes_the_skip_of_a_bad_id_and_never_mutates_casts():
    ms = cuda_mutants(KERNEL, "k.cu")
    assert any("if (!ok(id, rows)) continue;" not in m.mutated
               and m.operator == "remove_id_check" for m in ms)
    assert all("reinterpret_cast<const float *>" in m.mutated for m in ms)


@pytest.mark.parametrize("name", ["embedding.cu", "cosine.cu"])
def test_the_tokenizer_gives_the_file_back(name):
    text = (ROOT / "andrea_gpu" / "kernels" / name).read_text(encoding="utf-8")
    assert "".join(t.text for t in tokenize(text)) == text


def test_the_bundled_kernels_get_every_kernel_operator_but_syncthreads():
    text = (ROOT / "andrea_gpu" / "kernels" / "embedding.cu").read_text(encoding="utf-8")
    ops = {m.operator for m in cuda_mutants(text, "embedding.cu")}
    assert {"atomic_to_plain", "drop_grid_stride", "bound_off_by_one",
            "remove_id_check"} <= ops
