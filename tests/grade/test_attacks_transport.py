"""Attacks on the grading transport and the batch's replay (tests/attacks/transport/): the
shared-memory arena (its memfd, its maps), lying reply frames, a worker that stops itself while
it holds a map, answers that depend on how often they are asked (the batch replays a first
passer's inputs), values and exceptions that lie, forged replies, checks broken on purpose, the
call region that tells whether an argument changed.

Each file of `tests/attacks/transport/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import json
import re
import threading

import numpy as np
import pytest

from graders.conformance import replay
from graders.conformance.faults import CallTimeout, ResourceExhausted
from graders.conformance.outcome import Cause, Status
from graders.conformance.runner import CheckResult
from graders.grade import formats, grading
from graders.grade import proxy as px
from graders.grade.sandbox import prepare
from tests.attacks import CORPUS
from tests.corpus import BASE
from tests.helpers import fast_limits

from .attacking import by_id, grade_attack
from .conftest import LIMITS, grade_path, needs_bwrap



#: The attacks of the verdicts' audit: one test each, named after its file (test_<stem>), in the
#: file of its threat.
AUDIT_ATTACKS = {
    "processes": ("catch_base_exception", "threads_left_running", "exhaust_fds"),
    "transport": ("fake_exceptions", "lying_values", "stdout_frames"),
    "memory": ("gc_snoop",),
}


def test_every_audit_attack_is_graded_here():
    import importlib

    for threat, names in AUDIT_ATTACKS.items():
        module = importlib.import_module(f"tests.grade.test_attacks_{threat}")
        for name in names:
            assert (CORPUS.glob(f"{name}.py") == [CORPUS / f"{name}.py"]
                    and (CORPUS / f"{name}.py").parent.name == threat), name
            assert callable(getattr(module, f"test_{name}", None)), (threat, name)


def _proxy(name: str, functions: list[str], **limits):
    sc = prepare({"m.py": (CORPUS / name).read_bytes()}, "m.py")
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
    alone = _verdicts(grade_path(CORPUS / "wrong_first_answer.py", spec, select=select,
                                 sandbox="bwrap"))
    assert alone["embed_adds_position_rows"][0] == "failed"
    replay.enable()
    first = _verdicts(grade_path(BASE, spec, select=select, sandbox="bwrap"))
    assert first["embed_adds_position_rows"][0] == "passed"
    batched = _verdicts(grade_path(CORPUS / "wrong_first_answer.py", spec, select=select,
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
    files = [CORPUS / "forged_hypothesis_control.py", buggy.write(tmp_path), BASE]
    replay.enable(False)
    alone = [_verdicts(grade_path(f, spec, select=select, sandbox="bwrap")) for f in files]
    assert alone[0]["embed_adds_position_rows"][0] == "failed"
    assert re.match(r"embed\(\) raised (UnsatisfiedAssumption|StopTest|Frozen)",
                    alone[0]["embed_adds_position_rows"][1])
    replay.enable()
    pooled = [_verdicts(grade_path(f, spec, select=select, sandbox="bwrap")) for f in files]
    assert pooled == alone
    assert len(replay.KEPT) == 1                  # kept from the correct one only


@needs_bwrap
def test_a_worker_told_to_see_no_change_still_loses_the_purity_check(spec):
    """purity_unhooked.py switches off the worker's snapshot by name and through gc, then zeroes
    its arguments: the grader's own comparison of the call region still fails the purity
    checks, EMB-PURE-01 (lookup, embed) and BWD-PURE-01 (embed_backward), and those only
    (94.65, not 100)."""
    rep = grade_path(CORPUS / "purity_unhooked.py", spec, sandbox="bwrap")
    assert rep["import"]["ok"], rep["import"]
    failed = [(c["clauses"], c["message"]) for c in rep["checks"] if c["problem"]]
    assert sorted(f[0] for f in failed) == [["BWD-PURE-01"], ["EMB-PURE-01"]], failed
    assert all("changed its input in place" in f[1] for f in failed), failed
    assert rep["score"] == 94.65 and rep["max_score"] == 100


@needs_bwrap
def test_a_submission_that_reaches_into_its_worker_is_flagged_for_the_staff_only(spec):
    """Defeat devices: purity_substitute.py (pure Python wrapping the worker's decoder) and
    purity_detach.py (ctypes giving the argument pages private memory) hand their functions
    private copies when, and only when, they run in the grader's worker, then zero them. In a
    student's notebook the same functions zero the caller's arrays; under grading they leave
    the grader's arrays as they were. No black-box grader can tell this from code that copies
    its arguments first (`if graded: args = copies` is a defeat device with no patching at
    all), so the verdict describes what the call did to the grader's data (EMB-PURE-01 passes)
    and the staff see a grader_tamper flag naming the file and line of each place; never in
    what the student reads, never in the score (docs/grading.md, "Defeat devices")."""
    for name, rules in (("purity_substitute.py", {"modules", "grader_name"}),
                        ("purity_detach.py", {"native"})):
        rep = grade_path(CORPUS / name, spec, sandbox="bwrap", select=["inputs_not_mutated"])
        assert rep["import"]["ok"], rep["import"]
        (flag,) = [f for f in rep["flags"] if f["kind"] == "grader_tamper"]
        assert rules <= set(flag["rules"]) and flag["places"][0]["file"] == name
        assert rep["score"] == rep["max_score"]          # the grader's pages were left alone
        gs = formats.gradescope(rep, "nl")
        student = json.dumps({"output": gs["output"], "tests": gs["tests"]})
        assert "grader_tamper" not in student and "grijpt" not in student   # no word of it
        assert [f["kind"] for f in gs["extra_data"]["flags"]] == ["grader_tamper"]
        assert "grijpt" in gs["extra_data"]["flags"][0]["message"]       # the staff's language


@needs_bwrap
def test_without_the_region_the_unhooked_worker_would_pass(spec, monkeypatch):
    """The attack is real: with only the worker's word (no call region), it scores 100."""
    monkeypatch.setattr(px, "USE_REGION", False)
    rep = grade_path(CORPUS / "purity_unhooked.py", spec, sandbox="bwrap",
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


@needs_bwrap
def test_fake_exceptions(spec):
    rep, got = grade_attack("fake_exceptions", spec, ["out_of_range_ids", "vector_errors", "dot_product"])
    for cid, want in (("out_of_range_ids", "IndexError"), ("vector_errors", "ValueError")):
        assert (got[cid]["status"], got[cid]["cause"]) == ("failed", "wrong_exception")
        assert f"its own class named {want}" in got[cid]["message"]
        assert f"not the built-in {want}" in got[cid]["message"]
    assert got["dot_product"]["status"] == "passed"
    nl = formats.render(rep, "text", "nl")
    assert "eigen klasse met de naam IndexError" in nl


@needs_bwrap
def test_lying_values(spec):
    rep, got = grade_attack("lying_values", spec,
                      ["token_table_params", "lookup_selects_row", "dot_product", "vector_norm"])
    for cid, c in got.items():
        assert (c["status"], c["cause"]) == ("failed", "wrong_value"), (cid, c["message"])
    assert "=7," in got["token_table_params"]["message"]
    assert "norm(v)=-3.0" in got["vector_norm"]["message"]


@needs_bwrap
def test_stdout_frames(spec):
    rep, got = grade_attack("stdout_frames", spec, ["dot_product", "vector_norm"])
    assert got["dot_product"]["status"] == "passed"
    assert got["vector_norm"]["status"] == "failed" and "norm(v)=0.0" in got["vector_norm"]["message"]
    assert rep["score"] < rep["max_score"]
    out = json.loads(formats.render(rep, "gradescope", "en"))
    assert "\x00" not in out["output"] and "score\": 100" in out["output"]   # shown, inert


@needs_bwrap
def test_a_check_broken_on_purpose_earns_nothing(spec):
    """A value that breaks a check (check_bug earns points) must not collect those points."""
    broken = ["dot_product", "vector_norm", "dot_is_norms_times_cosine",
              "similarity_by_direction", "rope_relative_offsets", "parameter_shares"]
    rep = grade_path(CORPUS / "check_break.py", spec, select=broken + ["vector_errors", "token_table_params"],
                     limits=LIMITS, sandbox="bwrap")
    got = by_id(rep)
    for cid in broken:
        assert got[cid]["status"] == "failed", (cid, got[cid]["message"])
        assert got[cid]["cause"] == "wrong_value"
        assert "made this check break" in got[cid]["message"]
    # answered properly: the errors, and the token count the first time it is asked for
    assert got["vector_errors"]["status"] == got["token_table_params"]["status"] == "passed"
    assert rep["check_bugs"] == 0


def test_a_check_broken_for_everyone_still_costs_nothing(spec, monkeypatch):
    """A check that breaks on the reference too is the grader's bug: it keeps earning."""
    bug = CheckResult("dot_product", ["VEC-DOT-01"], Status.ERROR, cause=Cause.CHECK_BUG)
    bug.set_message("internal error in check {check}: {exception}: {error}",
                    check="dot_product", exception="KeyError", error="'x'")
    monkeypatch.setattr(grading, "run_check", lambda *a, **k: bug)
    assert grading._confirm_check_bug(bug, spec) is bug
    fine = CheckResult("dot_product", ["VEC-DOT-01"], Status.PASSED)
    monkeypatch.setattr(grading, "run_check", lambda *a, **k: fine)
    out = grading._confirm_check_bug(bug, spec)
    assert (out.status, out.cause) == (Status.FAILED, Cause.WRONG_VALUE)
    assert "KeyError" in out.message


@needs_bwrap
def test_a_forged_import_error_is_bounded_in_every_format(spec):
    from graders.grade import formats

    rep = grade_path(CORPUS / "forged_import_error.py", spec, select=["dot_product"],
                     limits=LIMITS, sandbox="bwrap")
    err = rep["import"]["error"]
    assert set(err) <= {"type", "msg", "line", "text", "bases"} and "line" not in err
    assert len(err["msg"]) <= 4000 and len(err["type"]) <= 100
    for fmt in formats.FORMATS:
        assert len(formats.render(rep, fmt).encode()) < 100_000, fmt


@needs_bwrap
def test_an_exception_of_every_error_type_passes_no_error_check(spec):
    rep = grade_path(CORPUS / "universal_exception.py", spec,
                     select=["param_count_errors", "vector_errors", "dot_product"],
                     limits=LIMITS, sandbox="bwrap")
    got = by_id(rep)
    for cid in ("param_count_errors", "vector_errors"):
        assert got[cid]["status"] == "failed" and "but also a" in got[cid]["message"], got[cid]
    assert got["dot_product"]["status"] == "passed"


NAN_CHECKS = ["token_table_params", "lookup_selects_row", "embed_adds_position_rows",
              "embed_not_permutation_equivariant", "init_mean_and_std",
              "token_gradient_scatter_add", "dot_product", "vector_norm",
              "dot_is_norms_times_cosine", "embed_shapes"]


@needs_bwrap
def test_nan_results_earn_no_value_check(spec):
    rep = grade_path(CORPUS / "nan_results.py", spec, select=NAN_CHECKS, limits=LIMITS,
                     sandbox="bwrap")
    got = {c["id"]: c["status"] for c in rep["checks"]}
    assert got == {c: "passed" if c == "embed_shapes" else "failed" for c in NAN_CHECKS}, got


def test_views_and_buffers_kept_from_arena_copies_never_change(monkeypatch):
    import numpy as np

    from graders.grade import proxy as px
    from graders.grade.sandbox import choose_mode, prepare

    from .conftest import SANDBOX

    monkeypatch.setattr(px, "ARENA_BYTES", 4 << 20)     # two 1.6 MB arrays fit: regions reused
    sc = prepare({"m.py": (CORPUS / "arena_keep_buffers.py").read_bytes()}, "m.py")
    p = px.SubmissionProxy(sc, LIMITS, choose_mode(SANDBOX)[0], ["total", "changed", "kept"])
    try:
        assert p.start().ok
        for i in range(12):                              # more than the 8 live maps
            a = np.full(200_000, float(i + 1))
            assert p.total(a) == 200_000.0 * (i + 1)
            assert p.total(a) == 200_000.0 * (i + 1)     # by key, the second time
        if p._worker.keeper.arena is None:
            pytest.skip("no arena on this kernel (kept arrays use the pipe)")
        assert p.kept() >= 48                           # views, buffers, mappings
        assert p.changed() == 0
    finally:
        p.close()
        sc.cleanup()


# ----------------------------------------------------------------------------- other workers
def _undumpable_child(ready_w: int, undumpable: bool, uid: int | None) -> None:   # forked
    import os

    from andrea_runtime import worker

    import ctypes

    try:
        if uid is not None:
            os.setgid(uid)
            os.setuid(uid)
        if undumpable:
            worker._undumpable()     # after the uid change, as the worker does (it resets it)
        else:    # as a process of that uid is (a uid change made it non-dumpable)
            ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)
        fd = os.memfd_create("andrea-grade-call")
        os.write(fd, b"\0" * 4096)
        t = __import__("time").process_time()
        while __import__("time").process_time() - t < 0.2:   # some CPU time to read
            pass
        os.write(ready_w, str(fd).encode())
        __import__("time").sleep(30)
    finally:
        os._exit(0)


def _neighbour_opens(pid: int, fd: int, uid: int | None) -> str:
    """What another process of the same uid gets when it opens `pid`'s region (forked)."""
    import os

    r, w = os.pipe()
    child = os.fork()
    if child == 0:   # pragma: no cover - the neighbour
        try:
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            try:
                os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDWR))
                os.write(w, b"opened")
            except OSError as exc:
                os.write(w, f"errno {exc.errno}".encode())
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(child, 0)
    got = os.read(r, 100).decode()
    os.close(r)
    return got


