"""Kernel submissions: compile feedback, loading, and grading behaviour on the CPU executor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import andrea_ref
from andrea_gpu.backend import KERNEL_DIR
from andrea_gpu.executor import RaceError
from andrea_gpu.host import KernelContractError
from andrea_gpu.submission import (KernelContract, SubmissionError, compile_kernel_source,
                                   load_kernel_submission)
from spec import CONTRACT, load_spec

GOOD = KERNEL_DIR / "embedding.cu"
CORPUS = Path(__file__).resolve().parent / "kernels" / "submissions"

# A submission whose kernels forget the grid-stride loop: right only when gridDim.x covers
# every row, which the contract's test shapes (grid 1, grid 3) do not.
NO_GRID_STRIDE = r'''
extern "C" __global__ void andrea_lookup(const float* table, const int* ids, float* out,
                                         int n_ids, int d_model, int num_rows, int* bad) {
    int row = blockIdx.x;
    if (row >= n_ids) return;
    for (int c = threadIdx.x; c < d_model; c += blockDim.x)
        out[row * d_model + c] = table[ids[row] * d_model + c];
}
extern "C" __global__ void andrea_embed_forward(const int* ids, const float* tok,
        const float* pos, float* out, int n_ids, int seq_len, int d_model, int num_rows,
        int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x)
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            out[row * d_model + c] = tok[ids[row] * d_model + c] + pos[(row % seq_len) * d_model + c];
}
extern "C" __global__ void andrea_embed_backward_token(const int* ids, const float* g,
        float* gt, int n_ids, int d_model, int num_rows, int* bad) {
    for (int row = blockIdx.x; row < n_ids; row += gridDim.x)
        for (int c = threadIdx.x; c < d_model; c += blockDim.x)
            atomicAdd(gt + ids[row] * d_model + c, g[row * d_model + c]);
}
extern "C" __global__ void andrea_embed_backward_position(const float* g, float* gp,
        int batch, int seq_len, int d_model) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < seq_len * d_model;
         i += blockDim.x * gridDim.x) {
        float s = 0.0f;
        for (int b = 0; b < batch; ++b) s += g[b * seq_len * d_model + i];
        gp[i] = s;
    }
}
'''


@pytest.fixture
def submission_file(tmp_path):
    def write(text: str, name: str = "student.cu") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


def test_contract_comes_from_the_spec():
    contract = KernelContract.from_spec(load_spec())
    assert [e.name for e in contract.entry_points] == [
        "andrea_lookup", "andrea_embed_forward", "andrea_embed_backward_token",
        "andrea_embed_backward_position"]
    assert contract.arch == "sm_90"
    assert contract.entry_points[0].signature() == (
        'extern "C" __global__ void andrea_lookup(const float* table, const int* ids, '
        'float* out, int n_ids, int d_model, int num_rows, int* bad)')


def test_andrea_gpu_kernels_meet_the_contract():
    ok, log = compile_kernel_source(GOOD)
    assert ok, log


def test_compile_feedback_names_missing_entry_points(submission_file):
    ok, log = compile_kernel_source(submission_file(
        'extern "C" __global__ void andrea_lookup(const float* t, const int* i, float* o, '
        'int n, int d, int r, int* b) {}\n'))
    assert not ok
    assert "missing kernel entry points" in log and "andrea_embed_forward(const int* ids" in log


def test_compile_feedback_names_signature_mismatches_and_errors(submission_file):
    text = NO_GRID_STRIDE.replace("int num_rows, int* bad) {\n    int row",
                                  "int num_rows) {\n    int row").replace(
        "gp[i] = s;", "gp[i] = s + undefined_name;")
    ok, log = compile_kernel_source(submission_file(text))
    assert not ok
    assert "andrea_lookup must be declared as" in log
    assert 'identifier "undefined_name" is undefined' in log
    assert "student.cu(" in log  # positions refer to the student's file


def test_load_rejects_what_does_not_build(submission_file):
    with pytest.raises(SubmissionError, match="does not build for the CPU executor") as err:
        load_kernel_submission(submission_file(NO_GRID_STRIDE.replace("s += g", "s += q")))
    assert "'q' was not declared" in err.value.log
    with pytest.raises(SubmissionError, match="no such file"):
        load_kernel_submission("/nonexistent/kernels.cu")


def test_a_correct_submission_behaves_like_the_reference():
    sub = load_kernel_submission(GOOD, backend="cpu")
    assert all(callable(getattr(sub, f)) for f in CONTRACT)
    rng = np.random.default_rng(3)
    tab = rng.standard_normal((30, 8)).astype(np.float32)
    pos = rng.standard_normal((10, 8)).astype(np.float32)
    ids = rng.integers(0, 30, (2, 10))
    grad = rng.standard_normal((2, 10, 8)).astype(np.float32)
    for _ in range(3):  # each call uses the next launch shape of the contract
        assert sub.lookup(tab, ids).tobytes() == andrea_ref.lookup(tab, ids).tobytes()
        np.testing.assert_array_equal(sub.embed(ids, tab, pos), andrea_ref.embed(ids, tab, pos))
        for g, w in zip(sub.embed_backward(ids, grad, 30, 10),
                        andrea_ref.embed_backward(ids, grad, 30, 10)):
            np.testing.assert_allclose(g, w, atol=1e-5)
    with pytest.raises(IndexError):
        sub.lookup(tab, [30])


def test_a_kernel_without_grid_stride_is_caught(submission_file):
    sub = load_kernel_submission(submission_file(NO_GRID_STRIDE), backend="cpu")
    tab = np.arange(40, dtype=np.float32).reshape(10, 4)
    ids = np.arange(10)
    # shapes: grid 1, grid 3, grid = rows; out is not zeroed before a launch, so the rows the
    # kernel skips are reported as never written
    for grid in (1, 3):
        with pytest.raises(KernelContractError, match=rf"andrea_lookup \(grid {grid}, block "
                                                      rf"\d+\) did not write out\[{grid}, 0\]"):
            sub.lookup(tab, ids)
    np.testing.assert_array_equal(sub.lookup(tab, ids), tab[ids])


def test_an_output_added_to_instead_of_written_is_caught(submission_file):
    """out holds every bit set before a launch (on a GPU: whatever was there), so += on it is
    seen; zeroed outputs (the gradients) stay zeroed."""
    src = (CORPUS / "correct_grid_stride_rows.cu").read_text().replace(
        "out[(size_t)row * d_model + c] =\n", "out[(size_t)row * d_model + c] +=\n")
    sub = load_kernel_submission(submission_file(src), backend="cpu")
    tab, pos = np.ones((4, 3), np.float32), np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(sub.lookup(tab, [1, 2]), tab[[1, 2]])
    with pytest.raises(KernelContractError, match=r"did not write out\[0, 0\] \(6 of 6 "):
        sub.embed([1, 2], tab, pos)


def test_a_kernel_declared_through_a_macro_is_found_and_its_arguments_named(submission_file):
    """`KERNEL andrea_embed_backward_token(...)` with `#define KERNEL extern "C" __global__
    void`: the entry point is found, and a finding names its arguments as the contract does."""
    src = (CORPUS / "correct_declaration_styles.cu").read_text().replace(
        "atomicAdd(&grad_token[(size_t)id * d_model + c], grad_out[(size_t)row * d_model + c]);",
        "grad_token[(size_t)id * d_model + c] += grad_out[(size_t)row * d_model + c];")
    assert "KERNEL andrea_embed_backward_token(" in src and "+= grad_out[" in src
    sub = load_kernel_submission(submission_file(src), backend="cpu")
    with pytest.raises(RaceError, match=r"data race on argument 2 \(grad_token\)"):
        for _ in range(3):  # launch shapes: grid 1 (one block: no race), then grid 3
            sub.embed_backward(np.zeros(40, np.int64), np.ones((40, 3), np.float32), 2, 40)


def test_the_feedbacks_reproducer_and_the_self_check_load_a_kernel(tmp_path, capsys):
    """The feedback tells a kernel's author to run `load_impl('x.cu')` or `andrea-conform x.cu`:
    both build it as the grader does, and the self-check runs the kernel groups only."""
    from graders.conformance import cli as conform_cli
    from graders.conformance.runner import ImplementationLoadError, load_impl

    bug = CORPUS / "bug_assign_not_accumulate.cu"
    impl = load_impl(str(bug))
    ids = np.array([[1, 1]], dtype=np.int64)
    grad = np.ones((1, 2, 3), dtype=np.float32)
    token, position = impl.embed_backward(ids, grad, 4, 2)
    assert token.shape == (4, 3) and position.shape == (2, 3) and token.dtype == np.float32
    assert conform_cli.main([str(bug), "--profile", "dev"]) == 1
    out = capsys.readouterr().out
    assert "BWD-TOK-01" in out and "VEC-DOT-01" not in out   # the kernel's groups only
    bad = tmp_path / "bad.cu"
    bad.write_text("garbage {\n")
    with pytest.raises(ImplementationLoadError, match="bad.cu: .*lacks entry points"):
        load_impl(str(bad))
    assert conform_cli.main([str(bad)]) == 2
    assert "Traceback" not in capsys.readouterr().err
