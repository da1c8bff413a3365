"""More attacks on the grader, by the book of a hostile student who has read its source.

Each file in `tests/attacks/` is one attack class (its docstring says what it tries
and what must happen); each is graded once, in bubblewrap (skipped where bubblewrap cannot run:
the grader then refuses it, which tests/grade/test_sandbox.py checks).
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from graders.conformance.outcome import Cause, Status
from graders.conformance.runner import CheckResult
from graders.grade import grading

from .conftest import HAS_BWRAP, LIMITS, grade_path, needs_bwrap
from tests.attacks import CORPUS

MORE = CORPUS   # tests/attacks/<threat>/


def _by_id(rep) -> dict:
    return {c["id"]: c for c in rep["checks"]}


@needs_bwrap
def test_a_check_broken_on_purpose_earns_nothing(spec):
    """A value that breaks a check (check_bug earns points) must not collect those points."""
    broken = ["dot_product", "vector_norm", "dot_is_norms_times_cosine",
              "similarity_by_direction", "rope_relative_offsets", "parameter_shares"]
    rep = grade_path(MORE / "check_break.py", spec, select=broken + ["vector_errors", "token_table_params"],
                     limits=LIMITS, sandbox="bwrap")
    got = _by_id(rep)
    for cid in broken:
        assert got[cid]["status"] == "failed", (cid, got[cid]["message"])
        assert got[cid]["cause"] == "wrong_value"
        assert "made this check break" in got[cid]["message"]
    # answered properly: the errors, and the token count the first time it is asked for
    assert got["vector_errors"]["status"] == got["token_table_params"]["status"] == "passed"
    assert rep["check_bugs"] == 0


def test_a_check_broken_for_everyone_still_costs_nothing(spec, monkeypatch):
    """A check that breaks on the reference too is the grader's bug: it keeps earning."""
    bug = CheckResult("dot_product", ["VEC-DOT-01"], Status.ERROR, cause=Cause.CHECK_BUG)
    bug.set_message("internal error in check {check}: {exception}: {error}",
                    check="dot_product", exception="KeyError", error="'x'")
    monkeypatch.setattr(grading, "run_check", lambda *a, **k: bug)
    assert grading._confirm_check_bug(bug, spec) is bug
    fine = CheckResult("dot_product", ["VEC-DOT-01"], Status.PASSED)
    monkeypatch.setattr(grading, "run_check", lambda *a, **k: fine)
    out = grading._confirm_check_bug(bug, spec)
    assert (out.status, out.cause) == (Status.FAILED, Cause.WRONG_VALUE)
    assert "KeyError" in out.message


# ----------------------------------------------------------------------------- kernel includes
KERNEL_CORPUS = sorted((Path(__file__).resolve().parents[1] / "gpu" / "kernels").rglob("*.cu"))


@pytest.mark.parametrize("name", ["hidden_include.cu", "hidden_include_raw.cu",
                                  "hidden_asm_splice.cu"])
def test_a_file_hidden_by_a_lexing_trick_is_refused(name):
    """Digit separators, raw strings and a raw-string prefix split by a line splice fool a
    comment-and-string reader: each is refused before any compiler runs, on its line."""
    from andrea_gpu import host

    text = (MORE / name).read_text()
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


