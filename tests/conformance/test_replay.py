"""Replayed draws (graders/conformance/replay.py): a process that keeps what each property drew
for one implementation gives the next one exactly the inputs Hypothesis would draw, and exactly
the verdicts, messages and smallest examples it would get without the replay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

from graders.conformance import replay
from graders.conformance.faults import CallTimeout
from graders.conformance.outcome import Status
from graders.conformance.profiles import use_profile
from graders.conformance.runner import load_impl, run_checks
from tests.corpus import BASE, buggy_cases

CASES = {b.name: b for b in buggy_cases()}
# cheap checks of every kind of property: st.data() draws, keyword strategies, error inputs
# drawn per row, a purity check, checks that draw sometimes real-size tables
SELECT = ["lookup_selects_row", "embed_adds_position_rows", "token_gradient_scatter_add",
          "dot_product", "similarity_by_direction", "init_shape_and_dtype",
          "init_reproducible_from_rng", "token_table_params", "out_of_range_ids",
          "inputs_not_mutated"]


@pytest.fixture
def replaying():
    replay.clear()
    replay.enable()
    yield replay.KEPT
    replay.enable(False)
    replay.clear()


class _Logged:
    """An implementation that records every call's arguments (bytes, dtype, shape)."""

    def __init__(self, impl, fault_at: int | None = None):
        self._impl, self.calls, self.fault_at = impl, [], fault_at

    def __getattr__(self, name):
        fn = getattr(self._impl, name)

        def call(*args):
            self.calls.append((name, [_key(a) for a in args]))
            if self.fault_at is not None and len(self.calls) == self.fault_at:
                raise CallTimeout(f"{name}() did not answer", function=name)
            return fn(*args)
        return call


def _key(a):
    if isinstance(a, np.random.Generator):
        return repr(a.bit_generator.state)
    if isinstance(a, np.ndarray):
        return (a.dtype.str, a.shape, a.tobytes())
    return repr(a)


def _verdicts(results):
    out = []
    for r in results:
        d = r.to_dict()
        d.pop("duration_s")
        out.append(d)
    return out


def _run(impl, spec, select=SELECT):
    return run_checks(impl, spec, profile="dev", select=select)


def test_a_replayed_run_makes_exactly_the_calls_of_a_hypothesis_run(andrea_spec, replaying):
    impl = load_impl(BASE)
    replay.enable(False)
    plain = _Logged(impl)
    _run(plain, andrea_spec)
    replay.enable()
    recorded, replayed = _Logged(impl), _Logged(impl)
    _run(recorded, andrea_spec)
    assert replaying.misses > 0 and replaying.hits == 0
    _run(replayed, andrea_spec)
    assert replaying.hits == replaying.misses and replaying.fallbacks == 0
    assert len(plain.calls) > 150
    assert recorded.calls == plain.calls
    assert replayed.calls == plain.calls


@pytest.mark.parametrize("name", ["lookup_clips_ids", "embed_mutates_table", "dot_truncates",
                                  "init_global_rng", "norm_raises", "out_of_range_valueerror",
                                  "params_output_sometimes"])
def test_a_buggy_submission_gets_the_verdicts_it_gets_without_replay(name, andrea_spec,
                                                                    replaying, tmp_path):
    case = CASES[name]
    select = SELECT + sorted(case.fails)
    replay.enable(False)
    path = case.write(tmp_path)
    plain = _verdicts(_run(load_impl(path), andrea_spec, select))
    replay.enable()
    _run(load_impl(BASE), andrea_spec, select)       # keeps the draws of a correct one
    again = _verdicts(_run(load_impl(path), andrea_spec, select))
    assert replaying.hits
    # a failure on a drawn example ends a replay, and Hypothesis runs the property again
    # (these two fail on fixed arguments, before any property)
    assert replaying.fallbacks or name in ("dot_truncates", "params_output_sometimes")
    assert again == plain
    assert {d["check_id"] for d in again if d["status"] == "failed"} >= case.fails


def test_a_fault_in_a_replayed_example_is_the_fault_of_a_hypothesis_run(andrea_spec, replaying):
    impl = load_impl(BASE)
    select = ["embed_adds_position_rows"]
    replay.enable(False)
    plain = _Logged(impl, fault_at=7)
    want = _verdicts(_run(plain, andrea_spec, select))
    replay.enable()
    _run(impl, andrea_spec, select)
    faulty = _Logged(impl, fault_at=7)
    got = _verdicts(_run(faulty, andrea_spec, select))
    assert got == want and got[0]["status"] == "error" and got[0]["cause"] == "fault"
    assert faulty.calls == plain.calls      # stopped at once, as Hypothesis stops


