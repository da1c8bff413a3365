"""Attacks on the grader itself: escape, forged score, unbounded grader, injection, fail closed.

One hostile submission per attack class lives in `tests/attacks/` (its docstring says
what it tries and what must happen). Each is graded in bubblewrap where it can run; where it
cannot, the grader must refuse every one of them before anything of it runs (fail closed),
which the first tests check on every machine. docs/grading.md has the table of attack classes,
modes, outcomes and the tests below.
"""
from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from andrea_runtime import protocol as P
from graders.grade import batch, cli, formats, grading, proxy as px, sandbox, session
from graders.grade.grading import GraderError, load_submission
from graders.grade.report import BatchRow

from .conftest import (CORRECT, HAS_BWRAP, HOSTILE, LIMITS, SANDBOX, grade_path, leftovers,
                       needs_bwrap, statuses)
from tests.attacks import CORPUS
from tests.helpers import fast_limits, load_margin

ATTACKS = CORPUS   # tests/attacks/<threat>/
ALL_HOSTILE = (CORPUS.glob("*.py") + sorted(HOSTILE.glob("*.py")) + CORPUS.glob("*.ipynb"))
FAST = fast_limits(call_timeout=3.0, startup_timeout=8.0)
PASSED = ("passed", "")


def _check(rep, expected: dict) -> None:
    got = {c["id"]: c for c in rep["checks"]}
    assert statuses(rep) == {k: s for k, (s, _) in expected.items()}, \
        [(c["id"], c["status"], c["message"][:300]) for c in rep["checks"]]
    for cid, (_, text) in expected.items():
        assert text in got[cid]["message"], got[cid]["message"]


# ----------------------------------------------------------------------------- fail closed
@pytest.fixture
def no_bwrap(monkeypatch):
    """A machine where bubblewrap is not installed (and nothing of a submission may run)."""
    monkeypatch.setattr(sandbox.probe, "_PROBE", {})
    monkeypatch.setattr(sandbox.features, "bwrap_path", lambda: None)

    def never(*a, **k):
        raise AssertionError("a worker was started although isolation is unavailable")

    monkeypatch.setattr(px, "Worker", never)
    monkeypatch.setattr(session, "prepare", never)


@pytest.mark.parametrize("path", ALL_HOSTILE, ids=lambda p: p.name)
def test_without_isolation_every_hostile_submission_is_refused(path, spec, no_bwrap):
    with pytest.raises(GraderError) as exc:
        grading.grade(load_submission(path), spec, profile="dev", limits=LIMITS)
    msg = str(exc.value)
    assert msg.startswith("refusing to run untrusted code")
    assert "install bubblewrap" in msg and "--sandbox none" in msg and "\n" not in msg


def test_the_refusal_is_one_paragraph_and_exit_status_2(no_bwrap, capsys):
    assert cli.main([str(ATTACKS / "reach_grader.py"), "--profile", "dev"]) == cli.EXIT_GRADER
    err = capsys.readouterr().err.strip()
    assert err.startswith("andrea-grade: refusing to run untrusted code") and "\n" not in err


def test_bubblewrap_that_cannot_create_namespaces_is_refused_too(spec, monkeypatch):
    monkeypatch.setattr(sandbox.probe, "_PROBE", {"bwrap": (False, "setting up uid map: Permission "
                                                              "denied")})
    monkeypatch.setattr(sandbox.features, "bwrap_path", lambda: "/usr/bin/bwrap")
    with pytest.raises(GraderError, match="Permission denied.*namespaces"):
        grading.grade(load_submission(CORRECT), spec, profile="dev", limits=LIMITS)
    with pytest.raises(GraderError, match="Permission denied"):
        grading.grade(load_submission(CORRECT), spec, profile="dev", limits=LIMITS,
                      sandbox="bwrap")


