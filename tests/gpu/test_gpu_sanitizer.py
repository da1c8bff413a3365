"""compute-sanitizer on a GPU machine: report parsing (here), the real run (GPU only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from andrea_gpu import sanitizer
from andrea_gpu.backend import cuda_available

CORPUS = Path(__file__).resolve().parent / "kernels" / "submissions"
KERNELS = ["andrea_lookup", "andrea_embed_forward", "andrea_embed_backward_token",
           "andrea_embed_backward_position"]

# The shape of compute-sanitizer's reports (memcheck, racecheck, synccheck).
REPORT = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at andrea_lookup+0x1f0 in /sandbox/submission/student.cu:8
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000000000 is out of bounds
=========
========= Error: Race reported between Write access at andrea_embed_backward_position+0x2a0 in /x/student.cu:50
=========     and Read access at andrea_embed_backward_position+0x260 in /x/student.cu:50 [4 hazards]
=========
========= Barrier error detected. Divergent thread(s) in block
=========     at andrea_embed_forward+0x80 in student.cu:21
=========     by thread (1,0,0) in block (0,0,0)
=========
========= Invalid __global__ write of size 4 bytes
=========     at some_helper_kernel+0x10 in student.cu:99
========= ERROR SUMMARY: 4 errors
"""


def test_reports_become_findings_per_kernel_with_file_and_line():
    found = sanitizer.parse_report("memcheck", REPORT, KERNELS)
    assert [(f.kernel, f.where) for f in found] == [
        ("andrea_lookup", "student.cu:8"), ("andrea_embed_backward_position", "student.cu:50"),
        ("andrea_embed_forward", "student.cu:21")]  # kernels outside the contract are ignored
    assert found[0].message() == ("compute-sanitizer memcheck: kernel andrea_lookup: Invalid "
                                  "__global__ read of size 4 bytes at student.cu:8")
    assert "shared-memory data race" in found[1].message()
    # the sentence around the tool's own words is the catalog's (told in nl/ko by the grader)
    from graders.grade import messages as M
    from graders.grade.i18n import translator
    said = M.executor_said(found[0].said().data())
    assert M.said_text(said) == found[0].message()
    assert M.said_text(said, translator("ko")) == (
        "compute-sanitizer memcheck: 커널 andrea_lookup: student.cu:8에서 Invalid __global__ read "
        "of size 4 bytes")


def test_a_clean_report_has_no_findings():
    assert sanitizer.parse_report("racecheck", "========= COMPUTE-SANITIZER\n"
                                  "========= RACECHECK SUMMARY: 0 hazards displayed\n",
                                  KERNELS) == []


@pytest.mark.skipif(cuda_available(), reason="this machine has a CUDA device")
def test_without_a_device_it_says_why_and_does_not_run():
    ok, why = sanitizer.available()
    assert not ok and "no CUDA device" in why


@pytest.mark.gpu
def test_racecheck_finds_the_missing_barrier_on_the_device():
    ok, why = sanitizer.available()
    if not ok:
        pytest.skip(why)
    from andrea_gpu.submission import KernelContract
    found = sanitizer.run(CORPUS / "bug_missing_barrier.cu", KernelContract.from_spec().to_data(),
                          tools=("racecheck",))
    assert any(f.kernel == "andrea_embed_backward_position" for f in found), found
    assert sanitizer.run(CORPUS / "correct_shared_reduction.cu",
                         KernelContract.from_spec().to_data()) == []
