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
from tests.helpers import needs_bwrap, load_margin

ROOT = Path(__file__).resolve().parents[2]
PARTIAL = ROOT / "examples" / "hostile" / "partial.py"   # two functions: quick to grade


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    d = tmp_path_factory.mktemp("zip")
    out = d / "autograder.zip"
    # bubblewrap here (the container mode is tested under dropped capabilities, below)
    assert cli.main(["gradescope-zip", "--output", str(out), "--lang", "nl",
                     "--profile", "dev", "--sandbox", "auto"]) == 0
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
    assert "python3.11" not in setup and "bubblewrap" in setup
    assert "--sandbox auto" in (src / "run_autograder").read_text()
    with zipfile.ZipFile(src / wheels[0]) as w:
        names = w.namelist()
    assert "graders/grade/cli.py" in names and "spec/andrea-120m.yaml" in names
    assert any(n.endswith("entry_points.txt") for n in names)


@needs_bwrap
def test_run_autograder_grades_the_submission(autograder, tmp_path):
    from graders.grade.gradescope_zip import results_problems

    _, _, src, _ = autograder
    root = _fake_root(tmp_path, {"submission.py": PARTIAL})
    res, stdout = _run(src, root)
    assert results_problems(res) == []
    assert 0 < res["score"] < 100                      # partial credit for what it defines
    assert "Aantallen parameters" in res["output"]     # --lang nl made it into the zip
    assert any(t["status"] == "failed" for t in res["tests"])
    numbers = [tuple(int(p) for p in t["number"].split(".")) for t in res["tests"]]
    assert numbers == sorted(numbers)                  # in Gradescope's order
    # the staff summary first on stdout (staff only), in the course's language and style
    first = stdout.splitlines()[0]
    assert first.startswith("Voor de docenten: score ") and "melding(en)" in first
    score = first.split("score ")[1].split(" /")[0]
    assert "." not in score                            # 91,34, not 91.34, in Dutch
    # one number style in the whole report: no "13.34 / 20" beside "91,34 / 100"
    import re
    assert not re.search(r"\d\.\d+ / \d", res["output"]), res["output"]


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
    out = build_zip(tmp_path / "ag.zip", spec_arg=str(mine), profile="dev", wheel=wheel,
                    sandbox="auto")
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


def _setup_stubs(tmp_path, *, version_ok=True, has_venv=True):
    """A stand-in image: python3 (3.10 or 3.12, with or without its venv module), apt-get and
    the tools setup.sh uses, as stubs that log what they are asked."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    stub = f'#!/bin/bash\necho "$(basename "$0") $*" >> {log}\n'
    venv_ok = tmp_path / "venv-installed"
    if has_venv:
        venv_ok.write_text("")
    py = stub + (f'case "$*" in *version_info\\ \\<*) exit {0 if version_ok else 1};;\n'
                 f'  *ensurepip*) [ -e {venv_ok} ] && exit 0 || exit 1;;\n'
                 '  *"%d.%d"*) echo 3.12; exit 0;;\n'
                 '  "-m venv "*) mkdir -p "$3/bin"; for t in python andrea-grade; do\n'
                 f'    cp {bin_}/fakepy "$3/bin/$t"; done;; esac\n')
    (bin_ / "fakepy").write_text(stub)
    (bin_ / "python3").write_text(py)
    (bin_ / "apt-get").write_text(stub + f'case "$*" in *-venv*) touch {venv_ok};; esac\n')
    for f in bin_.iterdir():
        f.chmod(0o755)
    for tool in ("dirname", "mkdir", "cp", "basename", "cat", "chmod", "touch"):
        (bin_ / tool).symlink_to(shutil.which(tool))
    return bin_, log


def _setup(src, tmp_path, bin_):
    root = tmp_path / "autograder"
    root.mkdir()
    (root / "source").symlink_to(src)
    return root, subprocess.run(["/bin/bash", str(src / "setup.sh")], capture_output=True,
                                text=True, timeout=60 * load_margin(),
                                env={"PATH": str(bin_), "ANDREA_AUTOGRADER_ROOT": str(root)})


def test_setup_sh_uses_the_images_own_python3_and_installs_its_venv(autograder, tmp_path):
    """Ubuntu 24.04: python3 is 3.12 without python3-venv; setup.sh installs python3.12-venv
    through apt and makes the environment with the image's python3 (no other interpreter)."""
    _, _, src, _ = autograder
    bin_, log = _setup_stubs(tmp_path, has_venv=False)
    root, p = _setup(src, tmp_path, bin_)
    assert p.returncode == 0, p.stdout + p.stderr
    calls = log.read_text().splitlines()
    assert "apt-get install -y -qq --no-install-recommends python3.12-venv" in calls
    assert "apt-get install -y -qq --no-install-recommends libseccomp2" in calls
    assert "apt-get install -y -qq --no-install-recommends bubblewrap" in calls
    assert f"python3 -m venv {root}/andrea-venv" in calls
    assert not any("python3.11" in c for c in calls)
    assert any(c.startswith("python -m pip install -q ./andrea_conformance-")
               and c.endswith(".whl") for c in calls)
    assert "andrea-grade --help" in calls
    assert any(c.startswith("python -m graders.grade.gradescope_zip setup-check --sandbox auto")
               for c in calls)


