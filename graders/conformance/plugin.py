"""pytest plugin: run the conformance checks as tests against an implementation.

    pytest --pyargs graders.conformance --impl andrea_ref
    pytest --pyargs graders.conformance --impl path/to/submission.py --spec gpt2-small
    pytest --pyargs graders.conformance --impl mine.py --conformance-xfails known.txt

Registered through the ``pytest11`` entry point, so it is active wherever the package is
installed; its options do nothing unless the conformance tests are collected.
"""

from __future__ import annotations

import warnings
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from spec import SpecError, load_spec

from .profiles import DEFAULT_PROFILE, PROFILES
from .runner import ImplementationLoadError, load_impl


def pytest_configure(config):
    config.addinivalue_line("markers", "andrea_conformance: a conformance check run as a test")


def pytest_addoption(parser):
    group = parser.getgroup("andrea-conformance", "ANDREA embedding conformance")
    group.addoption("--impl", default=None, metavar="MODULE_OR_PATH",
                    help="implementation under test: a module name or a path to a .py file")
    group.addoption("--spec", default=None, metavar="NAME_OR_PATH",
                    help="spec to check against (default: andrea-120m)")
    group.addoption("--conformance-profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES),
                    help="Hypothesis profile (default: %(default)s)")
    group.addoption("--conformance-xfails", default=None, metavar="FILE",
                    help="file of check or clause ids (fnmatch patterns) expected to fail")


@pytest.fixture(scope="session")
def conformance_spec(request):
    try:
        return load_spec(request.config.getoption("--spec"))
    except SpecError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(scope="session")
def conformance_target(request) -> str:
    target = request.config.getoption("--impl")
    if not target:
        raise pytest.UsageError("the conformance tests need --impl MODULE_OR_PATH "
                                "(e.g. --impl andrea_ref)")
    return target


@pytest.fixture(scope="session")
def conformance_impl(conformance_target):
    try:
        return load_impl(conformance_target)
    except ImplementationLoadError as exc:
        raise pytest.UsageError(f"--impl {exc}") from None


@pytest.fixture(scope="session")
def conformance_profile(request) -> str:
    return request.config.getoption("--conformance-profile")


def _read_patterns(path: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise pytest.UsageError(f"--conformance-xfails {path}: {exc.strerror}") from None
    return [ln.split("#", 1)[0].strip() for ln in lines if ln.split("#", 1)[0].strip()]


def pytest_collection_modifyitems(config, items):
    conformance = [i for i in items if i.get_closest_marker("andrea_conformance")]
    if conformance and not config.getoption("--impl"):
        raise pytest.UsageError("the conformance tests need --impl MODULE_OR_PATH "
                                "(e.g. --impl andrea_ref)")
    path = config.getoption("--conformance-xfails")
    if not path:
        return
    patterns = _read_patterns(path)
    used = set()
    for item in items:
        chk = getattr(item, "callspec", None) and item.callspec.params.get("check")
        if chk is None:
            continue
        for p in patterns:
            if fnmatchcase(chk.id, p) or any(fnmatchcase(c, p) for c in chk.clauses):
                item.add_marker(pytest.mark.xfail(reason=f"listed in {path}: {p}", strict=True))
                used.add(p)
    for p in patterns:
        if p not in used:
            warnings.warn(f"{path}: {p!r} matches no conformance check or clause",
                          pytest.PytestWarning)
