"""Attacks with processes (tests/attacks/processes/): signals caught, threads left running,
descriptors used up, a fork storm at close time, sockets and the system calls of their kind
(the seccomp filter), and the refusal where that filter cannot be loaded.

Each file of `tests/attacks/processes/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import pytest

from tests.attacks import CORPUS
from tests.helpers import load_margin

from .attacking import INTERNALS, ROOT, grade_attack, printed_report, student_text
from .conftest import LIMITS, grade_path, leftovers, needs_bwrap


@needs_bwrap
def test_catch_base_exception(spec):
    rep, got = grade_attack("catch_base_exception", spec, ["vector_norm", "dot_product"])
    assert (got["vector_norm"]["status"], got["vector_norm"]["cause"]) == ("error", "fault")
    assert "did not finish" in got["vector_norm"]["message"]
    assert got["dot_product"]["status"] == "passed"
    assert rep["execution_time"] < 60
    assert not leftovers("ANDREA_GRADE_WORKER")


@needs_bwrap
def test_threads_left_running(spec):
    rep, got = grade_attack("threads_left_running", spec, ["lookup_selects_row"])
    assert got["lookup_selects_row"]["status"] == "passed", got["lookup_selects_row"]["message"]
    assert not leftovers("ANDREA_GRADE_WORKER")


@needs_bwrap
def test_exhaust_fds(spec):
    """Closing the worker's pipes ends it quietly: the student is told their module could not
    be imported, and reads nothing of the grader's own code."""
    rep, got = grade_attack("exhaust_fds", spec, ["vector_norm"])
    assert rep["score"] == 0 and got["vector_norm"]["status"] == "not_run"
    text = student_text(rep)
    assert not any(word in text for word in INTERNALS), text


@needs_bwrap
def test_a_fork_storm_at_close_time_does_not_outlive_its_worker(tmp_path, spec):
    import csv
    import shutil

    from graders.grade import batch

    from .conftest import CORRECT, leftovers

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(CORPUS / "close_time_storm.py", subs / "mallory.py")
    shutil.copy(CORRECT, subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", csv_path=csv_path,
                    profile="dev", limits=LIMITS, sandbox="bwrap", select=["vector_norm"],
                    progress=False)
    assert leftovers("andrea-hostile-storm", ours_only=False) == []
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert rows["mallory.py"]["vector_norm"] == "passed"
    assert rows["zoe.py"]["vector_norm"] == "passed"


@needs_bwrap
def test_no_socket_and_no_call_of_the_same_kind_in_the_sandbox(spec):
    rep = grade_path(CORPUS / "sockets_and_syscalls.py", spec, select=["vector_norm"],
                     limits=LIMITS, sandbox="bwrap")
    assert rep["import"]["ok"], rep["import"]
    assert rep["checks"][0]["status"] == "passed"
    got = printed_report(rep, "SOCKET-REPORT")
    eperm = "refused, errno 1"
    assert got == {"inet": eperm, "unix": eperm, "pair": eperm, "raw": eperm,
                   "x32": "killed, signal 31", "io_uring": eperm, "ptrace": eperm,
                   "mount": eperm, "setns": eperm, "clone_newnet": eperm,
                   "pipe": "works"}, got


def test_the_filter_is_one_reusable_function_with_its_denials():
    """The container mode (issue 20) installs the same filter: worker.confine, whose list names
    sockets, namespaces, mounts and tracing; the grader asks for it in every mode."""
    from andrea_runtime import worker

    for name in ("socket", "socketpair", "unshare", "setns", "mount", "ptrace",
                 "io_uring_setup"):
        assert name in worker.CONFINE_DENIED
    assert 0x10000000 in worker.CLONE_NEW_FLAGS and 0x40000000 in worker.CLONE_NEW_FLAGS
    assert worker._parse(["--runtime", "r", "--module", "m", "--forbid", "", "--req-fd", "3",
                          "--resp-fd", "4", "--confine"]).confine == "required"


def test_the_filter_holds_in_a_process_of_its_own(tmp_path):
    """confine() in a plain child process (what the rlimits mode and the container mode get):
    a socket is refused, a pipe still works."""
    import subprocess
    import sys

    code = ("import socket, os, sys; sys.path.insert(0, %r); import worker; worker.confine()\n"
            "try:\n    socket.socket(); print('allowed')\n"
            "except OSError as e:\n    print('refused', e.errno)\n"
            "r, w = os.pipe(); os.write(w, b'x'); print(os.read(r, 1))\n"
            % str(ROOT / "andrea_runtime"))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         timeout=60 * load_margin())
    assert out.stdout.split("\n")[:2] == ["refused 1", "b'x'"], (out.stdout, out.stderr)


def test_a_missing_libseccomp_is_refused_with_its_fix(monkeypatch):
    """The worker cannot forbid user namespaces without libseccomp: bubblewrap's probe loads it,
    and its absence is a refusal (fail closed) that says what to install."""
    from graders.grade import sandbox

    monkeypatch.setattr(sandbox.probe, "_PROBE", {"bwrap": (False, "OSError: libseccomp.so.2: "
                                                      "cannot open shared object file")})
    with pytest.raises(sandbox.IsolationUnavailable) as exc:
        sandbox.choose_mode("auto")
    assert "apt-get install libseccomp2" in str(exc.value) and "\n" not in str(exc.value)
