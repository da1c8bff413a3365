"""--sandbox container: the mode for disposable one-submission containers where namespaces
cannot be made (docs/grading.md, "--sandbox container").

The tests that grade run the grader as a Docker container would: root without CAP_SYS_ADMIN
(`setpriv`), so bubblewrap cannot start, in a private mount namespace (new /tmp, /var/tmp and
/dev/shm, which the mode closes to other users; this checkout alone in its parent folder, as a
container for one course holds one copy of the grader; pyenv's interpreter under /root made
passable). The outcomes are compared with bubblewrap's, file by file; the files whose outcome
differs for a reason are listed in DIFFERENT with that reason. The default run grades a sample
(the examples, one notebook, and the attack files that target what this mode must hold);
ANDREA_CONTAINER_FULL=1 grades every hostile corpus (about three minutes on two busy cores).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graders.grade import sandbox
from graders.grade.gradescope_zip import _container_wrapper

from .conftest import CORRECT, HAS_BWRAP, grade_path, statuses
from tests.attacks import CORPUS, ROOT as ATTACKS, THREATS
from tests.helpers import fast_limits

#: the mode makes the grader's files root-only while it runs: no other test runs beside it
pytestmark = pytest.mark.serial

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUGGY = ROOT / "examples" / "submissions" / "buggy_student.py"
NOTEBOOK = ROOT / "tests" / "corpus" / "correct" / "notebook_magics.ipynb"
NORM = ["vector_norm"]
# the limits of both sides (a start may take long on a busy machine: 14,000 notebook cells)
LIMITS_ARGS = {"call_timeout": 3.0, "startup_timeout": 30.0}
# (file, the checks graded: None for all)
SAMPLE = [
    (CORRECT, None), (BUGGY, None), (NOTEBOOK, None),
    (ROOT / "examples" / "hostile" / "read_outside.py", NORM),
    (ROOT / "examples" / "hostile" / "import_reference.py", NORM),
    (ROOT / "examples" / "hostile" / "fork_bomb.py", NORM),
    (CORPUS / "reach_grader.py", NORM),
    (CORPUS / "gradebook_tamper.py", NORM),
    (CORPUS / "write_runtime.py", NORM),
    (CORPUS / "fill_storage.py", NORM),
    (CORPUS / "escape_cleanup.py", NORM),
    (CORPUS / "nested_userns.py", NORM),
    (CORPUS / "sockets_and_syscalls.py", NORM),
    (CORPUS / "ipc_leftovers.py", NORM),
    (CORPUS / "work_folder_leftovers.py", NORM + ["dot_product"]),
    (CORPUS / "scratch_paths.py", NORM + ["dot_product"]),
    (CORPUS / "checkout_copy.py", NORM),
    (CORPUS / "runtime_validate.py", ["out_of_range_ids"]),
    (CORPUS / "hugetlb_pages.py", NORM),
]
CORPORA = THREATS   # tests/attacks/<threat>/
#: Files whose outcome in container mode differs from bubblewrap's, and why.
DIFFERENT = {
    "site_view.py": "it lists bubblewrap's /sandbox/site and /sandbox/pkgs, which do not exist "
                    "in container mode: its import fails (score 0 instead of 5)",
    "memory_in_memfds.py": "the same score; its memfds run into the open-files limit (OSError, "
                           "a failed check) where under bubblewrap the call ran out of time",
}

_GRADE = r"""
import json, sys
from graders.grade.grading import grade, load_submission
from spec import load_spec
from tests.helpers import fast_limits
spec = load_spec()
out = {}
for path, select in json.loads(sys.argv[1]):
    rep = grade(load_submission(path), spec, profile="dev", sandbox="container",
                limits=fast_limits(**json.loads(sys.argv[2])), select=select)
    out[path] = {"score": rep["score"], "mode": rep["isolation"]["mode"],
                 "statuses": {c["id"]: c["status"] for c in rep["checks"]},
                 "output": (rep.worker.submission_output if rep.worker else "")[:2000]}
print(json.dumps(out))
"""


@pytest.fixture
def restore_modes():
    """The container mode makes the grader's files root-only: put this checkout back."""
    before = {p: os.stat(p).st_mode & 0o7777 for p in sandbox.container.grader_files()}
    yield
    for p, mode in before.items():
        os.chmod(p, mode)


def _in_container(tmp_path: Path, files) -> dict:
    wrapper = _container_wrapper(tmp_path, alone=ROOT)
    if wrapper is None:
        pytest.skip("needs root with CAP_SYS_ADMIN, unshare and setpriv (to make a private "
                    "/tmp, then drop the capability as Docker does)")
    arg = json.dumps([[str(p), sel] for p, sel in files])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(wrapper + [sys.executable, "-c", _GRADE, arg, json.dumps(LIMITS_ARGS)],
                       capture_output=True,
                       text=True, cwd=str(ROOT), env=env, timeout=1500)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _compare(tmp_path, files):
    got = _in_container(tmp_path, files)
    for path, select in files:
        mine = got[str(path)]
        assert mine["mode"] == "container"
        ref = grade_path(path, load_spec_once(), select=select,
                         limits=fast_limits(**LIMITS_ARGS))
        if path.name in DIFFERENT:     # a documented difference, never a gain
            assert mine["score"] <= ref["score"], (path.name, mine, ref["score"])
            continue
        assert mine["statuses"] == statuses(ref) and mine["score"] == ref["score"], \
            (path.name, mine, ref["score"], statuses(ref))
    return got


