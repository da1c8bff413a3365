"""andrea-conform charges the grader's per-call time limits in its own process
(graders/conformance/limits.py; run_checks(limits=...)): a call past its time is a timeout of
that check (interrupted, or judged when it returns where the alarm cannot interrupt it), a
function that timed out too often is not called again, and the limits are the grader's."""

from __future__ import annotations

import signal

import pytest

from graders.conformance.limits import CALL_SECONDS, CHECK_SECONDS, CallLimits
from graders.conformance.outcome import Cause, Status
from graders.conformance.runner import load_impl, run_checks
from graders.grade.sandbox import Limits
from spec import load_spec
from tests.corpus import BASE

SPEC = load_spec()


def _impl(tmp_path, body: str):
    path = tmp_path / "slow.py"
    path.write_text("import signal, time\n" + BASE.read_text(encoding="utf-8")
                    + "\n\n_dot = dot\n\ndef dot(u, v):\n" + body
                    + "    return _dot(u, v)\n", encoding="utf-8")
    return load_impl(path)


def test_the_kit_and_the_grader_have_the_same_limits():
    d = Limits()
    assert (d.call_timeout, d.check_timeout) == (CALL_SECONDS, CHECK_SECONDS)


def test_a_hanging_call_is_interrupted_and_charged_as_a_timeout(tmp_path):
    impl = _impl(tmp_path, "    time.sleep(600)\n")
    [r] = run_checks(impl, SPEC, profile="dev", select=["dot_product"],
                     limits=CallLimits(call=0.5))
    assert (r.status, r.cause, r.details["fault"]) == (Status.ERROR, Cause.FAULT, "timeout")
    assert "did not finish within 0.5 s" in r.message
    assert r.duration_s < 60            # interrupted: the call would sleep 600 s


def test_a_call_the_alarm_cannot_interrupt_is_judged_when_it_returns(tmp_path):
    """A long C loop (NumPy's) runs to its end; its time is charged when it returns."""
    impl = _impl(tmp_path, "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
                           "    try:\n        time.sleep(1.0)\n    finally:\n"
                           "        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})\n")
    [r] = run_checks(impl, SPEC, profile="dev", select=["dot_product"],
                     limits=CallLimits(call=0.2))
    assert (r.status, r.details["fault"]) == (Status.ERROR, "timeout")


def test_a_function_that_timed_out_is_not_called_again(tmp_path):
    impl = _impl(tmp_path, "    time.sleep(600)\n")
    limits = CallLimits(call=0.3, max_timeouts=1)
    first, second = run_checks(impl, SPEC, profile="dev",
                               select=["dot_product", "vector_errors"], limits=limits)
    assert "did not finish" in first.message
    assert second.status == Status.ERROR and second.details["fault"] == "timeout"
    assert "dot() not called again: it timed out 1 time(s) before" in second.message
    assert second.duration_s < 60       # refused at once, not slept through


def test_without_limits_nothing_is_timed(tmp_path):
    impl = _impl(tmp_path, "    time.sleep(0.3)\n")
    [r] = run_checks(impl, SPEC, profile="dev", select=["vector_errors"])
    assert r.status == Status.PASSED


@pytest.mark.parametrize("bad", ["0", "-1", "soon"])
def test_a_bad_time_limit_is_a_usage_error(bad, capsys):
    from graders.conformance.cli import main

    assert main([str(BASE), "--call-timeout", bad]) == 2
    assert "--call-timeout" in capsys.readouterr().err


def test_the_budget_used_up_leaves_the_next_checks_not_run(tmp_path):
    """As the grader: once the run's total time is used, a check whose calls are refused is
    'not run: budget exhausted'."""
    impl = _impl(tmp_path, "    time.sleep(0.4)\n")
    results = run_checks(impl, SPEC, profile="dev",
                         select=["dot_product", "vector_errors", "dot_is_norms_times_cosine"],
                         limits=CallLimits(call=5.0, total=1.0))
    left = [r for r in results if r.status == Status.NOT_RUN]
    assert left and all(r.cause == Cause.BUDGET for r in left)
    assert all("not run: budget exhausted (your submission used up its 1 s" in r.message
               for r in left)
