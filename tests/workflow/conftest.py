"""Shared fixtures of the workflow tests (teacher's and student's end-to-end paths)."""
import pytest

from spec import load_spec


@pytest.fixture(scope="session")
def spec():
    return load_spec()
