"""Shared fixtures of the tests of andrea_runtime (what runs in the grader's sandbox)."""
import pytest

from spec import load_spec


@pytest.fixture(scope="session")
def spec():
    return load_spec()
