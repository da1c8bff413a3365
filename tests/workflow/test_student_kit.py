"""The student kit (andrea-selfcheck): checks, spec and andrea-conform, and no answer key."""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from graders.grade import cli
from graders.conformance.sources import KIT_PACKAGES
from graders.grade.sandbox.mounts import _site_dirs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "submissions"


def _reference_lines() -> set[str]:
    """Distinctive lines of the reference and of the bundled correct submissions (not the
    statements they quote from the spec, which students have anyway)."""
    public = "".join(f.read_text(encoding="utf-8") for f in (ROOT / "spec").glob("*.yaml"))
    out = set()
    for f in [*(ROOT / "andrea_ref").glob("*.py"), ROOT / "andrea_runtime" / "validate.py",
              *EXAMPLES.glob("correct_*.py"),
              *(ROOT / "andrea_gpu" / "kernels").glob("*.cu")]:
        for line in f.read_text(encoding="utf-8").splitlines():
            s = line.strip()
            if (len(s) > 45 and not s.startswith(("#", "from ", "import ", '"""', "raise "))
                    and not re.fullmatch(r"[\w\s,():]+", s)):   # a parameter list: the contract
                if s not in public:
                    out.add(s)
    return out


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    d = tmp_path_factory.mktemp("kit")
    assert cli.main(["student-kit", "--output", str(d)]) == 0
    (wheel,) = d.glob("andrea_selfcheck-*.whl")
    return wheel


def test_the_kit_holds_the_checks_and_no_reference(kit):
    with zipfile.ZipFile(kit) as z:
        names = z.namelist()
        text = {n: z.read(n).decode("utf-8", "replace") for n in names}
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"andrea_runtime", "graders", "spec", "andrea_selfcheck-0.1.0.dist-info"}
    # the cell loop and the input-change snapshot that andrea-conform shares with the grader's
    # worker; not the argument checks, the reference's answer to the error clauses
    assert {"andrea_runtime/cells.py", "andrea_runtime/snapshot.py"} <= set(names)
    assert "andrea_runtime/validate.py" not in names
    assert "graders/conformance/cli.py" in names and "spec/andrea-120m.yaml" in names
    assert {f"graders/conformance/locale/{lang}/LC_MESSAGES/andrea_grade.po"
            for lang in ("nl", "ko")} <= set(names)          # andrea-conform --lang nl|ko
    assert not [n for n in names if n.startswith(("graders/grade", "graders/audit",
                                                   "graders/demo"))]
    leaked = {s for s in _reference_lines() if any(s in t for t in text.values())}
    assert not leaked, sorted(leaked)[:5]
    assert not [n for n, t in text.items()
                if n.endswith(".py") and ("import andrea_ref" in t or "from andrea_ref" in t)]


def test_the_kit_installs_and_checks_without_the_reference(kit, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    # dependencies from this environment (never the project itself), then the kit, offline
    deps = tmp_path / "deps"
    deps.mkdir()
    for site_dir in _site_dirs():
        for entry in site_dir.iterdir():
            top = entry.name.split(".", 1)[0].split("-", 1)[0]
            if (top in KIT_PACKAGES or entry.name.startswith(("__", "andrea_"))
                    or entry.suffix == ".pth" or (deps / entry.name).exists()):
                continue
            (deps / entry.name).symlink_to(entry)
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    (site / "deps.pth").write_text(str(deps) + "\n")
    p = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                        "--no-deps", "--no-index", "--disable-pip-version-check", str(kit)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    work = tmp_path / "homework"
    work.mkdir()

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # only the kit's venv

    def run(*args):
        return subprocess.run([str(venv / "bin" / "andrea-conform"), *args], cwd=work,
                              capture_output=True, text=True, timeout=300, env=env)

    assert subprocess.run([str(py), "-c", "import andrea_ref"], cwd=work, env=env,
                          capture_output=True).returncode != 0
    ok = run(str(EXAMPLES / "correct_student.py"), "--profile", "dev", "--select", "EMB-*",
             "--select", "dot_product")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = run(str(EXAMPLES / "buggy_student.py"), "--profile", "dev", "--select", "BWD-TOK-01")
    assert bad.returncode == 1 and "BWD-TOK-01" in bad.stdout
    dutch = run(str(EXAMPLES / "buggy_student.py"), "--profile", "dev", "--select", "BWD-TOK-01",
                "--lang", "nl")
    assert dutch.returncode == 1 and "wat er misging:" in dutch.stdout, dutch.stdout + dutch.stderr
    assert list(work.iterdir()) == []


def test_kits_need_the_source_tree(tmp_path, capsys):
    from graders.grade.gradescope_zip import ZipError, build_wheel

    with pytest.raises(ZipError, match="source tree is needed"):
        build_wheel(tmp_path, root=tmp_path)
    (tmp_path / "file").write_text("")
    assert cli.main(["student-kit", "--output", str(tmp_path / "file")]) == 2
    assert capsys.readouterr().err.startswith("andrea-grade: --output")