@pytest.mark.parametrize("undumpable", (True, False))
def test_a_worker_is_not_dumpable_so_its_neighbours_cannot_open_its_region(undumpable):
    """--sandbox none runs a batch's workers as one uid: each makes itself non-dumpable
    (worker._undumpable, PR_SET_DUMPABLE 0) before the submission runs, so another worker of
    that uid cannot open its call region through /proc/<pid>/fd (without it: opened), while the
    grader still reads its CPU time from /proc/<pid>/stat."""
    import errno
    import os
    import signal

    from graders.grade.sandbox import cpu_seconds

    uid = 64123 if os.geteuid() == 0 else None    # root would pass any check: a plain uid
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # pragma: no cover - the worker
        os.close(r)
        _undumpable_child(w, undumpable, uid)
    os.close(w)
    try:
        fd = int(os.read(r, 100).decode())
        got = _neighbour_opens(pid, fd, uid)
        assert got == (f"errno {errno.EACCES}" if undumpable else "opened"), got
        assert cpu_seconds(pid) > 0.1
    finally:
        os.close(r)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_a_worker_without_bubblewrap_makes_itself_undumpable(spec):
    """--sandbox none starts each worker with --undumpable (the worker then sets the flag
    before the import: the test above), and its CPU time is still read."""
    from graders.grade.grading import contract_functions
    from graders.grade.session import Session

    s = Session({"v.py": BASE.read_bytes()}, "v.py", functions=contract_functions(spec),
                limits=LIMITS, mode="rlimits")
    run: dict = {}
    try:
        assert s.start().ok
        with open(f"/proc/{s.proxy._worker.proc.pid}/cmdline", "rb") as f:
            assert b"--undumpable" in f.read().split(b"\0")
        assert s.proxy.norm(np.array([3.0, 4.0])) == 5.0
    finally:
        s.close(into=run)
    assert run["worker_cpu_s"] > 0


