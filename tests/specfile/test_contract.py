"""The Python contract is data in the spec: the README, the runner, the grader and the checks
all read it, and the checks cannot name a clause or a function the spec does not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import andrea_ref
from graders.conformance import cli
from graders.conformance.registry import (Check, RegistryError, all_checks, registry_problems)
from graders.conformance.runner import FAILED, SKIPPED, run_check
from graders.grade.grading import contract_functions
from spec import SPEC_DIR, contract_table, load_spec

ROOT = Path(__file__).resolve().parents[2]


def test_readme_table_is_the_spec_contract():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- contract table:[^\n]*-->\n(.*?)<!-- end of contract table -->", readme,
                  re.S)
    assert m, "README.md lost its contract-table markers"
    assert m.group(1) == contract_table(load_spec()), (
        "README.md's contract table differs from spec/andrea-120m.yaml: paste "
        "spec.contract_table(spec.load_spec()) between the markers")


def test_contract_has_the_ten_functions_and_the_two_optional_ones():
    c = load_spec().contract
    assert len(c.required) == 10 and c.optional == ("sinusoidal_encoding", "rope")
    assert c.function("embed").params == ("token_ids", "token_table", "position_table")
    assert {e.raises for e in c.function("embed").errors} == {"IndexError", "TypeError",
                                                             "ValueError"}
    assert "lookup" in c and "softmax" not in c


@pytest.mark.parametrize("name", ["andrea-120m", "gpt2-small"])
def test_every_check_fits_every_bundled_spec(name):
    spec = load_spec(name)
    assert registry_problems(all_checks(), spec) == []
    called = {f for chk in all_checks() for f in chk.requires}
    assert called == set(spec.contract.names), "a contract function no check calls"


def test_reference_and_grader_follow_the_contract():
    spec = load_spec()
    assert all(callable(getattr(andrea_ref, f)) for f in spec.contract.names)
    assert contract_functions(spec) == list(spec.contract.names)


def _edited(tmp_path, mutate) -> Path:
    raw = yaml.safe_load((SPEC_DIR / "andrea-120m.yaml").read_text(encoding="utf-8"))
    mutate(raw)
    path = tmp_path / "edited.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_check_of_a_clause_the_spec_lacks_is_an_error(tmp_path, capsys):
    path = _edited(tmp_path, lambda r: r.__setitem__(
        "clauses", [c for c in r["clauses"] if c["id"] != "EMB-PERM-01"]))
    with pytest.raises(RegistryError, match="lookup_permutation_equivariant is registered for "
                                            "clause EMB-PERM-01"):
        all_checks(load_spec(path))
    assert cli.main(["andrea_ref", "--spec", str(path), "--list"]) == 2
    err = capsys.readouterr().err
    assert "EMB-PERM-01" in err and "Traceback" not in err


def test_check_calling_a_function_the_contract_lacks_is_an_error(tmp_path):
    path = _edited(tmp_path, lambda r: r["contract"].__setitem__(
        "functions", [f for f in r["contract"]["functions"] if f["name"] != "norm"]))
    problems = registry_problems(all_checks(), load_spec(path))
    assert any("vector_norm calls norm()" in p for p in problems)
    fake = Check("f", ("EMB-LOOKUP-01",), lambda impl, spec: None, requires=("lookups",))
    assert registry_problems([fake], load_spec()) == [
        "check f calls lookups(), which is not a function of the spec's contract"]


def test_missing_required_function_fails_and_missing_optional_one_skips():
    spec = load_spec()

    class Partial:
        pass

    by_id = {c.id: c for c in all_checks(spec)}
    assert run_check(by_id["lookup_selects_row"], Partial(), spec).status == FAILED
    res = run_check(by_id["rope_preserves_norms"], Partial(), spec)
    assert res.status == SKIPPED and "optional function rope" in res.message


def test_duplicate_contract_function_is_refused(tmp_path):
    path = _edited(tmp_path, lambda r: r["contract"]["functions"].append(
        dict(r["contract"]["functions"][0])))
    with pytest.raises(Exception, match="'token_embedding_params' is listed twice"):
        load_spec(path)


@pytest.mark.parametrize("where, value, message", [
    (("model", "position_encoding"), "rope", "'learned' was expected"),
    (("model", "init", "distribution"), "uniform", "'normal' was expected"),
    (("kernels", "dtype"), "float64", "'float32' was expected"),
    (("kernels", "bad_id_sentinel"), -1, "2147483647 was expected"),
    (("kernels", "launch", "test_shapes"), [[1, 48]], "block 48 of [1, 48] breaks the launch rule"),
])
def test_values_the_code_cannot_honour_are_refused(tmp_path, where, value, message):
    """A spec value nothing would act on is an error, never silently ignored."""
    def mutate(raw):
        node = raw
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value
    with pytest.raises(Exception, match=re.escape(message)):
        load_spec(_edited(tmp_path, mutate))