@needs_bwrap
def test_a_worker_started_before_the_probe_answers_is_stopped_when_it_says_no(spec,
                                                                            monkeypatch):
    """The worker starts under bubblewrap while bubblewrap's probe still runs; a probe that
    then fails refuses the submission all the same, and nothing of the worker is left."""
    started = []
    real = px.Worker

    def worker(*a, **k):
        started.append(real(*a, **k))
        return started[-1]

    def slow_failing_probe():
        sandbox.probe._PROBING["bwrap"] = subprocess.Popen(
            ["sh", "-c", "sleep 0.3; echo 'setting up uid map: Permission denied' >&2; exit 1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    monkeypatch.setattr(sandbox.probe, "_PROBE", {})
    monkeypatch.setattr(sandbox.probe, "_PROBING", {})
    monkeypatch.setattr(sandbox.probe, "start_probe", lambda: sandbox.probe._PROBING or slow_failing_probe())
    monkeypatch.setattr(px, "Worker", worker)
    with pytest.raises(GraderError, match="refusing to run untrusted code.*Permission denied"):
        grading.grade(load_submission(CORRECT), spec, profile="dev", limits=LIMITS)
    assert started and not started[0].alive                  # it did start, and was stopped
    assert not Path(started[0].launch.cwd).exists()           # its scratch folder is gone
    assert leftovers("worker.py") == []


def test_every_attack_file_is_graded_here():
    assert all((CORPUS / name).is_file() for name in GRADED_HERE)


def test_every_attack_file_is_graded_somewhere():
    """Each file of tests/attacks/<threat>/ is named by a test (a corpus file nothing runs
    proves nothing)."""
    root = Path(__file__).resolve().parents[1]
    tests = "\n".join(p.read_text(encoding="utf-8") for p in root.rglob("test_*.py"))
    unnamed = [p.name for p in CORPUS.glob("*") if p.suffix in (".py", ".ipynb", ".cu")
               and p.name not in tests and p.stem not in tests]
    assert unnamed == []


# ----------------------------------------------------------------------------- grader's own
def test_a_worker_that_cannot_start_is_the_graders_error(spec, monkeypatch):
    def broken(*a, **k):
        raise OSError(errno.ENOENT, "No such file or directory", "/secret/host/path")

    monkeypatch.setattr(px.subprocess, "Popen", broken)
    with pytest.raises(GraderError) as exc:
        grade_path(CORRECT, spec, select=["token_table_params"])
    assert "not the submission's fault" in str(exc.value)
    assert "/secret" not in str(exc.value) and "No such file" in str(exc.value)


def test_a_single_file_over_the_size_cap_is_refused(tmp_path):
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * (grading.MAX_SUBMISSION_BYTES + 1))
    with pytest.raises(GraderError, match="larger than 5 MiB"):
        load_submission(big)


# ----------------------------------------------------------------------------- raw protocol
def test_forged_replies_are_refused_before_anything_is_allocated():
    for dtype in ("|S0", "<U0", "|V0"):
        tree = {"t": "nd", "i": 0, "dtype": dtype, "shape": [10**10, 10**10]}
        with pytest.raises(P.ProtocolError):
            P.decode(tree, [b""], untrusted=True)
    with pytest.raises(P.ProtocolError, match="object"):
        P.decode({"t": "ndobj", "shape": [1], "v": [1]}, [], untrusted=True)
    assert P.decode({"t": "ndobj", "shape": [1], "v": [1]}, []).dtype == object  # grader's own
    with pytest.raises(P.ProtocolError, match="do not match"):
        P.decode({"t": "nd", "i": 0, "dtype": "<f8", "shape": [10**9]}, [b"12345678"])
    with pytest.raises(P.Unencodable, match="object"):
        P.encode(np.array([object()]), [], objects=False)


def test_values_in_messages_are_bounded():
    from graders.conformance.assertions import MAX_VALUE_CHARS, bounded_repr, fail
    from graders.conformance.registry import ConformanceError

    for value in (b"x" * (50 << 20), "y" * (10 << 20), list(range(10**6)), 10**20000,
                  {i: "z" * 1000 for i in range(1000)}, np.zeros(10**6)):
        assert len(bounded_repr(value)) <= MAX_VALUE_CHARS
        with pytest.raises(ConformanceError) as exc:
            fail("{function} returned {got!r}, not {want:,}", "f()", function="f",
                 got=value, want=value)
        assert len(str(exc.value)) < 3 * MAX_VALUE_CHARS


# ----------------------------------------------------------------------------- in bubblewrap
def _stat(path: str):
    try:
        st = os.lstat(path)
        return (st.st_uid, st.st_gid, st.st_mode)
    except OSError:
        return None


@needs_bwrap
def test_symlink_swaps_change_nothing_on_the_host(spec):
    watched = ("/etc/shadow", "/usr/bin/su", "/root", "/etc")
    before = {p: _stat(p) for p in watched}
    rep = grade_path(ATTACKS / "symlink_swap.py", spec, select=["dot_product", "vector_norm"],
                     limits=FAST)
    _check(rep, {"dot_product": ("error", "exited with status 9"), "vector_norm": PASSED})
    assert {p: _stat(p) for p in watched} == before
    text = formats.render(rep, "json")
    assert "andrea-grade-" not in text and "FileNotFoundError" not in text


@needs_bwrap
def test_the_runtime_cannot_be_rewritten(spec):
    rep = grade_path(ATTACKS / "write_runtime.py", spec,
                     select=["lookup_selects_row", "dot_product", "vector_norm"], limits=FAST)
    _check(rep, {"lookup_selects_row": ("failed", "but should be"),
                 "dot_product": ("error", "exited with status 3"), "vector_norm": PASSED})
    assert "WROTE" not in rep["submission_output"]
    assert "refused worker.py" in rep["submission_output"]
    assert "forged worker ran" not in formats.render(rep, "json")


@needs_bwrap
def test_the_grader_cannot_be_seen_signalled_traced_or_read(spec):
    rep = grade_path(ATTACKS / "reach_grader.py", spec, select=["vector_norm"], limits=FAST)
    _check(rep, {"vector_norm": PASSED})
    out = rep["submission_output"]
    assert "visible:" in out
    for marker in ("READ", "PTRACED", "SIGNALLED", "KILLED", "pytest"):
        assert marker not in out, out


@needs_bwrap
def test_a_batch_submission_cannot_reach_the_gradebook(spec, tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "mallory.py").write_bytes((ATTACKS / "gradebook_tamper.py").read_bytes())
    (folder / "alice.py").write_bytes(CORRECT.read_bytes())
    db = tmp_path / "gb.sqlite"
    batch.run_batch(folder, spec, jobs=1, db=db, profile="dev", limits=FAST,
                    select=["lookup_selects_row"], progress=False)
    con = sqlite3.connect(db)
    assert con.execute("SELECT name FROM sqlite_master WHERE type='trigger'").fetchall() == []
    scores = dict(con.execute("SELECT submission, score FROM grades"))
    assert scores == {"mallory.py": 0.0, "alice.py": pytest.approx(scores["alice.py"])}
    assert scores["alice.py"] > 0
    report = json.loads(con.execute("SELECT report FROM grades WHERE submission='mallory.py'")
                        .fetchone()[0])
    assert "TAMPERED" not in report["submission_output"]


@needs_bwrap
def test_huge_values_keep_the_grader_and_its_reports_bounded(tmp_path):
    script = f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from graders.grade import formats
from graders.grade.grading import grade, load_submission
from spec import load_spec
from tests.helpers import fast_limits
rep = grade(load_submission({str(ATTACKS / 'huge_values.py')!r}), load_spec(), profile="dev",
            limits=fast_limits(memory_mb=1536, call_timeout=20.0),
            select=["token_table_params", "position_table_params", "embedding_layer_params",
                    "dot_product"])
sizes = {{f: len(formats.render(rep, f).encode()) for f in formats.FORMATS}}
# this process's own peak (VmHWM): ru_maxrss also keeps the peak of the image it replaced at
# exec, which was the test process (forked from pytest, over 1.5 GB late in a full run)
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({{"sizes": sizes, "rss_kib": hwm,
                  "checks": {{c["id"]: [c["status"], c["message"]] for c in rep["checks"]}}}}))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert all(n < 5_000_000 for n in out["sizes"].values()), out["sizes"]
    assert out["rss_kib"] < 1.5 * 1024 * 1024, out["rss_kib"]
    for cid, (status, message) in out["checks"].items():
        assert status in ("failed", "error"), (cid, status)
        assert len(message) < 2500, (cid, len(message))


