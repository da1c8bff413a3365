"""pytest plugin: run the conformance checks as tests against an implementation.

    pytest --pyargs graders.conformance --andrea-impl andrea_ref
    pytest --pyargs graders.conformance --andrea-impl path/to/submission.py --andrea-spec gpt2-small
    pytest --pyargs graders.conformance --andrea-impl mine.py --andrea-xfails known.txt

Registered through the ``pytest11`` entry point, so it is active wherever the package is
installed; its options are prefixed ``--andrea-`` so they cannot clash with other plugins, and
do nothing unless the conformance tests are collected. The old names (``--impl``, ``--spec``,
``--conformance-profile``, ``--conformance-xfails``) still work and warn that they are
deprecated.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from spec import SpecError, load_spec

from .profiles import DEFAULT_PROFILE, PROFILES
from .registry import RegistryError, all_checks, matches
from .runner import ImplementationLoadError, load_impl

#: option -> (its deprecated old name, metavar, help)
OPTIONS = {
    "--andrea-impl": ("--impl", "MODULE_OR_PATH",
                      "implementation under test: a module name or a path to a .py file"),
    "--andrea-spec": ("--spec", "NAME_OR_PATH", "spec to check against (default: andrea-120m)"),
    "--andrea-profile": ("--conformance-profile", "PROFILE",
                         f"Hypothesis profile: {', '.join(PROFILES)} (default: {DEFAULT_PROFILE})"),
    "--andrea-xfails": ("--conformance-xfails", "FILE",
                        "file of check or clause ids (fnmatch patterns) expected to fail"),
}
_NEED_IMPL = ("the conformance tests need --andrea-impl MODULE_OR_PATH "
              "(e.g. --andrea-impl andrea_ref)")


def _dest(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


def pytest_addoption(parser):
    group = parser.getgroup("andrea-conformance", "ANDREA embedding conformance")
    for new, (old, metavar, help_) in OPTIONS.items():
        choices = sorted(PROFILES) if new == "--andrea-profile" else None
        group.addoption(new, default=None, metavar=metavar, choices=choices, help=help_)
        group.addoption(old, dest=_dest(old), default=None, metavar=metavar, choices=choices,
                        help=f"deprecated name of {new}")


def option(config, new: str):
    """The value of `new`, or of its deprecated old name (which warns once)."""
    value = config.getoption(_dest(new))
    old = OPTIONS[new][0]
    old_value = config.getoption(_dest(old))
    if old_value is not None:
        if value is None:
            value = old_value
        key = f"_andrea_warned_{_dest(old)}"
        if not getattr(config, key, False):
            setattr(config, key, True)
            config.issue_config_time_warning(pytest.PytestDeprecationWarning(
                f"{old} is deprecated; use {new}"), stacklevel=2)
    if new == "--andrea-profile" and value is None:
        value = DEFAULT_PROFILE
    return value


def pytest_configure(config):
    config.addinivalue_line("markers", "andrea_conformance: a conformance check run as a test")
    for new in OPTIONS:
        option(config, new)  # warn about deprecated names early, once
    if option(config, "--andrea-impl") is not None:   # a conformance run, perhaps in a homework
        from graders import keep_cwd_clean             # folder: no .hypothesis/ left in it
        keep_cwd_clean()


@pytest.fixture(scope="session")
def conformance_spec(request):
    return request.config._andrea_spec


@pytest.fixture(scope="session")
def conformance_target(request) -> str:
    return option(request.config, "--andrea-impl")


@pytest.fixture(scope="session")
def conformance_impl(conformance_target):
    try:
        return load_impl(conformance_target)
    except ImplementationLoadError as exc:
        raise pytest.UsageError(f"--andrea-impl {exc}") from None


@pytest.fixture(scope="session")
def conformance_profile(request) -> str:
    return option(request.config, "--andrea-profile")


def _read_patterns(path: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise pytest.UsageError(f"--andrea-xfails {path}: {why}") from None
    return [ln.split("#", 1)[0].strip() for ln in lines if ln.split("#", 1)[0].strip()]


def pytest_collection_modifyitems(config, items):
    conformance = [i for i in items if i.get_closest_marker("andrea_conformance")]
    if not conformance:
        return
    if not option(config, "--andrea-impl"):
        raise pytest.UsageError(_NEED_IMPL)
    try:  # a bad spec, or checks that do not fit it, is a usage error before any test runs
        config._andrea_spec = load_spec(option(config, "--andrea-spec"))
        all_checks(config._andrea_spec)
    except (SpecError, RegistryError) as exc:
        raise pytest.UsageError(str(exc)) from None
    path = option(config, "--andrea-xfails")
    if not path:
        return
    patterns = _read_patterns(path)
    used = set()
    for item in conformance:
        chk = getattr(item, "callspec", None) and item.callspec.params.get("check")
        if chk is None:
            continue
        for p in patterns:
            if matches(chk, p):
                item.add_marker(pytest.mark.xfail(reason=f"listed in {path}: {p}", strict=True))
                used.add(p)
    for p in patterns:
        if p not in used:
            warnings.warn(f"{path}: {p!r} matches no conformance check or clause",
                          pytest.PytestWarning)