def _prop_run(flag: list, seen: list):
    """A property whose draws depend on `flag` (as a body might depend on an answer)."""

    with use_profile("dev"), replay.check_scope("a check", None):
        @replay.given(data=st.data(), n=st.integers(0, 9))
        def prop(data, n):
            x = data.draw(st.integers(0, 100), label="x")
            y = data.draw(st.integers(0, 5) if flag[0] else st.booleans(), label="y")
            seen.append((n, x, y))

        prop()


def test_a_body_that_draws_something_else_runs_in_hypothesis(replaying):
    replay.enable(False)
    want_a, want_b = [], []
    _prop_run([True], want_a)
    _prop_run([False], want_b)
    replay.enable()
    got_a, got_b = [], []
    _prop_run([True], got_a)
    _prop_run([False], got_b)
    assert got_a == want_a and got_b == want_b and want_a != want_b
    assert replaying.fallbacks == 1


def test_a_property_that_draws_after_an_answer_is_never_replayed(replaying):
    answers = []
    for _ in range(2):
        with use_profile("dev"), replay.check_scope("steered", None):
            @replay.given(data=st.data())
            def prop(data):
                replay.note_call()          # as the runner does for a call into the submission
                answers.append(data.draw(st.integers(0, 3), label="after the answer"))

            prop()
    assert len(replaying) == 0 and replaying.hits == 0 and replaying.misses == 2


def test_kept_values_are_copies_taken_before_the_body_runs(replaying):
    """A body (or what it hands on) that changes its drawn arrays in place changes neither
    what is kept nor what the next run gets."""
    from graders.conformance import strategies as S

    def run(seen):
        with use_profile("dev"), replay.check_scope("mutating body", None):
            @replay.given(data=st.data(), t=st.integers(0, 9).map(lambda k: np.full(3, k)))
            def prop(data, t):
                big = data.draw(st.integers(0, 3).map(lambda s: S.table(s, 600, 512)), label="big")
                seen.append((t.copy(), big.copy()))
                t += 100                       # in place, after the draw
                big[:] = 0

            prop()

    first, second = [], []
    run(first)
    run(second)
    assert replaying.hits == 1 and len(first) == len(second) > 0
    assert replaying.bytes < 2**20      # the large tables were kept as their recipes
    for (a, b), (c, d) in zip(first, second):
        assert np.array_equal(a, c) and np.array_equal(b, d) and b.any()


def test_a_table_changed_after_it_was_built_is_kept_as_bytes(replaying):
    from graders.conformance import strategies as S

    def changed(seed):
        t = S.table(seed, 600, 512)
        t[0, 0] = 42.0                  # no longer what its recipe builds
        return t

    def run(seen):
        with use_profile("dev"), replay.check_scope("changed table", None):
            @replay.given(t=st.integers(0, 3).map(changed))
            def prop(t):
                seen.append(t.copy())

            prop()

    first, second = [], []
    run(first)
    run(second)
    assert replaying.hits == 1 and replaying.bytes >= 600 * 512 * 4
    assert all(np.array_equal(a, b) and a[0, 0] == 42.0 for a, b in zip(first, second))


def test_a_property_that_draws_too_much_is_not_kept(andrea_spec, replaying, monkeypatch):
    monkeypatch.setattr(replay, "PROPERTY_BYTES", 4096)
    impl = load_impl(BASE)
    _run(impl, andrea_spec, ["embed_adds_position_rows", "dot_product"])
    assert len(replaying) == 0 and replaying.bytes == 0
    monkeypatch.setattr(replay, "PROPERTY_BYTES", 64 * 2**20)
    monkeypatch.setattr(replay, "MAX_BYTES", 2 * 2**20)
    _run(impl, andrea_spec, SELECT)
    assert 0 < replaying.bytes <= 2 * 2**20


def test_replay_is_off_unless_enabled(andrea_spec):
    assert not replay.enabled()
    before = (replay.KEPT.hits, replay.KEPT.misses, len(replay.KEPT))
    results = _run(load_impl(BASE), andrea_spec, ["dot_product"])
    assert results[0].status == Status.PASSED and results[0].cause is None
    assert (replay.KEPT.hits, replay.KEPT.misses, len(replay.KEPT)) == before
