"""Attacks on the grading transport and the batch's replay, by a submission that has read the
grader's source: the shared-memory arena (its memfd, its maps), lying reply frames, a worker
that stops itself while it holds a map, and a submission whose answers depend on how often it
is asked (the batch replays a first passer's inputs). Each file in `hostile_transport/` is one
attack class (its docstring says what it tries and what must happen); each runs in bubblewrap
(skipped where bubblewrap cannot run: the grader then refuses it,
tests/grade/test_sandbox.py checks that).
"""
from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np
import pytest

from graders.conformance import replay
from graders.conformance.faults import CallTimeout, ResourceExhausted
from graders.grade import proxy as px
from graders.grade.sandbox import prepare
from tests.corpus import BASE
from tests.helpers import fast_limits

from .conftest import grade_path, needs_bwrap
from tests.attacks import CORPUS

HERE = CORPUS   # tests/attacks/<threat>/


def _proxy(name: str, functions: list[str], **limits):
    sc = prepare({"m.py": (HERE / name).read_bytes()}, "m.py")
    p = px.SubmissionProxy(sc, fast_limits(**limits), "bwrap", functions)
    return sc, p


@needs_bwrap
def test_the_arena_cannot_be_changed_by_any_trick_of_the_worker():
    sc, p = _proxy("arena_tricks.py", ["attack", "total"])
    try:
        assert p.start().ok
        a = np.ones(300_000)                      # 2.4 MB: kept, in the arena
        worked = p.attack(a)
        if p._worker.keeper.arena is None:
            pytest.skip("this kernel cannot seal a memfd: kept arrays cross the pipe")
        assert worked == []                       # every attempt refused by the kernel
        assert p.total(a) == 300_000.0            # sent by key: the grader's bytes
        kept = list(p._worker.keeper._kept.values())
        assert len(kept) == 1 and np.array_equal(kept[0], a)
        assert p.restarts == 0 and (a == 1.0).all()
    finally:
        p.close()
        sc.cleanup()


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


@needs_bwrap
def test_a_declared_size_costs_the_grader_nothing_until_it_arrives():
    """12 bytes that declare a 384 MiB reply: the grader waits (and times out) without
    holding 384 MiB of zeros (it did: +384 MiB of resident memory per call)."""
    sc, p = _proxy("frame_lies.py", ["declares"], call_timeout=1.0)
    peak, stop = [0.0], threading.Event()

    def sample():
        while not stop.wait(0.05):
            peak[0] = max(peak[0], _rss_mib())

    try:
        assert p.start().ok
        base = _rss_mib()
        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            with pytest.raises(CallTimeout):
                p.declares(0)
        finally:
            stop.set()
            sampler.join()
        assert peak[0] - base < 64, (base, peak[0])
    finally:
        p.close()
        sc.cleanup()


@needs_bwrap
def test_lying_frames_and_a_stopped_worker_end_that_call_only():
    sc, p = _proxy("frame_lies.py", ["huge", "short", "stopped", "early", "total"],
                   call_timeout=1.5)
    a = np.full(200_000, 2.0)                     # 1.6 MB: in the arena during each call
    try:
        assert p.start().ok
        with pytest.raises(ResourceExhausted, match="MiB"):
            p.huge(a)
        for fn in (p.short, p.stopped):
            with pytest.raises(CallTimeout):
                fn(a)
            assert p._worker is None              # killed and confirmed gone
            assert p.total(a) == 400_000.0        # a fresh worker, the grader's bytes
        assert p.early(a) == -1.0                 # the first frame is this call's reply
        assert (a == 2.0).all() and p.restarts == 3
    finally:
        p.close()
        sc.cleanup()


@pytest.fixture
def pool_process():
    """This process as a batch's pool process: replay on (graders/grade/batch.py)."""
    replay.clear()
    replay.enable()
    yield
    replay.enable(False)
    replay.clear()


def _verdicts(rep) -> dict:
    return {c["id"]: (c["status"], c["message"]) for c in rep["checks"]}


@needs_bwrap
def test_a_submission_asked_twice_gets_the_verdict_it_gets_alone(spec, pool_process):
    """Wrong in its first answer only: alone it fails EMB-COMB-01; in a batch, after a correct
    submission, the replayed example fails and Hypothesis asks again (right by then): it must
    still fail, with the same message."""
    select = ["embed_adds_position_rows"]
    replay.enable(False)
    alone = _verdicts(grade_path(HERE / "wrong_first_answer.py", spec, select=select,
                                 sandbox="bwrap"))
    assert alone["embed_adds_position_rows"][0] == "failed"
    replay.enable()
    first = _verdicts(grade_path(BASE, spec, select=select, sandbox="bwrap"))
    assert first["embed_adds_position_rows"][0] == "passed"
    batched = _verdicts(grade_path(HERE / "wrong_first_answer.py", spec, select=select,
                                   sandbox="bwrap"))
    assert replay.KEPT.fallbacks == 1
    assert batched == alone


