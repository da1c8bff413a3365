"""The options the three commands share (graders/conformance/options.py): one spelling, one
error line for a bad --spec, the same exit statuses, old spellings kept one release with a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graders.audit import cli as audit_cli
from graders.conformance import cli as conform_cli
from graders.conformance.options import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from graders.grade import cli as grade_cli

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ROOT / "examples" / "submissions" / "buggy_student.py"


@pytest.fixture
def bad_spec(tmp_path):
    p = tmp_path / "broken.yaml"
    p.write_text("model: [unclosed\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("main, argv", [
    (conform_cli.main, ["andrea_ref"]),
    (grade_cli.main, [str(BUGGY)]),
    (audit_cli.main, ["impl", "andrea_ref"]),
    (audit_cli.main, ["docs", "README.md"]),
    (audit_cli.main, ["suite"]),
    (grade_cli.main, ["batch", str(BUGGY.parent)]),
    (grade_cli.main, ["gradescope-zip", "--output", "never-written.zip"]),
])
def test_a_bad_spec_is_one_line_and_exit_status_2(main, argv, bad_spec, capsys):
    assert main([*argv, "--spec", str(bad_spec)]) == EXIT_USAGE
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "broken.yaml" in lines[0], captured.err
    assert lines[0].startswith(("andrea-conform: ", "andrea-grade: ", "andrea-audit: "))
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("main, argv", [
    (conform_cli.main, ["andrea_ref", "--call-timeout", "nan"]),
    (conform_cli.main, ["andrea_ref", "--profile", "no-such-profile"]),
    (grade_cli.main, [str(BUGGY), "--call-timeout", "nan"]),
    (grade_cli.main, [str(BUGGY), "--total-timeout", "-1"]),
    (audit_cli.main, ["suite", "--jobs", "x"]),
])
def test_a_bad_option_is_returned_as_exit_status_2_by_every_command(main, argv, capsys):
    """Each command's main returns its usage error (none raises SystemExit at its caller),
    and a time limit that is not a positive number of seconds is refused alike."""
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err, err


@pytest.mark.parametrize("main", [conform_cli.main, grade_cli.main, audit_cli.main])
def test_help_is_exit_status_0_for_every_command(main, capsys):
    assert main(["--help"]) == EXIT_OK
    assert "usage:" in capsys.readouterr().out


def test_a_missing_output_folder_names_the_option_in_every_command(tmp_path, capsys):
    missing = str(tmp_path / "no" / "report.txt")
    assert conform_cli.main(["andrea_ref", "--output", missing]) == EXIT_USAGE
    assert grade_cli.main([str(BUGGY), "--output", missing]) == EXIT_USAGE
    assert audit_cli.main(["suite", "--output", missing]) == EXIT_USAGE
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(f"--output {missing}" in ln for ln in lines), lines


def test_audit_says_output_and_keeps_out_with_a_note(tmp_path, capsys):
    new = audit_cli.build_parser().parse_args(["impl", "andrea_ref", "--output", "a"])
    assert new.output == "a" and capsys.readouterr().err == ""
    old = audit_cli.build_parser().parse_args(["impl", "andrea_ref", "--out", "b"])
    assert old.output == "b"
    assert "--out is now --output" in capsys.readouterr().err


def test_audit_names_the_documents_language_apart_from_the_reports(capsys):
    new = audit_cli.build_parser().parse_args(["docs", "x.md", "--doc-lang", "nl"])
    assert new.doc_lang == "nl" and capsys.readouterr().err == ""
    old = audit_cli.build_parser().parse_args(["docs", "x.md", "--lang", "ko"])
    assert old.doc_lang == "ko" and "--lang is now --doc-lang" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        audit_cli.build_parser().parse_args(["docs", "x.md", "--lang", "fr"])
    assert exc.value.code == EXIT_USAGE


def test_andrea_grade_subcommands_are_argparse_subparsers(capsys):
    p = grade_cli.build_parser()
    assert p.parse_args(["batch", "subs"]).command == "batch"
    assert p.parse_args(["grade", "hw.py"]).submission == "hw.py"
    assert grade_cli.main(["student-kit"]) == EXIT_USAGE          # --output is required
    assert "--output" in capsys.readouterr().err
    assert grade_cli.main(["--help"]) == EXIT_OK                 # the grade command's help
    out = capsys.readouterr().out
    assert "usage: andrea-grade" in out and "gradescope-zip" in out


def test_andrea_conform_writes_its_report_with_output(tmp_path, capsys):
    report = tmp_path / "report.json"
    code = conform_cli.main([str(BUGGY), "--profile", "dev", "--select", "BWD-TOK-01",
                             "--format", "json", "--output", str(report)])
    assert code == EXIT_FINDINGS
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["passed"] is False and data["results"]
    assert "BWD-TOK-01" not in capsys.readouterr().out          # nothing of it on stdout
    assert conform_cli.main([str(BUGGY), "--output", str(tmp_path / "no" / "r.txt")]) == EXIT_USAGE


def test_audit_suite_says_markdown_as_the_others_and_keeps_md_with_a_note(capsys):
    new = audit_cli.build_parser().parse_args(["suite", "--format", "markdown"])
    assert new.format == "markdown" and capsys.readouterr().err == ""
    old = audit_cli.build_parser().parse_args(["suite", "--format", "md"])
    assert old.format == "markdown" and "--format md is now --format markdown" in \
        capsys.readouterr().err
    for command in (["docs", "x.md"], ["spec"], ["suite"]):
        assert "markdown" in audit_cli.build_parser().parse_args(
            [*command, "--format", "markdown"]).format


@pytest.mark.parametrize("argv", [["docs", "README.md"], ["spec"]])
def test_every_audit_subcommand_writes_its_report_with_output(argv, tmp_path, capsys):
    out = tmp_path / "report.json"
    code = audit_cli.main([*argv, "--format", "json", "--output", str(out)])
    assert code in (EXIT_OK, EXIT_FINDINGS)
    json.loads(out.read_text(encoding="utf-8"))
    assert capsys.readouterr().out == ""
    missing = str(tmp_path / "no" / "r.txt")
    assert audit_cli.main([*argv, "--output", missing]) == EXIT_USAGE
    assert f"--output {missing}" in capsys.readouterr().err


def test_batch_says_markdown_as_the_others_and_keeps_md_with_a_note(capsys):
    p = grade_cli.build_parser()
    assert p.parse_args(["batch", "subs"]).feedback_format == "markdown"
    assert capsys.readouterr().err == ""
    assert p.parse_args(["batch", "subs", "--feedback-format", "md"]).feedback_format \
        == "markdown"
    assert "--feedback-format md is now --feedback-format markdown" in capsys.readouterr().err
