"""Attacks of issue 19: a student who has read the grader's source goes after what it trusts
and what it parses in its own process.

Each file in `tests/grade/hostile_more4/` is one attack class; its docstring says what it tries
and what must happen. Tests that need a worker run it in bubblewrap (skipped where bubblewrap
cannot run: the grader then refuses untrusted code, which test_hostile_sandbox.py checks);
attacks on the grader's own parsing need no worker. A memory or size attack is built by its
test at run time (the committed file is its small seed).
"""
from __future__ import annotations

import json
from pathlib import Path

from graders.grade import sandbox

import pytest

from .conftest import LIMITS, grade_path, needs_bwrap

MORE4 = Path(__file__).resolve().parent / "hostile_more4"
ROOT = Path(__file__).resolve().parents[2]


def _report(rep: dict, tag: str) -> dict:
    line = next(x for x in rep["submission_output"].splitlines() if x.startswith(tag + " "))
    return json.loads(line.split(" ", 1)[1])


# ----------------------------------------------------------------------------- seccomp
@needs_bwrap
def test_no_socket_and_no_call_of_the_same_kind_in_the_sandbox(spec):
    rep = grade_path(MORE4 / "sockets_and_syscalls.py", spec, select=["vector_norm"],
                     limits=LIMITS, sandbox="bwrap")
    assert rep["import"]["ok"], rep["import"]
    assert rep["checks"][0]["status"] == "passed"
    got = _report(rep, "SOCKET-REPORT")
    eperm = "refused, errno 1"
    assert got == {"inet": eperm, "unix": eperm, "pair": eperm, "raw": eperm,
                   "x32": "killed, signal 31", "io_uring": eperm, "ptrace": eperm,
                   "mount": eperm, "setns": eperm, "clone_newnet": eperm,
                   "pipe": "works"}, got


def test_the_filter_is_one_reusable_function_with_its_denials():
    """The container mode (issue 20) installs the same filter: worker.confine, whose list names
    sockets, namespaces, mounts and tracing; the grader asks for it in every mode."""
    from graders.grade import worker

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
            % str(ROOT / "graders" / "grade"))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.split("\n")[:2] == ["refused 1", "b'x'"], (out.stdout, out.stderr)