@needs_bwrap
def test_forged_replies_are_malformed_replies(spec):
    rep = grade_path(ATTACKS / "forged_reply.py", spec,
                     select=["lookup_selects_row", "dot_product", "vector_norm"], limits=FAST)
    _check(rep, {"lookup_selects_row": ("error", "unreadable answer"),
                 "dot_product": ("error", "unreadable answer"), "vector_norm": PASSED})


def test_mutating_any_argument_is_reported_and_never_written_back(spec, monkeypatch):
    seen = []
    real = px.SubmissionProxy._call

    def spy(self, name, args, kwargs):
        copies = [a.copy() for a in args if isinstance(a, np.ndarray)]
        try:
            return real(self, name, args, kwargs)
        finally:
            now = [a for a in args if isinstance(a, np.ndarray)]
            seen.append(all(np.array_equal(a, b, equal_nan=True) for a, b in zip(now, copies)))

    monkeypatch.setattr(px.SubmissionProxy, "_call", spy)
    checks = ["dot_product", "vector_norm", "lookup_selects_row", "embed_adds_position_rows",
              "gradient_shapes", "inputs_not_mutated"]
    rep = grade_path(ATTACKS / "mutate_args.py", spec, select=checks, limits=FAST)
    # Expectations come from the grader's own copies: the values for zeroed inputs are wrong,
    # a right value computed before scribbling passes, and the mutation itself is charged once,
    # under the purity clause.
    _check(rep, {"inputs_not_mutated": ("failed", "changed its input in place"),
                 "dot_product": ("failed", ""), "vector_norm": ("failed", ""),
                 "lookup_selects_row": PASSED, "embed_adds_position_rows": PASSED,
                 "gradient_shapes": PASSED})
    assert seen and all(seen)          # the grader's arrays never changed


