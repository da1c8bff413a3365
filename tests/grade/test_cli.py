"""andrea-grade on the command line: exit codes, formats, languages, a full correct grade."""
import json
import xml.etree.ElementTree as ET

import pytest

from graders.grade import cli, formats
from graders.grade.grading import GraderError, load_submission

from tests.helpers import load_margin

from .conftest import CORRECT, HOSTILE, ROOT, SANDBOX, grade_path

# a correct call's limit with the load's margin (tests.helpers.load_margin)
FAST = ["--profile", "dev", "--call-timeout", f"{3 * load_margin():g}", "--sandbox", SANDBOX]


@pytest.fixture(scope="module")
def correct_report(spec):
    """One full grade of a correct submission (every check, the 'dev' profile)."""
    return grade_path(CORRECT, spec)


def test_a_correct_submission_gets_full_marks(correct_report, spec):
    rep = correct_report
    assert rep["score"] == rep["max_score"] == sum(g["points"] for g in spec.groups.values())
    assert rep["counts"]["failed"] == rep["counts"]["error"] == 0
    by_id = {g["id"]: g for g in rep["groups"]}
    assert by_id["backward"]["visibility"] == "after_due_date"
    assert by_id["encodings"]["points"] == 0
    gs = json.loads(formats.render(rep, "gradescope"))
    assert gs["score"] == 100
    assert {t["visibility"] for t in gs["tests"]} >= {"visible", "after_due_date", "hidden"}
    assert "Backward pass" not in gs["output"]       # not shown before the due date


def test_same_submission_same_checks_same_score(correct_report, spec):
    again = grade_path(CORRECT, spec, select=["lookup_*", "token_table_params"])
    first = {c["id"]: c["status"] for c in correct_report["checks"]}
    assert {c["id"]: c["status"] for c in again["checks"]} == {
        k: v for k, v in first.items() if k in {c["id"] for c in again["checks"]}}


@pytest.mark.parametrize("lang, word", [("en", "Course section"), ("nl", "Cursustekst"),
                                        ("ko", "강의 본문")])
def test_feedback_languages(correct_report, lang, word):
    from graders.grade import messages as M
    from graders.grade.i18n import translator

    text = formats.render(correct_report, "text", lang)
    assert translator(lang)(M.NOTHING_WRONG) in text          # a perfect submission
    assert text.count(translator(lang)(M.TOTAL_SCORE, score=100, max_score=100)) == 1
    assert M.WHAT_WENT_WRONG not in text and translator(lang)(M.WHAT_WENT_WRONG) not in text
    gs = json.loads(formats.render(correct_report, "gradescope", lang))
    assert any(word in t["output"] for t in gs["tests"])


def test_cli_writes_every_format(tmp_path, capsys):
    sub = str(HOSTILE / "partial.py")
    for fmt in formats.FORMATS:
        out = tmp_path / f"r.{fmt}"
        rc = cli.main([sub, "--format", fmt, "--output", str(out), "--lang", "nl",
                       "--select", "token_table_params", "--select", "lookup_selects_row", *FAST])
        assert rc == 0
        text = out.read_text(encoding="utf-8")
        if fmt in ("json", "gradescope"):
            data = json.loads(text)
            assert data["score"] == 10
            failed = [t for t in data["tests"] if t["status"] == "failed"]
            assert "functie lookup ontbreekt" in failed[0]["output"]          # Dutch message
            assert "Tip:" in failed[0]["output"]                     # Dutch label
            assert "Een Eerste Laag Na een Tokenizer" in failed[0]["output"]  # Dutch section
        elif fmt == "junit":
            assert ET.fromstring(text.split("\n", 1)[1]).get("failures") == "1"
    rc = cli.main([sub, "--format", "gradescope", "--select", "token_table_params", *FAST])
    assert rc == 0 and json.loads(capsys.readouterr().out)["score"] == 10


