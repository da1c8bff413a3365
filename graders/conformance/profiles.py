"""Hypothesis settings profiles for conformance runs.

All are deterministic: derandomized (the same checks and inputs on every run, so a grade is
reproducible), no example database, no deadline (a submission behind a grading proxy is slow),
and one bug reported per check. Hypothesis also mixes into its draws the literals of the
"local" modules a process has imported (outside site-packages): which modules those are
depends on the process (a submission loaded in-process by the self-check, an editable install
of this kit or a wheel), so a run switches that pool off and every process draws the same inputs.
"""

from __future__ import annotations

from contextlib import contextmanager

from hypothesis import HealthCheck, Phase, Verbosity, settings

PROFILES = {
    "dev": 10,        # quick feedback while writing an implementation
    "ci": 25,         # the project's own test suite
    "grading": 40,    # andrea-grade
    "thorough": 400,  # before publishing a spec or an implementation
}
DEFAULT_PROFILE = "ci"


def _register() -> None:
    for name, examples in PROFILES.items():
        settings.register_profile(
            f"andrea-{name}",
            max_examples=examples,
            derandomize=True,
            database=None,
            deadline=None,
            print_blob=False,
            report_multiple_bugs=False,
            # No explain phase: it replays the failure hundreds of times, a cost a grading
            # proxy multiplies, to annotate which parts of an input matter.
            phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.normal,  # attaches the failing example as a note
        )


_register()


def check_profile(name: str) -> str:
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)}")
    return f"andrea-{name}"


@contextmanager
def use_profile(name: str):
    """Make `name` Hypothesis's default settings for the duration of the block."""
    full = check_profile(name)
    previous = getattr(settings, "_current_profile", None) or "default"
    settings.load_profile(full)
    try:
        with _no_local_constants():
            yield settings.get_profile(full)
    finally:
        settings.load_profile(previous)


@contextmanager
def _no_local_constants():
    """Draw without the literals of the modules this process happened to import."""
    try:
        from hypothesis.internal.conjecture import providers
        empty, get = providers.Constants(), providers._get_local_constants
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError):  # a Hypothesis without the pool: nothing to switch off
        yield
        return
    cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = get
        cache.clear()