_SPEC = []


def load_spec_once():
    if not _SPEC:
        from spec import load_spec
        _SPEC.append(load_spec())
    return _SPEC[0]


def test_container_mode_needs_root(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(sandbox.IsolationUnavailable, match="--sandbox container needs root"):
        sandbox.choose_mode("container")


def test_container_mode_is_never_chosen_silently(monkeypatch):
    monkeypatch.setattr(sandbox.probe, "_PROBE", {"bwrap": (False, "Creating new namespace failed: "
                                                              "Operation not permitted")})
    for requested in ("auto", "bwrap"):
        with pytest.raises(sandbox.IsolationUnavailable) as exc:
            sandbox.choose_mode(requested)
        assert "--sandbox container" in str(exc.value)     # named as a fix, never taken


def test_a_worker_uid_that_can_still_read_a_grader_file_is_refused(monkeypatch):
    """The check as the worker's uid is what decides: a file it can read is a refusal."""
    import shutil
    import tempfile

    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root and a /usr/bin/python3")
    monkeypatch.setattr(sandbox.container, "_CONTAINER", {})
    monkeypatch.setattr(sandbox.container, "SHARED_WRITABLE", ())
    monkeypatch.setattr(sandbox.container, "_traversable", lambda p: True)
    monkeypatch.setattr(sandbox.container, "grader_files",
                        lambda protect=(): [Path(p) for p in protect])
    # the check's process: an interpreter any uid may start (the stdlib is all it uses)
    monkeypatch.setattr(sandbox.container, "_python", lambda: ("/usr/bin/python3", "/usr"))
    folder = Path(tempfile.mkdtemp(prefix="andrea-secret-"))
    try:
        folder.chmod(0o755)
        secret = folder / "hidden_checks.yaml"
        secret.write_text("hidden checks")
        monkeypatch.setattr(os, "chmod", lambda *a, **k: None)   # sealing failed silently
        with pytest.raises(sandbox.IsolationUnavailable,
                           match="could still read .*hidden_checks.yaml"):
            sandbox.prepare_container([secret])
        monkeypatch.undo()
        monkeypatch.setattr(sandbox.container, "_CONTAINER", {})
        monkeypatch.setattr(sandbox.container, "SHARED_WRITABLE", ())
        monkeypatch.setattr(sandbox.container, "_traversable", lambda p: True)
        monkeypatch.setattr(sandbox.container, "grader_files",
                            lambda protect=(): [Path(p) for p in protect])
        monkeypatch.setattr(sandbox.container, "_python", lambda: ("/usr/bin/python3", "/usr"))
        sandbox.prepare_container([secret])                       # sealed: accepted
        assert secret.stat().st_mode & 0o077 == 0
    finally:
        shutil.rmtree(folder)


@pytest.mark.skipif(not HAS_BWRAP, reason="the outcomes are compared with bubblewrap's")
def test_the_examples_and_the_attacks_on_this_mode_grade_as_under_bubblewrap(
        tmp_path, restore_modes):
    got = _compare(tmp_path, SAMPLE)
    assert got[str(CORRECT)]["score"] == 100
    assert 0 < got[str(BUGGY)]["score"] < 100
    # what container mode must hold, said directly as well
    read = got[str(ROOT / "examples" / "hostile" / "read_outside.py")]
    assert read["statuses"]["vector_norm"] != "passed" and "read the spec" not in read["output"]
    assert got[str(CORPUS / "fill_storage.py")]["statuses"]["vector_norm"] == "passed"
    # no IPC namespace of its own here: System V objects would outlive the worker (sixth
    # red-team round: 128 MiB left on the host); each start's files go with its worker
    ipc = got[str(CORPUS / "ipc_leftovers.py")]["output"]
    assert '"shm": [], "msg": [], "sem": []' in ipc and "made" not in ipc, ipc
    work = [json.loads(x.split(" ", 1)[1]) for x in
            got[str(CORPUS / "work_folder_leftovers.py")]["output"].splitlines()
            if x.startswith("WORK-REPORT ")]
    assert len(work) >= 2 and all(r["earlier"] == [] for r in work), work
    # the worker runs in a folder of the host: the report names it as bubblewrap does
    paths = got[str(CORPUS / "scratch_paths.py")]["output"]
    assert '"file": "/sandbox/submission/scratch_paths.py"' in paths, paths
    assert "scratch_paths.py:25: UserWarning" in paths and "/dev/shm/" not in paths, paths
    # the grader's source tree (this checkout) found through /proc: nothing of it is read
    tree = got[str(CORPUS / "checkout_copy.py")]
    assert tree["statuses"]["vector_norm"] == "failed", tree
    assert '"read": "Permission denied"' in tree["output"], tree["output"]


@pytest.mark.skipif(os.environ.get("ANDREA_CONTAINER_FULL") != "1",
                    reason="every hostile corpus in container mode: ANDREA_CONTAINER_FULL=1")
@pytest.mark.skipif(not HAS_BWRAP, reason="the outcomes are compared with bubblewrap's")
def test_every_hostile_corpus_grades_as_under_bubblewrap(tmp_path, restore_modes):
    files = sorted((ROOT / "examples" / "hostile").glob("*.py"))
    for corpus in CORPORA:
        files += sorted((ATTACKS / corpus).glob("*.py")) + sorted((ATTACKS / corpus).glob("*.ipynb"))
    _compare(tmp_path, [(f, NORM) for f in files])
