"""Every command that takes --spec answers a bad spec file with the loader's one paragraph:
no traceback, the file named, what is wrong with it, exit status 2 (1 for `andrea-audit spec`,
whose job is to judge the file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graders.audit import cli as audit_cli
from graders.conformance import cli as conform_cli
from graders.grade import cli as grade_cli
from spec import SPEC_DIR, SpecError, load_spec

ROOT = Path(__file__).resolve().parents[2]
GOOD = (SPEC_DIR / "andrea-120m.yaml").read_bytes()
CORRECT = str(ROOT / "examples/submissions/correct_student.py")

BAD = {  # name -> (how to make it, what the paragraph must say)
    "binary junk": (lambda p: p.write_bytes(bytes(range(256)) * 4), "not UTF-8 text"),
    "latin-1 text": (lambda p: p.write_bytes("name: café\n".encode("latin-1")), "not UTF-8 text"),
    "NUL bytes": (lambda p: p.write_bytes(b"name: a\x00b\n"), "not valid YAML"),
    "truncated": (lambda p: p.write_bytes(GOOD[: GOOD.rindex(b"\n", 0, len(GOOD) // 3)]),
                  "is a required property"),
    "cut mid-token": (lambda p: p.write_bytes(GOOD[:GOOD.index(b"quantities:") + 30]),
                      "required"),
    "empty": (lambda p: p.write_bytes(b""), "the file is empty"),
    "only a comment": (lambda p: p.write_bytes(b"# nothing\n"), "the file is empty"),
    "a list": (lambda p: p.write_bytes(b"- 1\n- 2\n"), "top level must be a mapping"),
    "a directory": (lambda p: p.mkdir(), "is a directory"),
    # nested 100000 deep: the parser must stop with an error, not crash the process
    "nested brackets": (lambda p: p.write_text("a: " + "[" * 100_000 + "]" * 100_000),
                        "nested too deeply"),
    "nested dashes": (lambda p: p.write_text("a:\n" + "- " * 100_000 + "x\n"),
                      "nested too deeply"),
    "nested indentation": (lambda p: p.write_text("".join(f"{' ' * i}k{i}:\n"
                                                          for i in range(2000))
                                                  + " " * 2000 + "x: 1\n"),
                           "nested too deeply"),
}


def _make(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / ("spec.yaml" if kind != "a directory" else "spec.d")
    BAD[kind][0](path)
    return path


@pytest.mark.parametrize("kind", BAD)
def test_loader_gives_one_paragraph(tmp_path, kind):
    path = _make(tmp_path, kind)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    text = str(info.value)
    assert text.startswith(f"invalid spec {path}: ") and "\n" not in text
    assert BAD[kind][1] in text


def _commands(path: Path, tmp_path: Path):
    doc = tmp_path / "doc.txt"
    doc.write_text("V = 8449\n", encoding="utf-8")
    subs = tmp_path / "subs"
    subs.mkdir(exist_ok=True)
    p = str(path)
    return {
        "andrea-conform": (conform_cli.main, ["andrea_ref", "--spec", p], 2),
        "andrea-conform --list": (conform_cli.main, ["--list", "--spec", p], 2),
        "andrea-grade": (grade_cli.main, [CORRECT, "--spec", p], 2),
        "andrea-grade batch": (grade_cli.main, ["batch", str(subs), "--spec", p], 2),
        "andrea-audit docs": (audit_cli.main, ["docs", str(doc), "--spec", p], 2),
        "andrea-audit impl": (audit_cli.main, ["impl", "andrea_ref", "--spec", p], 2),
        # a spec that is there but invalid is the spec audit's finding (1); no file at all, bad usage
        "andrea-audit spec": (audit_cli.main, ["spec", p], 2 if path.is_dir() else 1),
    }


@pytest.mark.parametrize("kind", ["binary junk", "truncated", "empty", "a directory"])
def test_every_cli_reports_a_bad_spec(tmp_path, capsys, kind):
    path = _make(tmp_path, kind)
    for name, (main, argv, code) in _commands(path, tmp_path).items():
        assert main(argv) == code, name
        out = capsys.readouterr()
        text = out.out + out.err
        assert "Traceback" not in text, name
        assert "invalid spec" in text and str(path) in text and BAD[kind][1] in text, (name, text)


def test_pytest_plugin_reports_a_bad_spec(tmp_path):
    path = _make(tmp_path, "binary junk")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs",
                           "graders.conformance", "--impl", "andrea_ref", "--spec", str(path),
                           "-k", "PAR-TOKEN-01"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "not UTF-8 text" in proc.stderr and "Traceback" not in proc.stderr + proc.stdout
