"""Checks and products built on the spec: conformance suite, grader, audits."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

STORAGE_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"


def keep_cwd_clean() -> str:
    """Point Hypothesis' storage (its constants cache) away from the current folder.

    Hypothesis writes ``.hypothesis/`` into the working directory by default; the commands run
    in a student's homework folder or a teacher's submissions folder, which must stay as they
    were. The checks use no example database (``database=None`` in every profile), so all that
    is stored is a cache, kept in the user's cache folder (or a temporary folder when that is
    not writable). An explicit ``HYPOTHESIS_STORAGE_DIRECTORY`` is respected. The variable is
    set in the environment so that grader processes started by ``batch`` inherit it.
    """
    where = os.environ.get(STORAGE_ENV)
    if not where:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        where = str(Path(base) / "andrea-conformance" / "hypothesis")
        try:
            Path(where).mkdir(parents=True, exist_ok=True)
        except OSError:
            where = str(Path(tempfile.gettempdir()) / f"andrea-conformance-hypothesis-{os.getuid()}")
        os.environ[STORAGE_ENV] = where
    if "hypothesis.configuration" in sys.modules:  # already imported: tell it directly too
        sys.modules["hypothesis.configuration"].set_hypothesis_home_dir(where)
    return where