def test_a_worker_in_a_batch_cannot_spoil_another_workers_calls(spec):
    """tests/attacks/transport/neighbour_region.py, graded with --sandbox none while another
    student's worker runs: it finds that worker and cannot open anything of it."""
    import os

    from graders.grade.sandbox.features import _python
    from graders.grade.sandbox.launch import _worker_uid
    from graders.grade.session import Session
    from graders.grade.grading import contract_functions

    if os.geteuid() == 0 and _worker_uid("rlimits", _python()[1]) is None:
        pytest.skip("as root with an interpreter other users cannot read, --sandbox none "
                    "runs every worker as root, whom nothing of /proc refuses")
    victim = Session({"v.py": (BASE).read_bytes()}, "v.py",
                     functions=contract_functions(spec), limits=LIMITS, mode="rlimits")
    try:
        assert victim.start().ok
        rep = grade_path(CORPUS / "neighbour_region.py", spec, select=["vector_norm"],
                         limits=LIMITS, sandbox="none")
        got = json.loads(next(x for x in rep["submission_output"].splitlines()
                              if x.startswith("NEIGHBOUR-REPORT ")).split(" ", 1)[1])
        assert got["opened"] == 0 and got["refused"] >= 1, got
    finally:
        victim.close()


def test_an_init_that_never_advances_its_generator_fails_the_rng_clause(spec):
    """rng_not_advanced.py, in this process as andrea-conform runs it: it passed every INIT
    check (INIT-RNG-01 asked nothing of a second call on one Generator)."""
    from graders.conformance.registry import all_checks
    from graders.conformance.runner import load_impl, run_check

    impl = load_impl(CORPUS / "rng_not_advanced.py")
    rng = np.random.default_rng(0)
    assert np.array_equal(impl.init_table(4, 3, rng), impl.init_table(4, 3, rng))  # the bug
    (check,) = [c for c in all_checks(spec) if "INIT-RNG-01" in c.clauses]
    res = run_check(check, impl, spec)
    assert res.status.value == "failed", (res.status, res.message)