def test_injected_text_stays_inert_in_every_format(spec, tmp_path):
    name = '=HYPERLINK("http:\x1b[2J[red]evil")\u202e.py'
    path = tmp_path / name
    path.write_bytes((ATTACKS / "inject_output.py").read_bytes())
    rep = grade_path(path, spec, select=["lookup_selects_row", "dot_product"], limits=FAST)
    assert set(statuses(rep).values()) == {"failed"}
    for fmt in formats.FORMATS:
        out = formats.render(rep, fmt, color=True)
        assert "\x1b[2J" not in out and "\x00" not in out and "\u202e" not in out
        if fmt == "junit":
            ET.fromstring(out.split("\n", 1)[1])           # valid XML whatever was printed
        if fmt == "gradescope":
            data = json.loads(out)
            assert data["output_format"] == data["test_output_format"] == "text"
            assert {t["output_format"] for t in data["tests"]} == {"text"}
    plain = formats.render(rep, "text")
    assert "[red]evil" in plain and "[bold green]FULL MARKS[/]" in plain   # shown, not applied
    assert ":thumbs_up:" in plain
    csv_file = tmp_path / "s.csv"
    batch.write_csv(csv_file, [BatchRow(rep["submission"], score=1.0)], [])
    cell = csv_file.read_text(encoding="utf-8").splitlines()[1]
    assert cell.startswith("\"'=HYPERLINK") and "\x1b" not in cell


@needs_bwrap
def test_storage_is_bounded_and_private(spec):
    def fills():
        return {p for d in ("/tmp", "/dev/shm", "/") for p in os.listdir(d)
                if p.startswith("fill")}

    before = fills()
    rep = grade_path(ATTACKS / "fill_storage.py", spec, select=["vector_norm"],
                     limits=fast_limits(max_disk_mb=8))
    _check(rep, {"vector_norm": PASSED})
    written = int(rep["submission_output"].split("MIB_WRITTEN ")[1].split()[0])
    assert 0 < written <= 8
    assert fills() == before


def test_slow_calls_use_up_the_budget_and_the_rest_is_not_run(spec):
    # the budget as it is (the report states it); each call's limit with the load's margin,
    # so that no 0.9 s call times out on a busy machine
    limits = fast_limits(call_timeout=1.5, total_timeout=4.0, max_timeouts_per_function=3,
                         exact=("total_timeout",))
    checks = ["dot_product", "vector_norm", "similarity_by_direction"]
    rep = grade_path(ATTACKS / "slow_calls.py", spec, select=checks, limits=limits)
    left_out = [c for c in rep["checks"] if c["status"] == "not_run"]
    assert left_out and all(c["cause"] == "budget" for c in left_out)
    assert all("not run: budget exhausted" in c["message"] for c in left_out)
    assert rep["not_run"] == [c["id"] for c in left_out]
    assert rep["score"] == 0 or rep["score"] < rep["max_score"]
    # the budget, plus starting and stopping (with the load's margin)
    assert rep["execution_time"] < 4.0 + 30 * load_margin()
    assert "not run" in formats.render(rep, "text")


def test_a_process_that_hides_from_cleanup_does_not_survive(spec):
    rep = grade_path(ATTACKS / "escape_cleanup.py", spec, select=["vector_norm"], limits=FAST)
    _check(rep, {"vector_norm": PASSED})
    assert leftovers("andrea-hostile-escapee", ours_only=False) == []


@pytest.mark.skipif(not HAS_BWRAP or os.geteuid() != 0,
                    reason="private worker uids need bubblewrap and root")
def test_a_busy_uid_is_never_used_and_its_process_never_killed(spec, monkeypatch):
    import itertools

    monkeypatch.setattr(sandbox.processes, "_UID_SLOTS", itertools.count())
    busy = sandbox.processes.UID_BASE + (os.getpid() % sandbox.processes.UID_PIDS) * 64   # slot 0: next in line
    bystander = subprocess.Popen(["sleep", "60"], user=busy, group=busy)
    try:
        used = []
        real = sandbox.launch._allocate_uid
        monkeypatch.setattr(sandbox.launch, "_allocate_uid", lambda: used.append(real()) or used[-1])
        rep = grade_path(HOSTILE / "fork_bomb.py", spec, select=["init_shape_and_dtype"])
        assert statuses(rep) == {"init_shape_and_dtype": "passed"}
        assert used and busy not in used
        assert bystander.poll() is None                    # still running
    finally:
        bystander.kill()
        bystander.wait()


GRADED_HERE = ("symlink_swap.py", "write_runtime.py", "reach_grader.py", "gradebook_tamper.py",
               "huge_values.py", "forged_reply.py", "mutate_args.py", "inject_output.py",
               "fill_storage.py", "slow_calls.py", "escape_cleanup.py")
