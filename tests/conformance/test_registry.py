"""graders/conformance/registry.py: every check names clauses the spec has, and --select is one
rule (a pattern that matches nothing is an error, not an empty run)."""

from __future__ import annotations

import pytest

from graders.conformance.registry import SelectionError, all_checks, select
from spec import load_spec


@pytest.fixture(scope="module")
def checks():
    return all_checks(load_spec())


def test_every_check_covers_clauses_of_the_spec(checks):
    spec = load_spec()
    ids = {c.id for c in spec.clauses}
    assert checks and len({c.id for c in checks}) == len(checks)
    for c in checks:
        assert c.clauses and set(c.clauses) <= ids, c.id


def test_select_by_check_id_and_by_clause_pattern(checks):
    assert [c.id for c in select(checks, ["dot_product"])] == ["dot_product"]
    by_clause = select(checks, ["BWD-*"])
    assert by_clause and all(any(cl.startswith("BWD-") for cl in c.clauses) for c in by_clause)
    assert select(checks, None) == checks


def test_a_pattern_that_matches_nothing_is_an_error(checks):
    with pytest.raises(SelectionError, match="NOPE-99"):
        select(checks, ["NOPE-99"])
