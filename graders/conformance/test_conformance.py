"""The conformance suite as pytest tests: one test per registered check.

Run with ``pytest --pyargs graders.conformance --andrea-impl MODULE_OR_PATH`` (see plugin.py).
"""

import pytest

from graders.conformance.profiles import use_profile
from graders.conformance.registry import all_checks
from graders.conformance.explain import explain
from graders.conformance.runner import PASSED, SKIPPED, in_run_order, run_check


@pytest.fixture(scope="module")
def conformance_mutations() -> list:
    """Arguments changed in place by any test's calls, charged to the purity check (run last)."""
    return []


@pytest.mark.andrea_conformance
@pytest.mark.parametrize("check", in_run_order(all_checks()), ids=lambda c: f"{c.clauses[0]}-{c.id}")
def test_clause(check, conformance_impl, conformance_spec, conformance_profile,
                conformance_target, conformance_mutations):
    with use_profile(conformance_profile):
        result = run_check(check, conformance_impl, conformance_spec, target=conformance_target,
                           mutations=conformance_mutations)
    if result.status == SKIPPED:
        pytest.skip(result.message)
    if result.status != PASSED:
        pytest.fail(explain(result, conformance_spec), pytrace=False)
