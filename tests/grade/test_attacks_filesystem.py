"""Attacks on what the worker sees and may write (tests/attacks/filesystem/): file names that
are not UTF-8 or look alike, symbolic links, paths too deep, folders of too many files, the
kit's and the test tooling's files in the package folders, the scratch folder's mount name.

Each file of `tests/attacks/filesystem/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from graders.conformance.sources import FORBIDDEN_PACKAGES
from graders.grade import grading, sandbox
from graders.grade.grading import load_submission
from tests.attacks import CORPUS

from .attacking import ROOT, printed_report
from .conftest import CORRECT, HAS_BWRAP, LIMITS, grade_path, needs_bwrap
from tests.helpers import fast_limits


def _names_batch(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    carol = subs / "carol"
    carol.mkdir(parents=True)
    (carol / "submission.py").write_bytes((CORPUS / "hidden_names.py").read_bytes())
    (carol / os.fsdecode(b"\xff\x1b[2Jhelper.py")).write_text("X = 1\n")
    (subs / os.fsdecode(b"dave\xfe.py")).write_bytes((CORPUS / "hidden_names.py").read_bytes())
    return subs


def test_file_names_that_are_not_utf8_are_shown_escaped(tmp_path):
    subs = _names_batch(tmp_path)
    carol = grading.load_submission(subs / "carol")
    # (and the escape code shown as one too: a name is inert, grading.printable_name)
    assert "\\xff\\x1b[2Jhelper.py" in carol.files and carol.module == "submission.py"
    assert len(carol.sha256) == 64
    dave = grading.load_submission(next(p for p in subs.iterdir() if p.is_file()))
    assert dave.name == "dave\\xfe.py" and dave.module == "dave\\xfe.py"


@needs_bwrap
def test_a_batch_survives_file_names_that_are_not_utf8(tmp_path, spec):
    from graders.grade import batch

    subs = _names_batch(tmp_path)
    db, csv_path = tmp_path / "gb.sqlite", tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=db, csv_path=csv_path, profile="dev",
                    limits=LIMITS, sandbox="bwrap", select=["dot_product"], progress=False)
    con = sqlite3.connect(db)
    rows = dict(con.execute("SELECT submission, score FROM grades"))
    assert rows == {"carol": rows["carol"], "dave\\xfe.py": rows["dave\\xfe.py"]}
    assert rows["carol"] > 0 and rows["carol"] == rows["dave\\xfe.py"]
    assert "dave\\xfe.py" in csv_path.read_text(encoding="utf-8")


def test_an_escaped_name_never_collides_with_a_real_one(tmp_path, spec):
    """A file named with the byte \\xff and a folder literally named '\\xff' would both be
    shown as '\\xff': the grader could not write both into its scratch folder and stopped with
    its own error. Backslashes are escaped too, so the names stay apart."""
    sub = tmp_path / "s"
    (sub / "d\\xff").mkdir(parents=True)
    (sub / "d\\xff" / "m.py").write_text("X = 1\n")
    (sub / os.fsdecode(b"d\xff")).write_text("not a folder\n")
    (sub / "submission.py").write_bytes((CORPUS / "hidden_names.py").read_bytes())
    got = grading.load_submission(sub)
    assert set(got.files) == {"submission.py", "d\\xff", "d\\\\xff/m.py"}
    if HAS_BWRAP:
        rep = grade_path(sub, spec, select=["dot_product"], limits=LIMITS, sandbox="bwrap")
        assert rep["checks"][0]["status"] == "passed"


def test_a_path_too_deep_for_the_scratch_folder_is_ignored(tmp_path):
    """Under /autograder/submission (23 characters) a path can be 4,080 characters long and
    still too long under the grader's scratch folder: the grader then failed with its own
    error (exit 2, 'grade it again'), and the submission was never graded. Such files are
    ignored; the module is graded."""
    sub = tmp_path / "s"
    deep = sub.joinpath(*["d" * 200] * 6)
    deep.mkdir(parents=True)
    (deep / "x.txt").write_text("hidden\n")
    (sub / "submission.py").write_bytes((CORPUS / "hidden_names.py").read_bytes())
    got = grading.load_submission(sub)
    assert list(got.files) == ["submission.py"] and got.module == "submission.py"


def test_a_symlink_in_a_batch_folder_is_not_followed(tmp_path, spec):
    """An entry of the batch folder that links to a host file (or to the reference) is not
    read: a problem row, no grade; a single file given by the teacher is still read."""
    from graders.grade import batch

    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "leak.py").symlink_to(Path(__file__).resolve().parents[2] / "andrea_ref" / "embedding.py")
    db = tmp_path / "gb.sqlite"
    batch.run_batch(subs, spec, db=db, profile="dev", limits=LIMITS, select=["dot_product"],
                    progress=False, sandbox="none")
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM grades").fetchone() == (0,)
    (msg,) = con.execute("SELECT message FROM problems WHERE submission='leak.py'").fetchone()
    assert "symbolic link" in msg


def _many_files(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(CORPUS / "many_files.py", folder / "submission.py")
    for i in range(n):
        (folder / f"h{i}.txt").touch()
    git = folder / ".git" / "objects"     # hidden: never entered, never counted
    git.mkdir(parents=True)
    for i in range(2500):
        (git / f"o{i}").touch()
    return folder


def test_a_folder_of_too_many_files_is_refused_at_once(tmp_path):
    from graders.grade.grading import MAX_FOLDER_ENTRIES, GraderError

    with pytest.raises(GraderError, match=f"more than {MAX_FOLDER_ENTRIES} files and folders"):
        load_submission(_many_files(tmp_path / "mallory", 2500))
    ok = load_submission(_many_files(tmp_path / "zoe", 100))   # the .git beside is not counted
    assert ok.module == "submission.py" and len(ok.files) == 101


@needs_bwrap
def test_a_batch_goes_on_past_a_folder_of_too_many_files(tmp_path, spec):
    from graders.grade import batch

    subs = tmp_path / "subs"
    _many_files(subs / "mallory", 2500)
    shutil.copy(CORRECT, subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", csv_path=csv_path,
                    profile="dev", limits=LIMITS, sandbox="bwrap", select=["vector_norm"],
                    progress=False)
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert "more than 2000 files" in rows["mallory"]["problem"]
    assert rows["zoe.py"]["vector_norm"] == "passed"


@pytest.fixture
def deep_chain():
    """(make, where): make(name) writes the module of deep_folders.py in `where / name`
    beside a chain of nested folders (relative steps: os.makedirs recurses too). `where` is a
    folder of its own outside pytest's temporary folders, removed at the end, the chain
    deepest first: pytest's clean-up of its old temporary folders (shutil.rmtree) recurses in
    Python 3.10 and 3.11, and a chain left there by a run cut short would stop every later
    run."""
    import tempfile

    where = Path(tempfile.mkdtemp(prefix="andrea-deep-"))
    made = []

    def make(name: str, depth: int = 1500) -> Path:
        folder = where / name
        folder.mkdir(parents=True)
        shutil.copy(CORPUS / "deep_folders.py", folder / "submission.py")
        made.append((folder, depth))
        here = os.getcwd()
        os.chdir(folder)
        try:
            for _ in range(depth):
                os.mkdir("a")
                os.chdir("a")
            Path("deep.py").write_text("X = 1\n")
        finally:
            os.chdir(here)
        return folder

    yield make, where
    here = os.getcwd()
    try:
        for folder, depth in made:
            os.chdir(folder)
            for _ in range(depth):
                os.chdir("a")
            for f in os.listdir("."):
                os.unlink(f)
            for _ in range(depth):
                os.chdir("..")
                os.rmdir("a")
    finally:
        os.chdir(here)
        shutil.rmtree(where, ignore_errors=True)


def test_a_chain_of_nested_folders_is_read_without_recursion(deep_chain):
    """A chain deeper than Python's recursion limit: the walk keeps its own stack (it was a
    RecursionError traceback from os.walk in Python 3.10 and 3.11)."""
    make, _ = deep_chain
    got = load_submission(make("mallory"))
    assert got.module == "submission.py" and list(got.files) == ["submission.py"]


@needs_bwrap
def test_a_batch_goes_on_past_a_chain_of_nested_folders(tmp_path, spec, deep_chain):
    from graders.grade import batch

    make, where = deep_chain
    make("subs/mallory")
    subs = where / "subs"
    shutil.copy(CORRECT, subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", csv_path=csv_path,
                    profile="dev", limits=LIMITS, sandbox="bwrap", select=["vector_norm"],
                    progress=False)
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert rows["mallory"]["vector_norm"] == "passed"
    assert rows["zoe.py"]["vector_norm"] == "passed"


@needs_bwrap
def test_the_kit_installed_in_a_bound_folder_is_not_in_the_sandbox(spec, monkeypatch):
    """Pretend xmlrpc (in the interpreter's prefix, which the sandbox binds whole) is part of
    the kit: the worker must find nothing there."""
    from graders.grade import sandbox

    def listing():
        rep = grade_path(CORPUS / "see_kit.py", spec, select=["vector_norm"], limits=LIMITS,
                         sandbox="bwrap")
        assert rep["checks"][0]["status"] == "passed"
        return rep["submission_output"]

    assert "client.py" in listing()                  # visible while it is not the kit's
    monkeypatch.setattr(sandbox.mounts, "KIT_PACKAGES", sandbox.mounts.KIT_PACKAGES + ("xmlrpc",))
    assert "KIT-LISTING []" in listing()


@needs_bwrap
def test_the_site_folder_holds_exactly_the_allowed_packages(spec):
    """/sandbox/site is links into site-packages bound whole (one mount, not one per package):
    the same names as before, the test tooling absent to `import`, the kit and everything else
    left out covered where the bound folder still has it."""
    import hashlib

    from graders.grade import sandbox

    rep = grade_path(CORPUS / "site_view.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["checks"][0]["status"] == "passed", rep["checks"][0]["message"]
    out = rep["submission_output"]
    names = sorted(p.name for p in sandbox.mounts._site_entries(False))
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]
    assert f"SITE {len(names)} {digest}" in out, out
    for name in ("pytest", "_pytest", "hypothesis", "pluggy", "_hypothesis_globals"):
        if f"IMPORT {name} " in out:     # where the tooling is installed at all
            assert f"IMPORT {name} ModuleNotFoundError" in out, out
    assert "LEAK" not in out, out
    assert "COVERED 0" not in out, out   # hypothesis and pytest at least are covered


@needs_bwrap
def test_no_tooling_or_kit_through_the_interpreters_own_package_folders(spec):
    rep = grade_path(CORPUS / "site_leftovers.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["import"]["ok"], rep["import"]
    assert rep["checks"][0]["status"] == "passed"
    got = printed_report(rep, "SITE-REPORT")
    assert got == {"imported": [], "shown": [], "records": []}, got


def test_the_interpreters_package_folders_are_covered_in_the_sandbox():
    """What the attack above reached: every site-/dist-packages folder inside a folder the
    sandbox binds whole (the interpreter's prefix, /usr) is covered by an empty tmpfs."""
    exe, prefix = sandbox.features._python()
    cmd = sandbox.mounts._bwrap_prefix("bwrap", {}, site=[], disk_bytes=1 << 20)
    covered = {cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "--tmpfs"}
    for d in sandbox.mounts._package_folders(["/usr", prefix]):
        d = Path(sandbox.mounts.in_sandbox(d))   # where the sandbox mounts it
        assert str(d) in covered or any(c in d.parents for c in map(Path, covered)), d


def _fake_site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    plain = [f"pkg{i}" for i in range(8)]   # most of the folder allowed: it is bound once
    for d in ("numpy", "hypothesis", "_pytest", "mylib-src/mylib", "pytest-9.0.dist-info",
              *plain):
        (site / d).mkdir(parents=True)
        (site / d / "__init__.py").write_text("SECRET = 1\n")
    (site / "evil.pth").write_text("import os\n")
    os.symlink("hypothesis", site / "hyp")
    os.symlink("_pytest", site / "_pytest_compat")
    os.symlink(ROOT / "andrea_ref", site / "tools")
    os.symlink(site / "mylib-src" / "mylib", site / "mylib")
    return site


def test_links_in_site_packages_cannot_bring_in_the_tooling_or_the_kit(tmp_path, monkeypatch):
    site = _fake_site(tmp_path)
    monkeypatch.setattr(sandbox.mounts, "_site_dirs", lambda: [site])
    entries = sandbox.mounts._package_dirs()
    names = sorted(e.name for e in entries)
    allowed = ["mylib", "mylib-src", "numpy"] + [f"pkg{i}" for i in range(8)]
    assert names == allowed, names
    for e in entries:
        assert e.name.split(".")[0] not in FORBIDDEN_PACKAGES
        assert ROOT not in e.resolve().parents and e.resolve() != ROOT
    args = sandbox.mounts._site_args(entries)
    # the real left-out entries are covered where the folder is bound
    assert args[args.index(str(site)) + 1] == "/sandbox/pkgs/0"   # the folder, bound once
    covered = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--tmpfs"]
    covered += [args[i + 2] for i, a in enumerate(args[:-2]) if a == "--ro-bind"
                and args[i + 1] == "/dev/null"]
    for left in ("hypothesis", "_pytest", "pytest-9.0.dist-info", "evil.pth"):
        assert any(c.endswith("/" + left) for c in covered), (left, args)
    linked = [args[i + 2] for i, a in enumerate(args[:-2]) if a == "--symlink"]
    bound = [args[i + 2] for i, a in enumerate(args[:-2]) if a == "--ro-bind"
             and args[i + 1] != "/dev/null"]
    visible = {Path(p).name for p in linked + bound if p.startswith("/sandbox/site/")}
    assert visible == set(allowed), visible


@needs_bwrap
def test_the_scratch_folder_is_mounted_under_a_neutral_name(spec):
    from graders.grade.sandbox.scratch import _scratch_parent

    rep = grade_path(CORPUS / "mount_names.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["checks"][0]["status"] == "passed"
    roots = printed_report(rep, "MOUNT-REPORT")
    assert roots == {"error": "FileNotFoundError"}, roots   # no /proc in the sandbox
    # where a worker has /proc (a kernel's, with a CUDA device), the scratch folder's name
    mounts = sandbox.mounts
    scratch = Path(_scratch_parent()) / "k2j4x9ab"
    assert "andrea" not in str(scratch)
    if _scratch_parent() == "/dev/shm":
        assert str(scratch).count("/") == 3, scratch   # /dev/shm/<random>: /<random> there
    args = mounts._bwrap_prefix("bwrap", {"runtime": scratch / "runtime"}, [],
                                disk_bytes=1 << 20)
    assert "--proc" not in args


@needs_bwrap
def test_no_host_path_is_seen_from_inside_the_sandbox(spec, tmp_path):
    """Nothing the worker can read about itself names the host's folders: the checkout, its
    virtual environment, the interpreter's installation (pyenv's, under the home folder), the
    home folder, the temporary folder, /work (issue 19 item 11)."""
    import sys
    import tempfile

    from graders.grade.sandbox.features import _python

    needles = sorted({str(ROOT), sys.prefix, os.path.realpath(sys.prefix), _python()[1],
                      os.path.dirname(_python()[0]), os.path.expanduser("~"),
                      tempfile.gettempdir() + "/", str(tmp_path), "/work/"} - {"/", "/usr"})
    needles = [n for n in needles if not n.startswith("/usr/")]   # the system's own
    src = (CORPUS / "proc_host_paths.py").read_text(encoding="utf-8")
    path = tmp_path / "paths.py"
    path.write_text(src.replace("NEEDLES = []", f"NEEDLES = {needles!r}"), encoding="utf-8")
    rep = grade_path(path, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    assert rep["checks"][0]["status"] == "passed", rep["checks"][0]["message"]
    got = printed_report(rep, "PATHS-REPORT")
    assert got == {"found": {}, "read": 0}, (needles, got)
    # the test can fail: the same attack without the sandbox finds them (a host's /proc is
    # larger: its import may take longer on a busy machine)
    rep = grade_path(path, spec, select=["vector_norm"], sandbox="none",
                     limits=fast_limits(startup_timeout=60.0))
    assert rep["import"]["ok"], rep["import"]
    assert printed_report(rep, "PATHS-REPORT")["found"], needles


@needs_bwrap
def test_a_module_written_at_run_time_is_not_the_submissions_own(tmp_path, spec):
    from .test_attacks_similarity import _reference_module

    d = tmp_path / "hw"
    d.mkdir()
    (d / "vocab.bin").write_bytes(bytes(b ^ 0x5A for b in _reference_module().encode()))
    shutil.copy(CORPUS / "written_module.py", d / "submission.py")
    rep = grade_path(d, spec, select=["lookup_selects_row", "vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    ran = [c["status"] for c in rep["checks"]] == ["passed", "passed"]
    flagged = [f for f in rep["flags"] if f["kind"] in ("grader_tamper", "reference_copy")]
    assert not ran or flagged, (rep["checks"], rep["flags"])
    # the submission's own modules are imported from the read-only submission/ (the working
    # folder is the writable copy), so the write beside __file__ fails; written into the
    # working folder and put on sys.path, the module is refused by the import rule
    assert rep["import"]["error"], rep["import"]
    (d / "submission.py").write_text(
        "import sys\nfrom pathlib import Path\n"
        "Path('fastpath.py').write_bytes(bytes(b ^ 0x5A for b in Path('vocab.bin').read_bytes()))\n"
        "sys.path.insert(0, '.')\nsys.path.insert(0, str(Path.cwd()))\n"
        "from fastpath import *  # noqa\n", encoding="utf-8")
    rep = grade_path(d, spec, select=["lookup_selects_row", "vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    msg = rep["import"]["error"]["msg"]
    assert "No module named 'fastpath'" in msg and "/sandbox" not in msg, rep["import"]
    # byte for byte: a handed-in module overwritten in the working folder at run time is
    # imported as it was handed in (here a stub that defines nothing)
    (d / "fastpath.py").write_text("STUB = True\n", encoding="utf-8")
    (d / "submission.py").write_text(
        "from pathlib import Path\n"
        "Path('fastpath.py').write_bytes(bytes(b ^ 0x5A for b in Path('vocab.bin').read_bytes()))\n"
        "import fastpath\nassert not hasattr(fastpath, 'STUB'), 'the handed-in stub'\n"
        "from fastpath import *  # noqa\n", encoding="utf-8")
    rep = grade_path(d, spec, select=["lookup_selects_row", "vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert "the handed-in stub" in rep["import"]["error"]["msg"], rep["import"]


@needs_bwrap
def test_a_message_names_the_submissions_files_without_the_sandboxs_folders(tmp_path, spec):
    """Since ee1426c a submission runs from its copy in /sandbox/work/submission/, and the
    honest idiom open(os.path.join(os.path.dirname(__file__), 'scale.txt')) that fails said
    "No such file or directory: '/sandbox/work/submission/scale.txt'" to the student, in the
    import's message and in a check's (fourth red-team round): the tool's folders, which
    andrea-conform never shows. Now 'scale.txt', as printed output already was."""
    d = tmp_path / "hw"
    d.mkdir()
    (d / "submission.py").write_text(
        CORRECT.read_text(encoding="utf-8") + "\n\ndef norm(v):\n    import os\n"
        "    return float(open(os.path.join(os.path.dirname(__file__), 'scale.txt')).read())\n",
        encoding="utf-8")
    rep = grade_path(d, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    (check,) = rep["checks"]
    assert "'scale.txt'" in check["message"] and "/sandbox" not in check["message"], check
    (d / "submission.py").write_text(
        CORRECT.read_text(encoding="utf-8") + "\nimport os\n"
        "X = open(os.path.join(os.path.dirname(__file__), 'nope.txt')).read()\n",
        encoding="utf-8")
    rep = grade_path(d, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    msg = rep["import"]["error"]["msg"]
    assert "'nope.txt'" in msg and "/sandbox" not in msg, msg


def _student_texts(rep) -> str:
    from graders.grade import formats

    gs = formats.gradescope(rep)
    return "\n".join([formats.render(rep, "text", "en"), gs["output"]]
                     + [t["output"] for t in gs["tests"]])


@pytest.mark.parametrize("mode", [pytest.param("bwrap", marks=needs_bwrap), "none"])
def test_what_students_read_names_no_folder_of_the_host(spec, mode):
    """Sixth red-team round: with --sandbox container and none the worker runs in a folder of
    the host, and a warning's file, a failed open's path and an error naming its working
    folder showed the grader's scratch folder (/dev/shm/u7u1qggw/work-0/submission/...) to
    the student. The report names them as bubblewrap does, in every mode, so students read
    their own file names; the container mode's sample test grades the file too."""
    import tempfile

    rep = grade_path(CORPUS / "scratch_paths.py", spec, select=["vector_norm", "dot_product"],
                     limits=LIMITS, sandbox=mode)
    seen = printed_report(rep, "PATHS-REPORT")      # the report's own words, bubblewrap's names
    assert seen["file"] == "/sandbox/submission/scratch_paths.py", seen
    assert seen["cwd"] == "/sandbox/work/submission" and seen["home"] == "/sandbox/work", seen
    text = _student_texts(rep)
    assert "scratch_paths.py:25: UserWarning" in text, text
    assert "No such file or directory: 'scale.txt'" in text, text
    assert "no dot product in /sandbox/work/submission (home /sandbox/work)" in text, text
    for host in ("/dev/shm/", tempfile.gettempdir() + "/", "work-0", "work-1"):
        assert host not in text, (host, text)


def _neighbours_batch(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.py").write_bytes((CORPUS / "batch_neighbours.py").read_bytes())
    (subs / "bob.py").write_bytes(CORRECT.read_bytes())
    return subs


def test_a_batch_is_never_graded_in_container_mode(tmp_path, spec):
    """Sixth red-team round: `batch --sandbox container` graded every student in one container
    with no mount or PID namespace, and alice's worker found the batch folder on the grader's
    command line in /proc and read bob.py whole. Container mode grades one submission per
    disposable container: a batch in it is refused up front, nothing graded or written."""
    from graders.grade import batch, cli

    subs = _neighbours_batch(tmp_path)
    with pytest.raises(batch.BatchError, match="one submission") as exc:
        batch.run_batch(subs, spec, db=tmp_path / "gb.sqlite", progress=False,
                        sandbox="container", select=["vector_norm"])
    assert "\n" not in str(exc.value) and "bubblewrap (--sandbox auto)" in str(exc.value)
    assert not (tmp_path / "gb.sqlite").exists()
    assert cli.main(["batch", str(subs), "--db", str(tmp_path / "gb.sqlite"), "--sandbox",
                     "container", "--no-progress"]) == 2
    assert not (tmp_path / "gb.sqlite").exists()


@needs_bwrap
def test_a_batch_submission_sees_no_other_students_files(tmp_path, spec):
    from graders.grade import batch

    subs = _neighbours_batch(tmp_path)
    batch.run_batch(subs, spec, db=tmp_path / "gb.sqlite", progress=False, sandbox="bwrap",
                    select=["vector_norm"], limits=LIMITS, jobs=2)
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    try:
        reports = {name: json.loads(rep) for name, rep in
                   con.execute("select submission, report from grades")}
    finally:
        con.close()
    assert set(reports) == {"alice.py", "bob.py"}
    out = reports["alice.py"]["submission_output"]
    got = json.loads(next(x for x in out.splitlines()
                          if x.startswith("NEIGHBOURS-REPORT ")).split(" ", 1)[1])
    assert got == {"dirs": [], "read": {}}, got


ERROR_CHECKS = ["out_of_range_ids", "non_integer_ids", "sequence_longer_than_context",
                "d_model_mismatch", "param_count_errors"]


@pytest.mark.parametrize("mode", [pytest.param("bwrap", marks=needs_bwrap), "none"])
def test_a_python_worker_has_no_copy_of_the_reference_argument_checks(spec, mode):
    """Sixth red-team round: andrea_runtime/validate.py (the reference's argument checks, left
    out of the students' kit) was in every Python worker's runtime; a submission compiled it
    from the folder on its own command line and passed every error check with functions that
    check nothing. Only a kernel's worker gets it (its kernel runtime calls it)."""
    rep = grade_path(CORPUS / "runtime_validate.py", spec, select=ERROR_CHECKS,
                     limits=LIMITS, sandbox=mode)
    assert printed_report(rep, "VALIDATE-REPORT") == {"read": False}
    assert all(c["status"] != "passed" for c in rep["checks"]), \
        [(c["id"], c["status"]) for c in rep["checks"]]