# ----------------------------------------------------------------------------- file names
def _names_batch(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    carol = subs / "carol"
    carol.mkdir(parents=True)
    (carol / "submission.py").write_bytes((MORE / "hidden_names.py").read_bytes())
    (carol / os.fsdecode(b"\xff\x1b[2Jhelper.py")).write_text("X = 1\n")
    (subs / os.fsdecode(b"dave\xfe.py")).write_bytes((MORE / "hidden_names.py").read_bytes())
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


# ----------------------------------------------------------------------------- the kit
@needs_bwrap
def test_the_kit_installed_in_a_bound_folder_is_not_in_the_sandbox(spec, monkeypatch):
    """Pretend xmlrpc (in the interpreter's prefix, which the sandbox binds whole) is part of
    the kit: the worker must find nothing there."""
    from graders.grade import sandbox

    def listing():
        rep = grade_path(MORE / "see_kit.py", spec, select=["vector_norm"], limits=LIMITS,
                         sandbox="bwrap")
        assert rep["checks"][0]["status"] == "passed"
        return rep["submission_output"]

    assert "client.py" in listing()                  # visible while it is not the kit's
    monkeypatch.setattr(sandbox.mounts, "KIT_PACKAGES", sandbox.mounts.KIT_PACKAGES + ("xmlrpc",))
    assert "KIT-LISTING []" in listing()


# ----------------------------------------------------------------------------- fail closed
def test_a_batch_without_bubblewrap_refuses_up_front(tmp_path, spec, monkeypatch):
    """Not one 'problem' row per student and exit status 0: one refusal, nothing written."""
    from graders.grade import batch, cli, sandbox

    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.py").write_bytes((MORE / "hidden_names.py").read_bytes())
    monkeypatch.setattr(sandbox.probe, "_PROBE", {"bwrap": (False, "bubblewrap (bwrap) is not "
                                                             "installed")})
    with pytest.raises(batch.BatchError, match="refusing to run untrusted code"):
        batch.run_batch(subs, spec, db=tmp_path / "gb.sqlite", progress=False)
    assert not (tmp_path / "gb.sqlite").exists()
    assert cli.main(["batch", str(subs), "--db", str(tmp_path / "gb.sqlite"),
                     "--no-progress"]) == 2


# ----------------------------------------------------------------------------- forged replies
@needs_bwrap
def test_a_forged_import_error_is_bounded_in_every_format(spec):
    from graders.grade import formats

    rep = grade_path(MORE / "forged_import_error.py", spec, select=["dot_product"],
                     limits=LIMITS, sandbox="bwrap")
    err = rep["import"]["error"]
    assert set(err) <= {"type", "msg", "line", "text", "bases"} and "line" not in err
    assert len(err["msg"]) <= 4000 and len(err["type"]) <= 100
    for fmt in formats.FORMATS:
        assert len(formats.render(rep, fmt).encode()) < 100_000, fmt


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
    rep = grade_path(MORE / "forge_nvrtc_missing.cu", spec, select=["lookup_selects_row"],
                     limits=LIMITS, sandbox="bwrap")
    assert rep["import"]["ok"] is False and rep["import"]["error"]["type"] == "NvrtcUnavailable"
    assert rep["score"] == 0


# ----------------------------------------------------------------------------- deep paths
def test_a_path_too_deep_for_the_scratch_folder_is_ignored(tmp_path):
    """Under /autograder/submission (23 characters) a path can be 4,080 characters long and
    still too long under the grader's scratch folder: the grader then failed with its own
    error (exit 2, 'grade it again'), and the submission was never graded. Such files are
    ignored; the module is graded."""
    sub = tmp_path / "s"
    deep = sub.joinpath(*["d" * 200] * 6)
    deep.mkdir(parents=True)
    (deep / "x.txt").write_text("hidden\n")
    (sub / "submission.py").write_bytes((MORE / "hidden_names.py").read_bytes())
    got = grading.load_submission(sub)
    assert list(got.files) == ["submission.py"] and got.module == "submission.py"


# ----------------------------------------------------------------------------- lying exceptions
@needs_bwrap
def test_an_exception_of_every_error_type_passes_no_error_check(spec):
    rep = grade_path(MORE / "universal_exception.py", spec,
                     select=["param_count_errors", "vector_errors", "dot_product"],
                     limits=LIMITS, sandbox="bwrap")
    got = _by_id(rep)
    for cid in ("param_count_errors", "vector_errors"):
        assert got[cid]["status"] == "failed" and "but also a" in got[cid]["message"], got[cid]
    assert got["dot_product"]["status"] == "passed"


def test_an_escaped_name_never_collides_with_a_real_one(tmp_path, spec):
    """A file named with the byte \\xff and a folder literally named '\\xff' would both be
    shown as '\\xff': the grader could not write both into its scratch folder and stopped with
    its own error. Backslashes are escaped too, so the names stay apart."""
    sub = tmp_path / "s"
    (sub / "d\\xff").mkdir(parents=True)
    (sub / "d\\xff" / "m.py").write_text("X = 1\n")
    (sub / os.fsdecode(b"d\xff")).write_text("not a folder\n")
    (sub / "submission.py").write_bytes((MORE / "hidden_names.py").read_bytes())
    got = grading.load_submission(sub)
    assert set(got.files) == {"submission.py", "d\\xff", "d\\\\xff/m.py"}
    if HAS_BWRAP:
        rep = grade_path(sub, spec, select=["dot_product"], limits=LIMITS, sandbox="bwrap")
        assert rep["checks"][0]["status"] == "passed"


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


@needs_bwrap
def test_the_site_folder_holds_exactly_the_allowed_packages(spec):
    """/sandbox/site is links into site-packages bound whole (one mount, not one per package):
    the same names as before, the test tooling absent to `import`, the kit and everything else
    left out covered where the bound folder still has it."""
    import hashlib

    from graders.grade import sandbox

    rep = grade_path(MORE / "site_view.py", spec, select=["vector_norm"], limits=LIMITS,
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
