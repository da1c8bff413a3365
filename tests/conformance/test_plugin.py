"""The pytest-native way: pytest --pyargs graders.conformance --andrea-impl TARGET."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUGGY = str(ROOT / "examples/submissions/buggy_student.py")


def _pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--pyargs", "graders.conformance", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def test_plugin_reports_the_failing_clause(tmp_path):
    proc = _pytest("--andrea-impl", BUGGY, "-k", "BWD-TOK-01 or PAR-TOKEN-01", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"1 failed, 1 passed, \d+ deselected", proc.stdout), proc.stdout
    assert "BWD-TOK-01" in proc.stdout and "Repeated ids must accumulate" in proc.stdout


def test_xfail_file_marks_known_failures_and_warns_about_unused_patterns(tmp_path):
    known = tmp_path / "known.txt"
    known.write_text("BWD-TOK-01   # the bug we know about\nEMB-TYPO-*\n")
    proc = _pytest("--andrea-impl", BUGGY, "-k", "BWD-TOK-01 or PAR-TOKEN-01",
                   "--andrea-xfails", str(known), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout and "1 xfailed" in proc.stdout
    assert "'EMB-TYPO-*' matches no conformance check or clause" in proc.stdout


def test_missing_impl_option_is_a_usage_error(tmp_path):
    proc = _pytest("-k", "PAR-TOKEN-01", cwd=tmp_path)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--andrea-impl" in proc.stderr


def test_old_option_names_still_work_and_warn(tmp_path):
    proc = _pytest("--impl", BUGGY, "--spec", "gpt2-small", "--conformance-profile", "dev",
                   "-k", "PAR-TOKEN-01", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    for old, new in (("--impl", "--andrea-impl"), ("--spec", "--andrea-spec"),
                     ("--conformance-profile", "--andrea-profile")):
        assert f"{old} is deprecated; use {new}" in proc.stdout


def test_unknown_profile_is_a_usage_error(tmp_path):
    proc = _pytest("--andrea-impl", BUGGY, "--andrea-profile", "fast", cwd=tmp_path)
    assert proc.returncode == 4 and "invalid choice: 'fast'" in proc.stderr
