"""andrea-grade on the shared corpora (tests/corpus), through the isolated worker: correct
submissions in two styles get full marks and are told nothing went wrong; a buggy one loses
exactly its check, with feedback in the student's language and free of tool internals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graders.grade import formats, messages as M
from graders.grade.i18n import translator
from tests.corpus import buggy_cases, correct_files

from .conftest import grade_path

# notebooks (magics, display(), demo cells that raise) and a package folder too: how they are
# read is the grader's own
GRADED = [p for p in correct_files()
          if p.stem in ("numpy_naive", "python_loops", "einsum_fsum_scalars", "notebook_magics",
                        "notebook_demo_raises", "notebook_pasted_cells", "package_reexport",
                        "cs231n_layers", "notebook_colab_export", "stackoverflow_cosine")]
INTERNALS = re.compile(r"Draw \d|Failing test case|Falsifying|data\(\.\.\.\)|bit_generator|PCG64")


@pytest.mark.parametrize("path", GRADED, ids=lambda p: p.stem)
def test_correct_styles_get_full_marks(path, spec):
    rep = grade_path(path, spec)
    assert rep["score"] == rep["max_score"] == 100, [
        (c["id"], c["message"]) for c in rep["checks"] if c["problem"]]
    assert not any(c["problem"] for c in rep["checks"])
    gs = formats.gradescope(rep)
    assert {t["status"] for t in gs["tests"]} == {"passed"}      # skipped optional: not failed
    assert sum(round(t["score"] * 100) for t in gs["tests"]) == 100 * 100
    text = formats.text(rep, width=200)
    assert M.NOTHING_WRONG in text and M.WHAT_WENT_WRONG not in text
    assert M.OPTIONAL_GROUP_SKIPPED in text          # not "0 of 3 checks passed"
    assert "0 of 3" not in text
    if Path("/etc/fonts/fonts.conf").is_file():      # matplotlib finds the system's fonts
        assert "Fontconfig" not in rep["submission_output"], rep["submission_output"]


def test_a_buggy_submission_loses_exactly_its_check_in_every_language(spec, tmp_path):
    case = next(b for b in buggy_cases() if b.name == "norm_raises")
    rep = grade_path(case.write(tmp_path), spec, select=["VEC-*"])
    failed = {c["id"] for c in rep["checks"] if c["problem"]}
    assert failed == case.fails
    check = next(c for c in rep["checks"] if c["id"] == "vector_norm")
    assert check["cause"] == "raised" and check["details"]["function"] == "norm"
    for lang, words in (("en", "norm() raised NotImplementedError"),
                        ("nl", "norm() gaf een fout (nog niet geïmplementeerd)"),
                        ("ko", "norm()에서 오류(아직 구현되지 않음)가 발생했습니다")):
        out = json.loads(formats.render(rep, "gradescope", lang))
        test = next(t for t in out["tests"] if "vector_norm" in t["name"])
        assert test["status"] == "failed" and words in test["output"]
        assert translator(lang)(M.WHAT_WENT_WRONG) in test["output"]
        assert "norm(v=" in test["output"]                 # the failing call, named
        for t in out["tests"]:
            assert not INTERNALS.search(t["output"]), t["output"]
        if lang != "en":                                   # the clause statement, translated
            statement = next(c for c in spec.clauses if c.id == "VEC-NORM-01").statement
            assert statement not in test["output"]


def test_debug_prints_in_every_call_are_no_output_flood(spec):
    """The output limit is per call (and for the import): a correct submission that prints a
    few KiB in every call, far more than the limit over the whole run, keeps its marks; the
    first KiB of what it printed is shown, for information."""
    from tests.helpers import fast_limits

    path = next(p for p in correct_files() if p.stem == "debug_prints")
    limits = fast_limits(max_output_bytes=64 << 10)
    rep = grade_path(path, spec, select=["lookup_selects_row", "lookup_shape_and_dtype",
                                         "dot_product", "vector_norm"], limits=limits)
    assert [c["status"] for c in rep["checks"]] == ["passed"] * 4, [
        (c["id"], c["message"]) for c in rep["checks"] if c["problem"]]
    assert rep["restarts"] == 0 and "DEBUG" in rep["submission_output"]


def test_a_warning_for_the_caller_shows_no_grader_path(spec, tmp_path):
    """A contract function that warns its caller (stacklevel=2) keeps its marks, and what it
    printed reads "RuntimeWarning: ..." without the path and line of the grader's worker."""
    from tests.corpus import BASE

    path = tmp_path / "warns.py"
    path.write_text(BASE.read_text(encoding="utf-8") + (
        "\n\nimport warnings\n_lookup = lookup\n\n\ndef lookup(table, token_ids):\n"
        "    warnings.warn('table is not float64', RuntimeWarning, stacklevel=2)\n"
        "    return _lookup(table, token_ids)\n"), encoding="utf-8")
    rep = grade_path(path, spec, select=["lookup_selects_row"])
    assert [c["status"] for c in rep["checks"]] == ["passed"]
    out = rep["submission_output"]
    assert "RuntimeWarning: table is not float64" in out, out
    assert "worker.py" not in out and "/sandbox/runtime" not in out, out


def test_a_function_left_out_costs_its_own_group_only_in_the_grader_too(spec, tmp_path):
    """Through the isolated worker: without init_table, the params group's check of
    init_table's sizes is skipped at no cost (its own group, init, pays), with feedback that
    says so in the student's language; the embed group keeps EMB-ERR-03 without embed_backward."""
    from tests.corpus import BASE

    path = tmp_path / "partial.py"
    path.write_text(BASE.read_text(encoding="utf-8") + "\n\ndel init_table, embed_backward\n",
                    encoding="utf-8")
    rep = grade_path(path, spec, select=["init_size_errors", "init_mean_and_std",
                                         "sequence_longer_than_context", "gradient_shapes"])
    got = {c["id"]: (c["status"], c["cause"]) for c in rep["checks"]}
    assert got == {"init_size_errors": ("skipped", "missing_elsewhere"),
                   "init_mean_and_std": ("failed", "missing_function"),
                   "sequence_longer_than_context": ("passed", None),
                   "gradient_shapes": ("failed", "missing_function")}, got
    groups = {g["id"]: (g["score"], g["points"]) for g in rep["groups"]}
    assert groups["params"] == (10, 10) and groups["embed"] == (20, 20)
    assert groups["init"][0] == 0 and groups["backward"][0] == 0
    check = next(c for c in rep.checks if c.id == "init_size_errors")
    for lang in ("en", "nl", "ko"):
        text = formats.check_feedback(check, translator(lang), {})
        assert "init_table" in text and translator(lang)(M.WHAT_WENT_WRONG) not in text
        assert text != formats.check_feedback(check, translator("en"), {}) or lang == "en"