def test_setup_sh_on_ubuntu_22_04_installs_nothing_but_bubblewrap(autograder, tmp_path):
    """Ubuntu 22.04 (Gradescope's base): python3 3.10 with its venv module: used as it is."""
    _, _, src, _ = autograder
    bin_, log = _setup_stubs(tmp_path, has_venv=True)
    root, p = _setup(src, tmp_path, bin_)
    assert p.returncode == 0, p.stdout + p.stderr
    calls = log.read_text().splitlines()
    assert not any("-venv" in c or "python3.11" in c for c in calls if c.startswith("apt-get"))
    assert f"python3 -m venv {root}/andrea-venv" in calls


def test_setup_sh_refuses_a_python_older_than_3_10(autograder, tmp_path):
    _, _, src, _ = autograder
    bin_, log = _setup_stubs(tmp_path, version_ok=False)
    _, p = _setup(src, tmp_path, bin_)
    assert p.returncode == 1 and "older than Python 3.10" in p.stderr


def test_results_schema_rejects_what_gradescope_does_not_take():
    from graders.grade.gradescope_zip import results_problems

    assert results_problems({"score": 1, "tests": []}) == []
    assert results_problems({"tests": [{"max_score": 1}]})       # no score anywhere
    bad = results_problems({"score": "90", "visibility": "public",
                            "tests": [{"score": 1, "status": "ok", "number": 1.1}]})
    assert any(p.startswith("score:") for p in bad)
    assert any(p.startswith("visibility:") for p in bad)
    assert any(p.startswith("tests/0/status:") for p in bad)
    assert any(p.startswith("tests/0/number:") for p in bad)


def test_staff_summary_names_each_flag_with_its_figure():
    from graders.grade.gradescope_zip import staff_summary

    data = {"score": 91.345, "tests": [{"score": 50, "max_score": 50},
                                       {"score": 41.345, "max_score": 50}],
            "extra_data": {"flags": [{"kind": "reference_copy", "similarity": 0.93,
                                      "message": "93% ..."}]}}
    text = staff_summary(data, "nl")
    assert text.splitlines()[0] == "Voor de docenten: score 91,34 / 100; 1 melding(en)."
    assert "reference_copy: 93% ..." in text


def test_staff_summary_names_each_place_that_reaches_into_the_grader():
    """A grader_tamper flag (graders/grade/tamper.py) reaches the staff summary with its
    places, in the course's language, from the results.json formats.gradescope writes."""
    from graders.grade import formats
    from graders.grade.gradescope_zip import staff_summary
    from graders.grade.tamper import tamper_flags

    from spec import load_spec
    from tests.grade.reports import report_of

    flags = tamper_flags([("hw.py", "import numpy as np\nimport ctypes\n")])
    data = formats.gradescope(report_of(load_spec(), [], flags=flags), "nl")
    text = staff_summary(data, "nl")
    assert text.splitlines()[0].endswith("; 1 melding(en).")
    assert "- grader_tamper: " in text and "hw.py, regel 2 import ctypes" in text


