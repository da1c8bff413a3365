"""Shared fixtures of the workflow tests (teacher's and student's end-to-end paths)."""
import pytest

from spec import load_spec


@pytest.fixture(scope="session")
def spec():
    return load_spec()


@pytest.fixture(autouse=True)
def _no_import_rule_left():
    """load_impl(..., submission_rules=True) installs the import rule for the submission's
    folder, as andrea-conform does (which removes it when it ends): removed after each test."""
    yield
    from graders.conformance.runner import remove_import_rules

    remove_import_rules()
