"""The inputs a check draws do not depend on which other modules the process has imported.

Hypothesis mixes the literals of "local" modules into its draws; the self-check loads a
submission in-process and the grader does not, and an editable install of the kit is local
while a wheel is not. A profile switches that pool off, so every process draws the same inputs.
"""
import importlib.util
import sys

import numpy as np

from graders.conformance.runner import load_impl, run_checks
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CORRECT = ROOT / "examples" / "submissions" / "correct_student.py"


class _Logged:
    """An implementation that records the vectors every call gets."""

    def __init__(self, impl):
        self._impl, self.calls = impl, []

    def __getattr__(self, name):
        fn = getattr(self._impl, name)

        def call(*args):
            self.calls.append((name, [np.asarray(a).tobytes() for a in args]))
            return fn(*args)
        return call


def _draws(spec):
    logged = _Logged(load_impl(str(CORRECT)))
    run_checks(logged, spec, profile="ci", select=["dot_product", "vector_norm", "lookup_selects_row", "embed_adds_position_rows", "token_gradient_scatter_add"])
    return logged.calls


def test_a_newly_imported_module_full_of_literals_changes_no_draw(andrea_spec, tmp_path):
    before = _draws(andrea_spec)
    src = tmp_path / "literals_everywhere.py"   # a local module, as a student's file is
    src.write_text("VALUES = [" + ", ".join(str(i) for i in range(-300, 300)) + ", "
                   + ", ".join(f"{i}.5" for i in range(-50, 50)) + ", 1e300, -1e-300]\n"
                   + "WORDS = " + repr([f"w{i}" for i in range(50)]) + "\n")
    spec = importlib.util.spec_from_file_location("literals_everywhere", src)
    module = importlib.util.module_from_spec(spec)

    sys.modules["literals_everywhere"] = module
    try:
        spec.loader.exec_module(module)
        after = _draws(andrea_spec)
    finally:
        del sys.modules["literals_everywhere"]
    assert before and after == before