def test_the_rng_check_never_breaks_on_a_seed_near_the_top_of_its_range(capsys):
    """INIT-RNG-01 seeded NumPy's global generator with seed + 12345 for seeds drawn up to
    2**32 - 2: past 2**32 - 1 it raised ValueError, a broken check (andrea_ref itself got
    'the check itself broke' in the thorough profile, and in the grader every submission then
    earned the check's points as the grader's bug). Found with rng_not_advanced.py."""
    from graders.conformance.cli import main

    assert main(["andrea_ref", "--select", "INIT-RNG-01", "--profile", "thorough"]) == 0
    assert "PASS" in capsys.readouterr().out


@needs_bwrap
def test_an_init_that_never_advances_its_generator_fails_in_the_grader_too(spec):
    """rng_not_advanced.py graded in the sandbox: the Generator's state after each call is
    the worker's word (the reply's rngs), and an unchanged state gives the second call the
    same table, judged on the values that came back."""
    rep = grade_path(CORPUS / "rng_not_advanced.py", spec, select=["init_reproducible_from_rng"],
                     limits=LIMITS, sandbox="bwrap")
    assert rep["checks"][0]["status"] == "failed", rep["checks"][0]["message"]
    assert "drawing from rng must advance it" in rep["checks"][0]["message"]