def test_output_file_is_replaced_not_followed(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("keep")
    link = tmp_path / "results.json"
    link.symlink_to(target)
    rc = cli.main([str(HOSTILE / "syntax_error.py"), "--format", "gradescope",
                   "--output", str(link), "--select", "token_table_params", *FAST])
    assert rc == 0
    assert target.read_text() == "keep" and not link.is_symlink()
    assert json.loads(link.read_text())["score"] == 0


@pytest.mark.parametrize("args, reason", [
    (["/no/such/file.py"], "no such file"),
    ([str(CORRECT), "--spec", "/no/such/spec.yaml"], "invalid spec"),
    ([str(CORRECT), "--output", "/no/such/dir/r.json"], "does not exist"),
    ([str(CORRECT), "--select", "NOPE-99"], "matches no check"),
])
def test_grader_problems_exit_nonzero_with_one_line(args, reason, capsys):
    assert cli.main(args) == cli.EXIT_GRADER
    err = capsys.readouterr().err.strip()
    assert reason in err and "\n" not in err


@pytest.mark.parametrize("argv", [[str(CORRECT)], ["batch", "."]])
def test_profile_is_a_choice(argv, capsys):
    assert cli.main([*argv, "--profile", "bogus"]) == cli.EXIT_GRADER
    err = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in err and "thorough" in err


def test_kernel_submissions_compile_in_the_worker_or_say_why_not(tmp_path, spec, capsys):
    cu = tmp_path / "kernel.cu"
    cu.write_text('extern "C" __global__ void k() {}\n')
    try:
        rep = grade_path(cu, spec, select=["lookup_selects_row"])
    except GraderError as exc:      # no andrea_gpu.submission or no NVRTC on this machine
        assert str(exc).startswith("kernel grading unavailable: ")
        assert cli.main([str(cu), "--select", "lookup_selects_row"]) == cli.EXIT_GRADER
        assert "kernel grading unavailable" in capsys.readouterr().err
        return
    assert rep["kind"] == "kernel" and rep["score"] == 0
    assert not rep["import"]["ok"]   # compiler feedback: missing entry points
    from graders.grade import formats   # told in the student's language, signatures as they are
    nl, ko = formats.text(rep, "nl", width=1000), formats.text(rep, "ko", width=1000)
    assert "kernel-ingangen ontbreken" in nl and "커널 진입점이 없습니다" in ko
    assert "andrea_lookup(" in nl and "missing kernel entry points" not in nl + ko


def test_folders_with_one_module(tmp_path):
    d = tmp_path / "alice"
    d.mkdir()
    (d / "helpers.txt").write_text("notes")
    (d / "embedding.py").write_text("x = 1\n")
    sub = load_submission(d)
    assert sub.module == "embedding.py" and set(sub.files) == {"helpers.txt", "embedding.py"}
    (d / "other.py").write_text("y = 2\n")
    assert load_submission(d).module == "embedding.py"       # preferred name
    (d / "embedding.py").rename(d / "a.py")
    assert load_submission(d).module is None                 # ambiguous: graded 0, explained


def test_a_correct_kernel_submission_scores_on_the_kernel_groups(tmp_path, spec):
    """andrea_gpu's own kernels, submitted as a student's .cu, pass what they are graded on."""
    from graders.grade.grading import kernel_support

    if not kernel_support()[0]:
        pytest.skip("andrea_gpu.submission is not importable here")
    from andrea_gpu import nvrtc

    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as exc:     # the gpu extra left out (EXTRAS=test)
        pytest.skip(str(exc))
    cu = tmp_path / "kernels.cu"
    cu.write_text((ROOT / "andrea_gpu" / "kernels" / "embedding.cu").read_text())
    rep = grade_path(cu, spec, select=["lookup_selects_row", "token_gradient_zero_rows"])
    assert rep["kind"] == "kernel" and rep["import"]["ok"], rep["import"]
    assert rep["score"] == rep["max_score"] > 0, [c["message"] for c in rep["checks"]]


def test_the_help_states_the_real_default_limits(capsys):
    """The defaults in --help are read from Limits, not written twice (they once said 120 s
    and 900 s while the grader used 60 s and 120 s)."""
    from graders.grade.sandbox import Limits

    assert cli.main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    d = Limits()
    assert f"wall seconds per call into the submission ({d.call_timeout:g})" in text
    assert f"wall seconds per check ({d.check_timeout:g})" in text
    assert f"the budget ({d.total_timeout:g})" in text
    assert f"worker address space ({d.memory_mb})" in text
