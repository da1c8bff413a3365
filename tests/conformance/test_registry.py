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


def test_the_reporting_order_does_not_depend_on_which_check_module_was_imported_first():
    """all_checks() reports in CHECK_MODULES order even when a process imported a later check
    module first (in one pytest process another test file may have): the order decides the CSV's
    columns and, under a used-up time budget, which checks ran at all."""
    import subprocess
    import sys

    program = ("import importlib, sys\n"
               "for name in sys.argv[1:]:\n"
               "    importlib.import_module(name)\n"
               "from graders.conformance.registry import all_checks\n"
               "print(' '.join(c.id for c in all_checks()))\n")
    from graders.conformance.registry import CHECK_MODULES
    orders = {subprocess.run([sys.executable, "-c", program, *first], capture_output=True,
                             text=True, check=True).stdout
              for first in ((), tuple(reversed(CHECK_MODULES)), (CHECK_MODULES[3],))}
    assert len(orders) == 1, orders
