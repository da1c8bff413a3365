"""bubblewrap by feature, not by version: the grader reads what the installed bwrap offers
(``bwrap --help``) and builds its sandbox from that; where isolation is impossible, the
refusal names the true cause (a missing option, root without CAP_SYS_ADMIN, a sysctl) and its
fix.

The stand-ins in `bwrap_standins/` answer like older releases (0.6.1: no --size, --perms only
before an option that creates a file; 0.4: no --perms either) and pass everything else to the
real bubblewrap, so the sandbox really runs under the options an old release accepts.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.grade import sandbox
from graders.grade.grading import GraderError

from .conftest import CORRECT, LIMITS, grade_path, leftovers, needs_bwrap, statuses
from tests.helpers import fast_limits, load_margin
from tests.attacks import CORPUS

HERE = Path(__file__).resolve().parent
STANDINS = HERE / "bwrap_standins"
ROOT = HERE.parents[1]
BUGGY = ROOT / "examples" / "submissions" / "buggy_student.py"


def _standin(tmp_path: Path, name: str) -> Path:
    real = shutil.which("bwrap")
    text = (STANDINS / name).read_text().replace("@REAL_BWRAP@", real or "/nonexistent")
    exe = tmp_path / "bin" / "bwrap"
    exe.parent.mkdir()
    exe.write_text(text)
    exe.chmod(0o755)
    return exe


@pytest.fixture
def fresh_probe(monkeypatch):
    """The probe's answers of this test only (the test process's own are restored after)."""
    monkeypatch.setattr(sandbox.probe, "_PROBE", {})
    monkeypatch.setattr(sandbox.probe, "_PROBING", {})
    monkeypatch.setattr(sandbox.features, "_FEATURES", {})


def _use(monkeypatch, exe: Path) -> None:
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(exe))


@needs_bwrap
def test_bubblewrap_06_without_size_grades_as_before(tmp_path, spec, monkeypatch, fresh_probe):
    _use(monkeypatch, _standin(tmp_path, "bwrap-0.6"))
    version, opts = sandbox.bwrap_features()
    assert version == "0.6.1" and "--size" not in opts and "--chmod" in opts
    cmd = sandbox.mounts._bwrap_prefix(str(sandbox.features.bwrap_path()), {}, [], disk_bytes=1 << 20)
    assert "--size" not in cmd
    if sandbox.MemoryCgroup._find_base() is None:
        pytest.skip("no memory cgroup here: bubblewrap 0.6 is refused (next test)")
    assert sandbox.probe_bwrap() == (True, "")
    rep = grade_path(CORRECT, spec, sandbox="bwrap")
    assert rep["score"] == 100 and rep["isolation"]["mode"] == "bwrap"
    bad = grade_path(BUGGY, spec, sandbox="bwrap")
    assert 0 < bad["score"] < 100


@needs_bwrap
def test_bubblewrap_06_bounds_writes_by_the_memory_cgroup(tmp_path, spec, monkeypatch,
                                                          fresh_probe):
    """Without --size the writable tmpfs has no size of its own: what the worker writes counts
    against its memory cgroup, so the storage attack is bounded by --memory-mb, and nothing of
    it is left on the host."""
    _use(monkeypatch, _standin(tmp_path, "bwrap-0.6"))
    if sandbox.MemoryCgroup._find_base() is None:
        pytest.skip("no memory cgroup here: bubblewrap 0.6 is refused (next test)")

    def fills():
        return {p for d in ("/tmp", "/dev/shm", "/") for p in os.listdir(d)
                if p.startswith("fill")}

    before = fills()
    rep = grade_path(CORPUS / "fill_storage.py", spec, select=["vector_norm"],
                     sandbox="bwrap", limits=fast_limits(memory_mb=256))
    out = rep["submission_output"]
    if "MIB_WRITTEN" in out:
        assert int(out.split("MIB_WRITTEN ")[1].split()[0]) <= 256
    else:   # killed by its cgroup while writing: the import fails, nothing passes
        assert all(c["status"] != "passed" for c in rep["checks"])
    assert fills() == before
    assert not leftovers("fill_storage")


def test_bubblewrap_06_without_a_memory_cgroup_is_refused_for_that_reason(
        tmp_path, spec, monkeypatch, fresh_probe):
    _use(monkeypatch, _standin(tmp_path, "bwrap-0.6"))
    monkeypatch.setattr(sandbox.MemoryCgroup, "_base", None)
    with pytest.raises(GraderError) as exc:
        grade_path(CORRECT, spec, sandbox="auto")
    msg = str(exc.value)
    assert "bubblewrap 0.6.1" in msg and "no --size" in msg and "memory cgroup" in msg
    assert "install bubblewrap 0.7 or newer" in msg
    assert "user namespaces" not in msg


def test_bubblewrap_without_perms_is_refused_naming_the_options(tmp_path, spec, monkeypatch,
                                                                 fresh_probe):
    _use(monkeypatch, _standin(tmp_path, "bwrap-0.4"))
    with pytest.raises(GraderError) as exc:
        grade_path(CORRECT, spec, sandbox="bwrap")
    msg = str(exc.value)
    assert "bubblewrap 0.4.0" in msg and "lacks the option(s) --perms" in msg
    assert "install bubblewrap 0.7 or newer" in msg and "namespaces" not in msg


def test_a_bwrap_setting_that_names_no_executable_is_refused(tmp_path, spec, monkeypatch,
                                                              fresh_probe):
    monkeypatch.setenv(sandbox.BWRAP_ENV, str(tmp_path / "nothing"))
    with pytest.raises(GraderError, match=f"{sandbox.BWRAP_ENV}=.*not an executable file"):
        grade_path(CORRECT, spec, sandbox="auto")


def test_a_bwrap_on_path_is_used(tmp_path, monkeypatch, fresh_probe):
    """Grading without root: a bwrap in a folder of PATH (a build of your own) is found."""
    exe = _standin(tmp_path, "bwrap-0.6")
    monkeypatch.delenv(sandbox.BWRAP_ENV, raising=False)
    monkeypatch.setenv("PATH", f"{exe.parent}:{os.environ['PATH']}")
    assert sandbox.features.bwrap_path() == str(exe)
    assert sandbox.bwrap_features()[0] == "0.6.1"


def _drop_sys_admin() -> list[str] | None:
    """A command prefix that runs as root without CAP_SYS_ADMIN (Docker's default)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or not sandbox.probe._has_cap_sys_admin():
        return None
    return [setpriv, "--bounding-set=-sys_admin", "--inh-caps=-sys_admin"]


def test_root_without_cap_sys_admin_is_told_so_and_pointed_to_container_mode(tmp_path):
    prefix = _drop_sys_admin()
    if prefix is None:
        pytest.skip("needs root with CAP_SYS_ADMIN and setpriv, to drop it")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    p = subprocess.run(prefix + [sys.executable, "-m", "graders.grade.cli", str(CORRECT),
                                 "--profile", "dev"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120 * load_margin(),
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip()
    assert "\n" not in err and "root without CAP_SYS_ADMIN" in err, err
    assert "--sandbox container" in err and "unprivileged user namespaces" not in err
