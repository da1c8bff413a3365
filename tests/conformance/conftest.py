import pytest

from spec import load_spec


@pytest.fixture(scope="session")
def andrea_spec():
    return load_spec("andrea-120m")


@pytest.fixture(scope="session")
def spec():
    return load_spec()
