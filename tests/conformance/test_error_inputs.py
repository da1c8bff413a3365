"""Error inputs are one table: it agrees with the spec's contract and the checks, the project's
own implementations raise each error with the same wording, and `andrea-conform --list`
shows it."""

from __future__ import annotations

import pytest

import andrea_ref
from graders.conformance import cli
from graders.conformance.error_inputs import (ERROR_INPUTS, check_error_input, check_error_inputs,
                                              error_inputs)
from graders.conformance.profiles import use_profile
from graders.conformance.registry import all_checks
from spec import load_spec

SPEC = load_spec()


def test_every_errors_clause_has_entries_calling_what_its_check_requires():
    for clause in (c for c in SPEC.clauses if c.method == "errors"):
        required = {f for k in all_checks(SPEC) if clause.id in k.clauses for f in k.requires}
        assert {e.function for e in error_inputs(clause.id)} == required, clause.id


def test_table_and_contract_name_the_same_errors():
    """Each (function, exception) the spec's contract lists is tried, and nothing else."""
    declared = {(f.name, e.raises) for f in SPEC.contract.functions for e in f.errors}
    tried = {(e.function, e.error.__name__) for e in ERROR_INPUTS}
    assert tried == declared, (tried ^ declared)


@pytest.mark.parametrize("ei", ERROR_INPUTS, ids=lambda e: f"{e.clause}-{e.function}-{e.what}")
def test_reference_raises_each_error_with_its_wording(ei):
    with use_profile("dev"):
        check_error_input(andrea_ref, SPEC, ei, match_message=True)


def test_gpu_implementation_raises_the_same_errors_with_the_same_wording():
    """andrea_gpu checks its arguments as the reference does, before any launch."""
    andrea_gpu = pytest.importorskip("andrea_gpu")
    with use_profile("dev"):
        for ei in ERROR_INPUTS:
            check_error_input(andrea_gpu, SPEC, ei, match_message=True)


def test_a_wrong_error_type_fails_the_clause(tmp_path):
    """A submission that wraps -1 around (no IndexError) fails EMB-ERR-01 on the table's entry."""
    from graders.conformance.registry import ConformanceError

    class Wraps:
        @staticmethod
        def lookup(table, ids):
            return table[ids]

        embed = staticmethod(andrea_ref.embed)

    with use_profile("dev"), pytest.raises(ConformanceError, match="should raise IndexError"):
        check_error_inputs(Wraps(), SPEC, "EMB-ERR-01")


def test_unknown_clause_has_no_error_inputs():
    with pytest.raises(LookupError):
        check_error_inputs(andrea_ref, SPEC, "EMB-LOOKUP-01")


def test_list_shows_the_error_inputs(capsys):
    assert cli.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert f"error inputs ({len(ERROR_INPUTS)})" in out
    assert "EMB-ERR-01   lookup()" in out and "-> IndexError" in out
