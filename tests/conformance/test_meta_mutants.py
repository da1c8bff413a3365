"""Meta-tests: the suite rejects every known-buggy implementation under the right clause, and
accepts the reference and two differently-written correct implementations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graders.conformance.registry import all_checks
from graders.conformance.runner import FAILED, PASSED, SKIPPED, load_impl, run_checks
from tests.helpers import clause_status, load_margin

from .mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ["andrea_ref", str(ROOT / "examples/submissions/correct_student.py"),
           str(ROOT / "examples/submissions/correct_vectorised.py")]


@pytest.mark.parametrize("target", CORRECT, ids=lambda t: Path(t).stem)
def test_correct_implementations_pass_every_check(target, andrea_spec):
    results = run_checks(load_impl(target), andrea_spec, profile="ci")
    bad = [f"{r.check_id}: {r.message}" for r in results if r.status not in (PASSED, SKIPPED)]
    assert not bad, "\n".join(bad)
    assert len(results) == len(all_checks())


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_is_rejected_under_its_clause(mutant, andrea_spec, tmp_path):
    impl = load_impl(mutant.write(tmp_path))
    results = run_checks(impl, andrea_spec, profile="ci", select=list(mutant.must_fail))
    status = clause_status(results)
    for clause in mutant.must_fail:
        assert status.get(clause) == FAILED, (
            f"mutant {mutant.name} ({mutant.bug}) passed {clause}:\n"
            + "\n".join(f"{r.check_id} {r.status} {r.message}" for r in results))
    for r in results:
        if r.status == FAILED:
            assert r.message, r
            assert r.reproducer and "load_impl" in r.reproducer


def test_mutants_differ_from_the_correct_source(tmp_path):
    seen = set()
    for m in MUTANTS:
        src = m.source()
        assert src not in seen
        seen.add(src)


def test_cli_names_the_clause_and_the_shrunk_input(tmp_path):
    path = next(m for m in MUTANTS if m.name == "duplicates_dropped").write(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "graders.conformance.cli", str(path),
                           "--select", "BWD-TOK-01"], capture_output=True, text=True, timeout=120 * load_margin())
    assert proc.returncode == 1, proc.stderr
    assert "FAIL  BWD-TOK-01" in proc.stdout
    assert "Repeated ids must accumulate" in proc.stdout   # the hint
    assert "smallest failing input" in proc.stdout
    assert "reproduce:" in proc.stdout


def test_cli_exit_zero_for_the_reference_and_two_for_bad_targets():
    ok = subprocess.run([sys.executable, "-m", "graders.conformance.cli", "andrea_ref",
                         "--select", "PAR-*"], capture_output=True, text=True, timeout=120 * load_margin())
    assert ok.returncode == 0, ok.stdout + ok.stderr
    missing = subprocess.run([sys.executable, "-m", "graders.conformance.cli", "no_such_module"],
                             capture_output=True, text=True, timeout=60 * load_margin())
    assert missing.returncode == 2
    assert "no_such_module" in missing.stderr and "Traceback" not in missing.stderr


def test_results_are_reproducible(tmp_path, andrea_spec):
    impl = load_impl(MUTANTS[0].write(tmp_path))
    runs = [[(r.status, r.message, r.example) for r in
             run_checks(impl, andrea_spec, profile="ci", select=["EMB-LOOKUP-01"])]
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_missing_function_is_reported_not_crashed(tmp_path, andrea_spec):
    path = tmp_path / "partial.py"
    path.write_text("def dot(u, v):\n    return float(sum(a * b for a, b in zip(u, v)))\n")
    results = run_checks(load_impl(path), andrea_spec, profile="dev", select=["EMB-LOOKUP-01"])
    assert results[0].status == FAILED
    assert results[0].message == "function lookup is missing"
