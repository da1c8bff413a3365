"""Every kernel source compiles with NVRTC for the real target (sm_90), with no GPU needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from andrea_gpu import nvrtc
from andrea_gpu.backend import KERNEL_DIR
from andrea_gpu.executor import build

KERNELS = Path(__file__).resolve().parent / "kernels"

SOURCES = sorted(KERNEL_DIR.glob("*.cu")) + sorted(KERNELS.glob("*.cu"))


def test_every_package_kernel_is_tested():
    assert {p.name for p in KERNEL_DIR.glob("*.cu")} == {"embedding.cu", "cosine.cu"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_kernel_compiles_for_sm90(path: Path):
    res = nvrtc.compile_source(path.read_text(), path.name, "sm_90")
    assert res.ok, f"NVRTC rejected {path.name} for sm_90:\n{res.log}"
    assert res.cubin and res.cubin[:4] == b"\x7fELF"  # a real device binary


@pytest.mark.parametrize("path", sorted(KERNEL_DIR.glob("*.cu")), ids=lambda p: p.name)
def test_kernel_builds_for_the_cpu_executor(path: Path):
    assert build(path.read_text(), path.name).is_file()


def test_compile_errors_come_back_with_the_log():
    res = nvrtc.compile_source('extern "C" __global__ void k(float *a) {\n  a[0] = nope;\n}\n',
                               "student.cu")
    assert not res.ok and res.cubin is None
    assert 'student.cu(2): error: identifier "nope" is undefined' in res.log


def test_nvrtc_version_is_cuda_13():
    assert nvrtc.version()[0] >= 12