@needs_bwrap
def test_exceptions_named_like_hypothesis_skip_nothing_and_steer_no_replay(spec, pool_process,
                                                                           tmp_path):
    """The first submission of a pool raises exceptions named UnsatisfiedAssumption, StopTest,
    Frozen: each is its own raise (the check fails as graded alone), nothing of it is kept, and
    the submissions after it get the verdicts they get alone."""
    from tests.corpus import buggy_cases

    select = ["embed_adds_position_rows"]
    buggy = next(b for b in buggy_cases() if b.name == "embed_positions_first_sequence")
    files = [HERE / "forged_hypothesis_control.py", buggy.write(tmp_path), BASE]
    replay.enable(False)
    alone = [_verdicts(grade_path(f, spec, select=select, sandbox="bwrap")) for f in files]
    assert alone[0]["embed_adds_position_rows"][0] == "failed"
    assert re.match(r"embed\(\) raised (UnsatisfiedAssumption|StopTest|Frozen)",
                    alone[0]["embed_adds_position_rows"][1])
    replay.enable()
    pooled = [_verdicts(grade_path(f, spec, select=select, sandbox="bwrap")) for f in files]
    assert pooled == alone
    assert len(replay.KEPT) == 1                  # kept from the correct one only


# ----------------------------------------------------------------------------- purity evidence
@needs_bwrap
def test_a_worker_told_to_see_no_change_still_loses_the_purity_check(spec):
    """purity_unhooked.py switches off the worker's snapshot by name and through gc, then zeroes
    its arguments: the grader's own comparison of the call region still fails EMB-PURE-01, and
    that one check only (97.5, not 100)."""
    rep = grade_path(HERE / "purity_unhooked.py", spec, sandbox="bwrap")
    assert rep["import"]["ok"], rep["import"]
    failed = [(c["clauses"], c["message"]) for c in rep["checks"] if c["problem"]]
    assert len(failed) == 1 and failed[0][0] == ["EMB-PURE-01"], failed
    assert "changed its input in place" in failed[0][1]
    assert rep["score"] == 97.5 and rep["max_score"] == 100


@needs_bwrap
@pytest.mark.xfail(strict=True, reason="known gap: ctypes gives an argument's pages private "
                   "memory (MAP_FIXED) before writing, so the grader's call region never sees it "
                   "(docs/grading.md, the call region)")
def test_arguments_written_through_remapped_pages_lose_the_purity_check(spec):
    """purity_detach.py remaps each argument's pages to private copies, then zeroes them: in
    one process the caller's arrays are zeroed; the grader should fail EMB-PURE-01."""
    rep = grade_path(HERE / "purity_detach.py", spec, sandbox="bwrap",
                     select=["inputs_not_mutated"])
    assert [c["status"] for c in rep["checks"]] == ["failed"]


@needs_bwrap
def test_without_the_region_the_unhooked_worker_would_pass(spec, monkeypatch):
    """The attack is real: with only the worker's word (no call region), it scores 100."""
    monkeypatch.setattr(px, "USE_REGION", False)
    rep = grade_path(HERE / "purity_unhooked.py", spec, sandbox="bwrap",
                     select=["inputs_not_mutated"])
    assert [c["status"] for c in rep["checks"]] == ["passed"]


@needs_bwrap
def test_the_worker_is_unhooked_and_the_region_alone_tells_the_change():
    """The patch took (the worker's word is 'unchanged'); the grader's verdict comes from the
    region; a correct function's region is unchanged and it is not charged."""
    sc, p = _proxy("purity_unhooked.py", ["lookup", "dot"])
    try:
        assert p.start().ok
        assert p._worker.keeper.region is not None
        table = np.arange(12.0, dtype=np.float32).reshape(4, 3)
        ids = np.array([2, 0])
        with pytest.raises(Exception, match="changed its input in place") as info:
            p.lookup(table, ids)
        assert np.array_equal(info.value.returned, table[[2, 0]])
        assert (table == np.arange(12.0, dtype=np.float32).reshape(4, 3)).all()   # ours
        assert p.dot(np.ones(3), np.ones(3)) == 3.0                  # pure: not charged
        assert p.dot(u=np.ones(3), v=np.full(3, 2.0)) == 6.0         # keywords too
    finally:
        p.close()
        sc.cleanup()


@needs_bwrap
def test_a_correct_submission_keeps_full_marks_with_its_arguments_in_the_region(spec):
    rep = grade_path(BASE, spec, sandbox="bwrap")
    assert rep["score"] == rep["max_score"] == 100, [
        (c["id"], c["message"]) for c in rep["checks"] if c["problem"]]
