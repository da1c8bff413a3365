"""andrea-grade gradescope-zip: the zip's layout, and its run_autograder on a fake /autograder."""
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from graders.grade import cli
from tests.helpers import needs_bwrap

ROOT = Path(__file__).resolve().parents[2]
PARTIAL = ROOT / "examples" / "hostile" / "partial.py"   # two functions: quick to grade


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    d = tmp_path_factory.mktemp("zip")
    out = d / "autograder.zip"
    assert cli.main(["gradescope-zip", "--output", str(out), "--lang", "nl",
                     "--profile", "dev"]) == 0
    src = d / "source"
    with zipfile.ZipFile(out) as z:
        infos = {i.filename: i for i in z.infolist()}
        z.extractall(src)
    for name in ("setup.sh", "run_autograder"):
        os.chmod(src / name, (infos[name].external_attr >> 16) & 0o777)
    return out, infos, src, d


def _fake_root(tmp_path, files):
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    for name, path in files.items():
        shutil.copy(path, root / "submission" / name)
    (root / "andrea-venv").symlink_to(Path(sys.prefix))   # the image's venv: this one
    return root


def _run(src, root, **env):
    e = {**os.environ, "ANDREA_AUTOGRADER_ROOT": str(root), **env}
    p = subprocess.run([str(src / "run_autograder")], env=e, capture_output=True, text=True,
                       timeout=300, cwd=src)
    assert p.returncode == 0, p.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8")), p.stdout


def test_zip_layout(autograder):
    out, infos, src, _ = autograder
    assert {"setup.sh", "run_autograder"} <= set(infos)
    wheels = [n for n in infos if n.endswith(".whl")]
    assert len(wheels) == 1 and "/" not in wheels[0]
    for name in ("setup.sh", "run_autograder"):
        mode = infos[name].external_attr >> 16
        assert stat.S_ISREG(mode) and mode & 0o111 == 0o111, name
        assert subprocess.run(["bash", "-n", str(src / name)]).returncode == 0
    setup = (src / "setup.sh").read_text()
    assert "python3.11" in setup and "bubblewrap" in setup
    with zipfile.ZipFile(src / wheels[0]) as w:
        names = w.namelist()
    assert "graders/grade/cli.py" in names and "spec/andrea-120m.yaml" in names
    assert any(n.endswith("entry_points.txt") for n in names)


@needs_bwrap
def test_run_autograder_grades_the_submission(autograder, tmp_path):
    _, _, src, _ = autograder
    root = _fake_root(tmp_path, {"submission.py": PARTIAL})
    res, _ = _run(src, root)
    assert 0 < res["score"] < 100                      # partial credit for what it defines
    assert "Aantallen parameters" in res["output"]     # --lang nl made it into the zip
    assert any(t["status"] == "failed" for t in res["tests"])


@needs_bwrap
def test_run_autograder_never_leaves_results_missing_or_invalid(autograder, tmp_path):
    _, _, src, _ = autograder
    empty = _fake_root(tmp_path, {})                   # nothing handed in: graded, score 0
    res, _ = _run(src, empty)
    assert res["score"] == 0 and res["tests"]
    broken = tmp_path / "broken"
    (broken / "submission").mkdir(parents=True)
    res, stdout = _run(src, broken, ANDREA_VENV=str(tmp_path / "no-venv"))
    assert res["score"] == 0 and "De autograder kon deze inzending niet beoordelen" in res["output"]
    assert "andrea-grade failed" in stdout             # the reason, for the staff


def test_zip_errors_are_one_line(tmp_path, capsys):
    assert cli.main(["gradescope-zip", "--output", str(tmp_path / "nope" / "a.zip")]) == 2
    assert cli.main(["gradescope-zip", "--output", str(tmp_path / "a.zip"), "--spec",
                     str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("andrea-grade: ") for line in err)


@needs_bwrap
def test_a_spec_given_as_a_path_travels_in_the_zip(autograder, tmp_path):
    from graders.grade.gradescope_zip import build_zip
    from spec import SPEC_DIR

    _, infos, _, d = autograder
    (wheel,) = (d / "source").glob("*.whl")
    mine = tmp_path / "my course's spec.yaml"
    shutil.copy(SPEC_DIR / "gpt2-small.yaml", mine)
    out = build_zip(tmp_path / "ag.zip", spec_arg=str(mine), profile="dev", wheel=wheel)
    src = tmp_path / "autograder" / "source"      # where Gradescope unpacks it
    with zipfile.ZipFile(out) as z:
        assert mine.name in z.namelist()
        z.extractall(src)
    os.chmod(src / "run_autograder", 0o755)
    root = tmp_path / "autograder"
    (root / "submission").mkdir()
    (root / "andrea-venv").symlink_to(Path(sys.prefix))
    res, stdout = _run(src, root)
    assert res["score"] == 0 and res["tests"], stdout       # graded (nothing handed in)
    assert "andrea-grade failed" not in stdout


def test_setup_sh_installs_python_3_11_where_the_image_has_3_10(autograder, tmp_path):
    """setup.sh's logic on a stand-in for Ubuntu 22.04: python3 is 3.10 and no python3.11 until
    apt-get installs it (apt-get and the interpreters are stubs that log what they are asked)."""
    _, _, src, _ = autograder
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    stub = (f'#!/bin/bash\necho "$(basename "$0") $*" >> {log}\n')
    py = stub + ('case "$*" in *version_info*) exit 0;; *ensurepip*) exit 0;;\n'
                 '  "-m venv "*) mkdir -p "$3/bin"; for t in python andrea-grade; do\n'
                 f'    cp {bin_}/fakepy "$3/bin/$t"; done;; esac\n')
    (bin_ / "fakepy").write_text(stub)
    (bin_ / "python3").write_text(stub + 'case "$*" in *version_info*) exit 1;; esac\n')  # 3.10
    (bin_ / "apt-get").write_text(stub + f'case "$*" in *python3.11*) cat > {bin_}/python3.11 '
                                  f'<<\'PY\'\n{py}PY\nchmod +x {bin_}/python3.11;; esac\n')
    for f in bin_.iterdir():
        f.chmod(0o755)
    for tool in ("dirname", "mkdir", "cp", "basename", "cat", "chmod"):
        (bin_ / tool).symlink_to(shutil.which(tool))
    root = tmp_path / "autograder"
    root.mkdir()
    (root / "source").symlink_to(src)
    p = subprocess.run(["/bin/bash", str(src / "setup.sh")], capture_output=True, text=True,
                       env={"PATH": str(bin_), "ANDREA_AUTOGRADER_ROOT": str(root)}, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    calls = log.read_text().splitlines()
    assert "apt-get install -y -qq python3.11 python3.11-venv" in calls
    assert "apt-get install -y -qq bubblewrap" in calls
    assert f"python3.11 -m venv {root}/andrea-venv" in calls
    assert any(c.startswith("python -m pip install -q ./andrea_conformance-")
               and c.endswith(".whl") for c in calls)
    assert "andrea-grade --help" in calls