@pytest.mark.serial   # the container mode makes the grader's files root-only while it runs
def test_check_runs_the_container_zip_as_gradescope_would(autograder, tmp_path):
    """gradescope-zip --check on a zip in container mode (the default): run_autograder as root
    without CAP_SYS_ADMIN, in a private /tmp; both examples valid and scored as they should."""
    import glob

    from graders.grade import sandbox
    from graders.grade.gradescope_zip import _container_wrapper, build_zip, check_zip

    if _container_wrapper(tmp_path) is None:
        pytest.skip("needs root with CAP_SYS_ADMIN, unshare and setpriv")
    _, _, src, _ = autograder
    (wheel,) = src.glob("*.whl")
    out = build_zip(tmp_path / "c.zip", profile="dev", lang="nl", wheel=wheel)
    # the check seals this environment's own andrea_conformance entries too: put them back
    ours = [p for site in sandbox.mounts._site_dirs()
            for p in glob.glob(str(site / "andrea_conform*"))]
    modes = {p: os.stat(p).st_mode & 0o7777 for p in ours}
    lines: list[str] = []
    try:
        ok = check_zip(out, out=lines.append)
    finally:
        for p, m in modes.items():
            os.chmod(p, m)
    assert ok, lines
    assert len(lines) == 2 and all("results.json valid" in x and "mode container" in x
                                   for x in lines), lines


def test_check_reports_a_zip_whose_grading_fails(autograder, tmp_path):
    """A zip whose run_autograder cannot grade (here: an unknown spec in its arguments) fails
    the check, with the reason, before students submit."""
    from graders.grade.gradescope_zip import check_zip

    _, _, src, _ = autograder
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as z:
        for f in src.iterdir():
            text = f.read_bytes()
            if f.name == "run_autograder":
                text = text.replace(b"--spec andrea-120m", b"--spec no-such-spec")
            info = zipfile.ZipInfo(f.name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            z.writestr(info, text)
    lines: list[str] = []
    assert not check_zip(broken, out=lines.append)
    assert any("FAILED" in x and "fallback" in x for x in lines), lines


@pytest.mark.serial   # the container mode makes the grader's files root-only while it runs
def test_earlier_results_in_gradescopes_metadata_never_reach_the_student(autograder, tmp_path):
    """Sixth red-team round (tests/attacks/reports/previous_results.py): Gradescope's
    submission_metadata.json holds every earlier submission's results.json, hidden tests and
    staff flags included; in container mode the worker found it (/autograder, or the grader's
    command line in /proc) and printed it into what the student reads. run_autograder makes it
    one of the grader's files (root-only, checked as a worker's uid before any worker runs)."""
    from graders.grade import sandbox
    from graders.grade.gradescope_zip import _container_wrapper
    from tests.attacks import CORPUS

    wrapper = _container_wrapper(tmp_path, alone=ROOT)
    if wrapper is None:
        pytest.skip("needs root with CAP_SYS_ADMIN, unshare and setpriv")
    _, _, zsrc, _ = autograder
    src = tmp_path / "source"
    shutil.copytree(zsrc, src)
    run = src / "run_autograder"
    run.write_text(run.read_text().replace("--sandbox auto ", "--sandbox container "))
    root = _fake_root(tmp_path, {"submission.py": CORPUS / "previous_results.py"})
    secret = "SECRET-HIDDEN-RESULT-7f3a"
    meta = {"id": 1, "users": [{"name": "A Student"}], "previous_submissions": [{
        "score": 40.0, "results": {"tests": [{"name": "hidden check", "visibility": "hidden",
                                              "output": secret}],
                                   "extra_data": {"flags": [{"kind": "grader_tamper"}]}}}]}
    (root / "submission_metadata.json").write_text(json.dumps(meta))
    for d in (tmp_path, root, root / "submission", src):
        d.chmod(0o755)
    before = {p: os.stat(p).st_mode & 0o7777 for p in sandbox.container.grader_files()}
    try:
        e = {**os.environ, "ANDREA_AUTOGRADER_ROOT": str(root)}
        e.pop("PYTHONPATH", None)
        p = subprocess.run(wrapper + [str(run)], env=e, capture_output=True, text=True,
                           timeout=600 * load_margin(), cwd=str(src))
    finally:
        for path, mode in before.items():
            os.chmod(path, mode)
    assert p.returncode == 0, p.stderr[-2000:]
    res = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert "andrea-grade failed" not in p.stdout, p.stdout[-3000:]
    text = json.dumps(res)
    assert "METADATA-REPORT" in res["output"], res["output"]        # the attack ran, and saw
    assert str(root) in res["output"] or "/autograder" in res["output"]  # where the file is
    assert secret not in text and "A Student" not in text, res["output"]
