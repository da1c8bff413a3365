"""CUDA sources against the kernel's include check and the grader's trust in the worker
(tests/attacks/kernels/): a file hidden by a lexing trick, a kernel that says NVRTC is missing.

Each file of `tests/attacks/kernels/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from graders.grade import grading
from tests.attacks import CORPUS

from .conftest import LIMITS, grade_path, needs_bwrap


KERNEL_CORPUS = sorted((Path(__file__).resolve().parents[1] / "gpu" / "kernels").rglob("*.cu"))


@pytest.mark.parametrize("name", ["hidden_include.cu", "hidden_include_raw.cu",
                                  "hidden_asm_splice.cu"])
def test_a_file_hidden_by_a_lexing_trick_is_refused(name):
    """Digit separators, raw strings and a raw-string prefix split by a line splice fool a
    comment-and-string reader: each is refused before any compiler runs, on its line."""
    from andrea_gpu import host

    text = (CORPUS / name).read_text()
    with pytest.raises(host.SubmissionError) as err:
        host.check_includes(text, name)
    lines = text.splitlines()
    include = [i for i, line in enumerate(lines, 1) if line.startswith("#include")]
    for num in include:
        assert f"{name}:{num}: error: #include" in err.value.log
    if not include:   # the splice: refused as a raw string where it starts
        start = next(i for i, line in enumerate(lines, 1) if line.rstrip().endswith("R\\"))
        assert f"{name}:{start}: error: raw string literals" in err.value.log


def test_the_kernel_corpus_is_not_refused():
    """No false alarm on real kernels (digit separators, comments, pragmas, includes)."""
    from andrea_gpu import host

    assert KERNEL_CORPUS
    for path in KERNEL_CORPUS + sorted((Path(__file__).resolve().parents[2] / "andrea_gpu" / "kernels")
                                       .glob("*.cu")):
        host.check_includes(path.read_text(), path.name)
    host.check_includes("#include <cstdint>  // ok\n#pragma unroll\nint x = 1'000;\n", "ok.cu")


def test_a_kernel_cannot_pass_itself_off_as_nvrtc_missing(monkeypatch):
    """'NVRTC is unavailable' from the worker is the submission's word: where the grader can
    load NVRTC, it is that submission's import error, not the grader's failure."""
    from graders.grade.proxy import Outcome

    monkeypatch.setattr(grading, "_nvrtc_loads", lambda: True)
    sub = grading.Submission("k.cu", {"k.cu": b""}, "k.cu", "kernel")
    forged = Outcome(ok=False, error={"type": "NvrtcUnavailable", "msg": "no libnvrtc"})
    imp, results = grading._import_failed(sub, forged, [], None)
    assert imp["error"]["type"] == "NvrtcUnavailable" and results == []
    monkeypatch.setattr(grading, "_nvrtc_loads", lambda: False)
    with pytest.raises(grading.GraderError, match="kernel grading unavailable"):
        grading._import_failed(sub, forged, [], None)


@needs_bwrap
def test_a_kernel_forging_nvrtc_missing_is_graded(spec):
    ok, why = grading.kernel_support()
    if not ok or not grading._nvrtc_loads():
        pytest.skip(f"kernel grading is not available here ({why or 'no NVRTC'})")
    rep = grade_path(CORPUS / "forge_nvrtc_missing.cu", spec, select=["lookup_selects_row"],
                     limits=LIMITS, sandbox="bwrap")
    # Graded either way, never the grader's failure. Since the executor compiles device code
    # with __CUDA_ARCH__ defined (as CUDA's compilers do), the forging host code behind
    # '#ifndef __CUDA_ARCH__' is not built at all: the correct kernel is graded as such. Where
    # the forged first reply is still sent, it is the submission's import error (0 points).
    if rep["import"]["ok"]:
        assert [c["status"] for c in rep["checks"]] == ["passed"]
    else:
        assert rep["import"]["error"]["type"] == "NvrtcUnavailable" and rep["score"] == 0


def test_the_guides_last_block_reduction_is_no_race():
    import numpy as np

    from andrea_gpu.executor import Module

    mod = Module((CORPUS / "fence_last_block.cu").read_text(), "fence_last_block.cu")
    x = np.linspace(-1, 2, 64).astype(np.float32)
    partial, total = np.zeros(4, np.float32), np.zeros(1, np.float32)
    mod.get_function("fence_reduce")((4,), (16,), (x, np.int32(64), partial, total))
    assert abs(float(total[0]) - float(x.sum())) < 1e-4


def _fence_reduce(source, name):
    import numpy as np

    from andrea_gpu.executor import Module

    mod = Module(source, name)
    x = np.linspace(-1, 2, 64).astype(np.float32)
    mod.get_function("fence_reduce")((4,), (16,), (x, np.int32(64), np.zeros(4, np.float32),
                                                   np.zeros(1, np.float32)))


def test_the_last_block_reduction_without_its_fence_is_a_race():
    """No __threadfence() before the ticket: nothing releases the partial sums."""
    from andrea_gpu.executor import RaceError

    with pytest.raises(RaceError, match=r"fence_reduce: data race on argument 2 \(partial\)"):
        _fence_reduce((CORPUS / "fence_last_block_no_fence.cu").read_text(),
                      "fence_last_block_no_fence.cu")


def test_a_block_that_did_not_draw_the_last_ticket_reading_the_partial_sums_races():
    """The first ticket's block reads partial sums that later blocks have not released yet."""
    from andrea_gpu.executor import RaceError

    src = (CORPUS / "fence_last_block.cu").read_text()
    assert "last = (ticket == gridDim.x - 1);" in src
    with pytest.raises(RaceError, match=r"fence_reduce: data race on argument 2 \(partial\)"):
        _fence_reduce(src.replace("last = (ticket == gridDim.x - 1);", "last = (ticket == 0);"),
                      "first_ticket.cu")
