"""Nothing a student sees before publication depends on a hidden result (issue 19, item 9).

Meta-test: a correct submission, and the same submission with one function of a group that
is not visible (``embed_backward``: after the due date; ``rope``: hidden) made hostile by a
file of ``tests/attacks/reports/hidden_*.py`` (it crashes, hangs, prints, uses up the budget,
raises, or changes its arguments). Everything students see before publication must be the same
bytes for both: the Gradescope summary and visible tests, and the feedback files (Markdown and
HTML) where the group is hidden (a feedback file shows the after-the-due-date groups). The
hostile variant must really differ where the staff look (the test can fail).

It holds by construction: the grader runs every visible check before any other
(``runner.in_run_order``), what the submission printed and the restarts students see are
those of that first part (``SubmissionProxy.end_visible_part``), and no visible check calls
a function of a group shown later (each group judges its own functions' purity and errors).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from graders.conformance.registry import all_checks
from graders.conformance.runner import in_run_order, visibility_rank
from graders.grade import formats
from graders.grade.batch_reports import feedback_text
from tests.attacks import CORPUS
from tests.helpers import fast_limits

from .conftest import CORRECT, grade_path, needs_bwrap

# correct optional position encodings (the hidden group's functions), and an import line: a
# restarted worker prints it again
EXTRA = '''
print("IMPORTED: hello from the submission", flush=True)


def _angles(pos, d_model):
    return np.outer(np.asarray(pos, dtype=np.float64),
                    10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model))


def sinusoidal_encoding(positions, d_model):
    ang = _angles(positions, d_model)
    out = np.empty((ang.shape[0], d_model), dtype=np.float32)
    out[:, 0::2], out[:, 1::2] = np.sin(ang), np.cos(ang)
    return out


def rope(x, positions):
    x = np.asarray(x)
    ang = _angles(positions, x.shape[-1])
    cos, sin = np.cos(ang), np.sin(ang)
    x0, x1 = x[..., 0::2].astype(np.float64), x[..., 1::2].astype(np.float64)
    out = np.empty(x.shape, dtype=x.dtype)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out
'''

# visible checks around (in the registry's order) the hidden ones: before the fix the vector
# checks ran after the backward's, and the purity check after every other and called
# embed_backward itself
VISIBLE = ["lookup_selects_row", "embed_shapes", "dot_product", "vector_norm",
           "similarity_by_direction"]
# visible checks that call a function of another group when it is there (``if_present``), or
# called embed_backward before it had its own purity and context clauses
CROSS = ["inputs_not_mutated", "sequence_longer_than_context", "out_of_range_ids"]
HIDDEN = {"embed_backward": ["token_gradient_scatter_add", "gradient_shapes",
                             "backward_inputs_not_mutated"],
          "rope": ["rope_preserves_norms", "rope_relative_offsets"]}
FAULTS = {"crash": "hidden_crash.py", "hang": "hidden_hang.py", "prints": "hidden_prints.py",
          "budget": "hidden_budget.py", "raises": "hidden_raises.py",
          "mutates": "hidden_mutates.py"}
# the hidden group runs last (it did before, but for the purity check): the kinds that cost
# seconds are tried on the after-the-due-date function only
KINDS = {"embed_backward": ("crash", "hang", "prints", "budget", "raises", "mutates"),
         "rope": ("crash", "prints", "raises", "mutates")}
# a budget that the visible checks do not reach (about 2 s here), which the slow hidden calls
# use up
LIMITS = fast_limits(call_timeout=2.0, total_timeout=6.0)


def _submission(tmp_path: Path, target: str, kind: str | None) -> Path:
    text = CORRECT.read_text(encoding="utf-8") + EXTRA
    if kind is not None:
        fault = (CORPUS / FAULTS[kind]).read_text(encoding="utf-8")
        if kind == "budget":   # each call just under the per-call limit
            fault = fault.replace("SECONDS = 1.0", f"SECONDS = {0.7 * LIMITS.call_timeout:.2f}")
        text += "\n" + fault + f"\n{target} = hidden_fault({target})\n"
    path = tmp_path / f"{target}_{kind or 'correct'}" / "hw.py"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return path


def _select(target: str) -> list[str]:
    # the visible checks that could reach another group's function (the purity check, the
    # embed group's error checks, lookup's that call embed) and the target's own purity check
    return VISIBLE + CROSS + HIDDEN[target]


def _student_view(rep: dict, hidden_group: bool) -> str:
    """Everything a student may see before publication, as one text."""
    gs = formats.gradescope(rep)
    view = {"output": gs["output"],
            "tests": [t for t in gs["tests"] if t["visibility"] == "visible"]}
    if hidden_group:   # a feedback file leaves out hidden groups (it shows later ones)
        view["md"] = feedback_text(rep, "en", "md", name="hw.py")
        view["html"] = feedback_text(rep, "en", "html", name="hw.py")
    return json.dumps(view, indent=1, sort_keys=True)


def test_visible_checks_run_before_any_hidden_one(spec):
    order = in_run_order(all_checks(spec), spec)
    ranks = [visibility_rank(c, spec) for c in order]
    assert ranks == sorted(ranks) and ranks[0] == 0 and ranks[-1] == 2
    visible = [c for c in order if visibility_rank(c, spec) == 0]
    assert visible[-1].judges_mutation   # the purity check: last of the visible part only


@needs_bwrap
@pytest.mark.parametrize("target", sorted(HIDDEN))
def test_nothing_students_see_depends_on_a_hidden_function(tmp_path, spec, target):
    select = _select(target)
    base = grade_path(_submission(tmp_path, target, None), spec, select=select, limits=LIMITS)
    assert all(c["status"] == "passed" for c in base["checks"]), \
        [(c["id"], c["status"], c["message"][:200]) for c in base["checks"]]
    hidden_group = target == "rope"
    want = _student_view(base, hidden_group)
    assert "IMPORTED" in want and "Nothing went wrong" in want
    for kind in KINDS[target]:
        rep = grade_path(_submission(tmp_path, target, kind), spec, select=select,
                         limits=LIMITS)
        assert _student_view(rep, hidden_group) == want, kind
        # ... while the hostile function really did something the staff see
        later = [c for c in rep["checks"] if c["visibility"] != "visible"]
        if kind == "prints":
            assert "HIDDEN-INPUT" in rep["submission_output"], kind
        elif kind == "budget":
            assert any(c["status"] == "not_run" and c["cause"] == "budget"
                       for c in later), later
        elif kind == "mutates":   # its own group's purity check fails (rope's has none)
            assert target == "rope" or next(c for c in later if c["id"] == (
                "backward_inputs_not_mutated"))["status"] == "failed", later
        else:
            assert any(c["status"] != "passed" for c in later), (kind, later)
        if kind == "crash":   # restarted, and the restart's import output is the staff's
            assert rep["restarts"] > 0 and rep["visible_restarts"] == 0, rep["restarts"]
            assert rep["submission_output"].count("IMPORTED") > 1, rep["submission_output"]



def test_no_visible_check_calls_a_function_shown_later(spec, tmp_path):
    """By construction: a check calls only functions of groups at least as visible as its
    own (a function belongs to the groups of the checks that require it without
    ``if_present``), in both bundled specs; the purity and the context checks of
    embed_backward are the backward group's own (BWD-PURE-01, BWD-ERR-01). The grader refuses
    a spec that breaks it, saying which check and what to change."""
    from graders.conformance.runner import calls_shown_later
    from graders.grade.grading import GraderError
    from spec import load_spec

    for name in ("andrea-120m", "gpt2-small"):
        s = load_spec(name)
        assert calls_shown_later(all_checks(s), s) == [], name
    # the embed group shown after the due date: lookup's error checks call embed
    text = spec.path.read_text(encoding="utf-8").replace(
        "embed:    {title: Token + position embedding, points: 20, visibility: visible}",
        "embed:    {title: Token + position embedding, points: 20, visibility: after_due_date}")
    assert "after_due_date}" in text.split("embed:", 1)[1].split("\n", 1)[0]
    (tmp_path / "later.yaml").write_text(text, encoding="utf-8")
    later = load_spec(tmp_path / "later.yaml")
    assert {(c.id, f) for c, f in calls_shown_later(all_checks(later), later)} == {
        ("out_of_range_ids", "embed"), ("non_integer_ids", "embed")}
    with pytest.raises(GraderError, match="out_of_range_ids .* calls embed, whose group"):
        grade_path(CORRECT, later, select=["vector_norm"])
    from graders.grade import batch

    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "a.py").write_bytes(CORRECT.read_bytes())
    with pytest.raises(batch.BatchError, match="give the two groups the same visibility"):
        batch.run_batch(tmp_path / "subs", later, db=tmp_path / "gb.sqlite", progress=False)
    assert not (tmp_path / "gb.sqlite").exists()
