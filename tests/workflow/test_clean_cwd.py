"""The commands leave nothing behind in the folder they run in; a missing target is one line."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import TEST_SANDBOX, load_margin

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"
BIN = Path(sys.executable).parent


def _env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYPOTHESIS")}
    env["HOME"] = str(tmp_path / "home")
    env.pop("XDG_CACHE_HOME", None)
    return env


@pytest.mark.parametrize("argv", [
    ["andrea-conform", str(CORRECT), "--profile", "dev", "--select", "dot_product"],
    ["andrea-grade", str(CORRECT), "--profile", "dev", "--select", "dot_product",
     "--sandbox", TEST_SANDBOX],
    ["andrea-audit", "impl", str(CORRECT), "--profile", "dev", "--select", "dot_product"],
    ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "graders.conformance",
     "--andrea-impl", str(CORRECT), "--andrea-profile", "dev", "-k", "dot_product"],
])
def test_commands_leave_the_working_folder_empty(tmp_path, argv):
    cwd = tmp_path / "homework"
    cwd.mkdir()
    p = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=cwd, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=120 * load_margin())
    assert p.returncode == 0, p.stderr
    assert list(cwd.iterdir()) == []
    # Hypothesis did run (its cache went to the user's cache folder instead)
    assert (tmp_path / "home" / ".cache" / "andrea-conformance" / "hypothesis").is_dir()


@pytest.mark.parametrize("argv, needle", [
    (["andrea-audit", "impl", "no_such_file.py"], "no_such_file.py: no such file"),
    (["andrea-audit", "impl", "andrea_ref", "no_such_module"], "no_such_module: no such file"),
    (["andrea-grade", "batch", "empty"], "no submissions in this folder"),
])
def test_missing_targets_are_one_line_and_exit_2(tmp_path, argv, needle):
    (tmp_path / "empty").mkdir()
    p = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=tmp_path, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=60 * load_margin())
    assert p.returncode == 2
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and needle in p.stderr


def test_grade_help_names_the_batch_command():
    p = subprocess.run([str(BIN / "andrea-grade"), "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "andrea-grade batch DIR" in p.stdout
