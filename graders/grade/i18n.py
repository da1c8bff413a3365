"""Feedback languages for the grader: the gettext catalogs and the translator are
``graders.conformance.i18n`` (the students' self-check reads the same catalogs); this module
re-exports them and lists every sentence the catalogs must translate.

    t = translator("nl")
    t(messages.HINT)                     # "Tip"
    t(messages.CHECKS_PASSED, passed=3, total=4)
"""

from __future__ import annotations

from graders.conformance.i18n import (DOMAIN, LANGUAGES, LOCALE_DIR, Translator,  # noqa: F401
                                      _catalog, catalog_path, translator)


def all_msgids() -> list[str]:
    """Every sentence a student can read: the grader's messages, the checks' hints and message
    templates, the kernel executor's findings, and the spec's group titles. The catalogs must translate each of them."""
    from graders.conformance import catalog, hints

    from . import messages as M

    ids: list[str] = []
    for module in (M, hints):
        ids += [v for k, v in vars(module).items() if k.isupper() and isinstance(v, str)]
    ids += list(M.GROUP_TITLES) + list(M.ISOLATION_MODES.values()) + list(M.PROBLEMS)
    ids += list(catalog.templates())
    ids += list(M.executor_templates())   # the kernel executor's findings
    ids += list(M.EXCEPTION_NAMES) + list(M.PYTHON_MESSAGE_IDS)   # Python's own words
    return list(dict.fromkeys(ids))
