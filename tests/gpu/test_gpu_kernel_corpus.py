"""Meta-tests of kernel grading on a corpus of student-style submissions (tests/gpu/kernels/
submissions/, table in docs/gpu.md): correct kernels in different styles pass every check of
the kernel groups; each single-bug kernel fails the check of its clause with the feedback that
names the bug (a data race with its lines, an out-of-bounds access with its line, the element
that is wrong, the bad-id rule broken).

In-process (load_kernel_submission, the CPU executor, the conformance runner with the "dev"
profile) to keep the suite fast; one bug also goes through andrea-grade's sandboxed worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from andrea_gpu.submission import load_kernel_submission
from graders.conformance.registry import all_checks
from graders.conformance.runner import run_checks
from spec import load_spec
from tests.helpers import TEST_SANDBOX, fast_limits

CORPUS = Path(__file__).resolve().parent / "kernels" / "submissions"
CORRECT = sorted(CORPUS.glob("correct_*.cu"))

# file -> (check, clause, regex the failure message must match)
BUGS = {
    "bug_missing_atomic.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01",
        r"RaceError: kernel andrea_embed_backward_token: data race on argument 2 \(grad_token\), "
        r"element \d+ at line bug_missing_atomic\.cu:43: block \(\d+,0,0\) thread \(\d+,0,0\) "
        r"(reads|writes) it and block \(\d+,0,0\) thread \(\d+,0,0\) (reads|writes) it"),
    "bug_racy_position_sum.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"RaceError: kernel andrea_embed_backward_position: data race on argument 1 "
        r"\(grad_position\), element \d+ at line bug_racy_position_sum\.cu:53"),
    "bug_missing_barrier.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"RaceError: kernel andrea_embed_backward_position: data race on shared memory at byte "
        r"offset \d+ at line bug_missing_barrier\.cu:50"),
    "bug_no_grid_stride.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01",
        r"andrea_lookup \(grid [13], block \d+\) did not write out\[[\d, ]+\] .*grid-stride"),
    "bug_no_block_stride.cu": (
        "forward_pass_at_real_size", "EMB-REAL-01",
        r"andrea_embed_forward \(grid \d+, block \d+\) did not write out\[[\d, ]+\] .*"
        r"block-stride"),
    "bug_no_range_check.cu": (
        "out_of_range_ids", "EMB-ERR-01",
        r"lookup\(\) raised OutOfBoundsError\('kernel andrea_lookup: out-of-bounds access to "
        r"argument 0 \(table\) at bug_no_range_check\.cu:8"),
    "bug_wrong_position_row.cu": (
        "embed_adds_position_rows", "EMB-COMB-01",
        r"(OutOfBoundsError: kernel andrea_embed_forward: out-of-bounds access to argument 2 "
        r"\(position_table\) at bug_wrong_position_row\.cu:29|x\[\d+, \d+, \d+\]=\S+, but "
        r"should be exactly)"),
    "bug_column_off_by_one.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01",
        r"(OutOfBoundsError|RaceError): kernel andrea_lookup: .*(argument 0 \(table\)|argument 2 "
        r"\(out\))"),
    "bug_block_size_assumed.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"grad_position\[:T\]\[\d+, \d+\]=0\.0, but should be"),
    "bug_assign_not_accumulate.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"grad_position\[:T\]\[\d+, \d+\]=\S+, but should be"),
    "bug_float4_unaligned.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01",
        r"KernelError: kernel andrea_lookup: block \(\d+,0,0\) thread \(\d+,0,0\): an access at "
        r"a misaligned or impossible address \(a vector type such as float4 .*\) at "
        r"bug_float4_unaligned\.cu:15"),
    "bug_grid_stride_bound.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01",
        r"OutOfBoundsError: kernel andrea_lookup: out-of-bounds access to argument 1 \(ids\) at "
        r"bug_grid_stride_bound\.cu:5: byte offset (\d+) of a \1-byte buffer"),
    "bug_tail_ids_read.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01",
        r"OutOfBoundsError: kernel andrea_lookup: out-of-bounds access to argument 1 \(ids\) at "
        r"bug_tail_ids_read\.cu:6"),
    "bug_out_not_zeroed.cu": (
        "embed_adds_position_rows", "EMB-COMB-01",
        r"KernelContractError: andrea_embed_forward \(grid \d+, block \d+\) did not write "
        r"out\[[\d, ]+\] \(\d+ of \d+ elements left as they were: out is not zeroed"),
    "bug_never_writes_odd_column.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01",
        r"KernelContractError: andrea_lookup \(grid \d+, block \d+\) did not write out\["),
    "bug_writes_position_table.cu": (
        "embed_adds_position_rows", "EMB-COMB-01",
        r"KernelError: kernel andrea_embed_forward wrote argument 2 \(position_table\), element "
        r"\d+, which is a const input"),
    "bug_clobbers_grad_out.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"KernelError: kernel andrea_embed_backward_position wrote argument 0 \(grad_out\), "
        r"element \d+, which is a const input"),
    "bug_partial_sum_race.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"RaceError: kernel andrea_embed_backward_position: data race on shared memory at byte "
        r"offset 0 at line bug_partial_sum_race\.cu:54"),
    "bug_barrier_in_branch.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"KernelError: kernel andrea_embed_backward_position \(divergent barrier, \w+ schedule\)"
        r".*divergent __syncthreads\(\): thread \(\d+,0,0\) waits at bug_barrier_in_branch\.cu:"
        r"(60|65) but thread \(\d+,0,0\) waits at bug_barrier_in_branch\.cu:(60|65)"),
    "bug_barrier_in_column_loop.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"KernelError: kernel andrea_embed_backward_position \(barrier not reached by every "
        r"thread, \w+ schedule\).*__syncthreads\(\) at bug_barrier_in_column_loop\.cu:54 is not "
        r"reached by every thread of the block"),
    "bug_uninit_shared.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"KernelError: kernel andrea_embed_backward_position: read of never-written shared "
        r"memory at byte offset \d+ at bug_uninit_shared\.cu:58"),
    "bug_warp_one_lane_per_batch.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"grad_position\[:T\]\[\d+, \d+\]=\S+, but should be"),
    "bug_blockdim_as_dmodel.cu": (
        "embed_adds_position_rows", "EMB-COMB-01",
        r"(OutOfBoundsError|RaceError): kernel andrea_embed_forward: .*argument 3 \(out\).* "
        r"bug_blockdim_as_dmodel\.cu:27"),
    "bug_ids_as_float.cu": (
        "lookup_selects_row", "EMB-LOOKUP-01", r"out\[[\d, ]*\]=\S+, but should be"),
    "bug_range_check_off_by_one.cu": (
        "out_of_range_ids", "EMB-ERR-01",
        r"lookup\(\) raised OutOfBoundsError\('kernel andrea_lookup: out-of-bounds access to "
        r"argument 0 \(table\) at bug_range_check_off_by_one\.cu:11"),
    "bug_bad_stores_id.cu": (
        "out_of_range_ids", "EMB-ERR-01",
        r"lookup\(\) raised KernelContractError\('andrea_lookup \(grid \d+, block \d+\) set "
        r"\*bad = -1, which is not a flat index into the \d+ ids; the first out-of-range id is at "
        r"flat index \d+ .*record the index i of the id, not the id itself"),
    "bug_assert_ids.cu": (
        "out_of_range_ids", "EMB-ERR-01",
        r"KernelError\('kernel andrea_lookup \(trap, \w+ schedule\): block \(\d+,0,0\) thread "
        r"\(\d+,0,0\): assert\(id >= 0 && id < num_rows\) failed at bug_assert_ids\.cu:7"),
    "bug_warp_batch_no_final_barrier.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01",
        r"RaceError: kernel andrea_embed_backward_token: data race on shared memory at byte "
        r"offset \d+ at lines bug_warp_batch_no_final_barrier\.cu:(47|5[0-9]|6[0-9]) and "
        r"bug_warp_batch_no_final_barrier\.cu:(47|5[0-9]|6[0-9])"),
    "bug_atomic_out_of_bounds.cu": (
        "backward_errors", "BWD-ERR-01",
        r"OutOfBoundsError\('kernel andrea_embed_backward_token: out-of-bounds access to argument "
        r"2 \(grad_token\) at bug_atomic_out_of_bounds\.cu:44: byte offset"),
    "bug_atomic_then_overwrite.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01",
        r"RaceError: kernel andrea_embed_backward_token: data race on argument 2 \(grad_token\), "
        r"element \d+ at lines bug_atomic_then_overwrite\.cu:5[23] and "
        r"bug_atomic_then_overwrite\.cu:5[23]: .*updates it with an atomic"),
    "bug_store_races_atomic.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"RaceError: kernel andrea_embed_backward_position: data race on argument 1 "
        r"\(grad_position\), element \d+ at lines bug_store_races_atomic\.cu:6[23] and "
        r"bug_store_races_atomic\.cu:6[23]: .*updates it with an atomic"),
    "bug_shared_atomic_no_barrier.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"RaceError: kernel andrea_embed_backward_position: data race on shared memory at byte "
        r"offset 0 at lines bug_shared_atomic_no_barrier\.cu:6[67] and "
        r"bug_shared_atomic_no_barrier\.cu:6[67]: .*updates it with an atomic"),
    "bug_block_scope_atomic.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01",
        r"RaceError: kernel andrea_embed_backward_token: data race on argument 2 \(grad_token\), "
        r"element \d+ at line bug_block_scope_atomic\.cu:50: .*updates it with an atomic and .* "
        r"updates it with an atomic, from different blocks, and one of the atomics is block-"),
    "bug_cas_no_retry.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01", r"grad_token\[\d+, \d+\]=\S+, but should be"),
    "bug_warp_synchronous_reduce.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"RaceError: kernel andrea_embed_backward_position: data race on shared memory at byte "
        r"offset \d+ at line bug_warp_synchronous_reduce\.cu:58: block \(\d+,0,0\) thread "
        r"\((\d|[12]\d|3[01]),0,0\) \w+ it and block \(\d+,0,0\) thread \((\d|[12]\d|3[01]),0,0\)"),
    "bug_sort_missing_barrier.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01",
        r"RaceError: kernel andrea_embed_backward_token: data race on shared memory at byte "
        r"offset \d+ at lines? bug_sort_missing_barrier\.cu:1[45]"),
    "bug_dynamic_shared_unsized.cu": (
        "position_gradient_batch_sum", "BWD-POS-01",
        r"KernelError: kernel andrea_embed_backward_position: block \(\d+,0,0\) thread "
        r"\(\d+,0,0\): a null pointer was dereferenced \(the kernel uses extern __shared__ "
        r"memory, but the launch gives it none: use a fixed-size __shared__ array\) at "
        r"bug_dynamic_shared_unsized\.cu:50"),
    "bug_match_any_plain_add.cu": (
        "token_gradient_scatter_add", "BWD-TOK-01",
        r"RaceError: kernel andrea_embed_backward_token: data race on argument 2 \(grad_token\), "
        r"element \d+ at lines? bug_match_any_plain_add\.cu:74"),
    "bug_int32_offset_check.cu": (
        "out_of_range_ids", "EMB-ERR-01",
        r"lookup\(\) raised (OutOfBoundsError|KernelContractError)\('.*andrea_lookup.*\(probe_ids: "
        r"good ids and (\d+), whose row offset \2 \* d_model \(\d+\) = \d+ does not fit a "
        r"32-bit int: computed in int it wraps to \d+, which passes a range check of the offset"),
    "bug_bad_not_smallest.cu": (
        "out_of_range_ids", "EMB-ERR-01",
        r"lookup\(\) raised KernelContractError\('andrea_lookup \(grid \d+, block \d+\) set "
        r"\*bad = \d+, but the first out-of-range id is at flat index \d+"),
}


@pytest.fixture(scope="module")
def spec():
    spec = load_spec()
    _prebuild(spec)
    return spec


def _prebuild(spec) -> None:
    """Build every corpus file for the executor at once, on every core (g++ runs in parallel;
    the builds are cached by content, so the tests below only load them)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from andrea_gpu.executor import BuildError, build
    from andrea_gpu.submission import KernelContract

    check = KernelContract.from_spec(spec).check_source()

    def one(path):
        try:
            build(path.read_text() + check, path.name)
        except BuildError:
            pass  # reported by the test that loads it

    first, *rest = sorted(CORPUS.glob("*.cu"))
    one(first)  # the others can then use the precompiled prelude
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(one, rest))


def _kernel_checks(spec) -> list[str]:
    return [c.id for c in all_checks() if any(spec.clause(cl).group in spec.kernels.groups
                                              for cl in c.clauses)]


def test_the_corpus_is_complete():
    assert len(CORRECT) >= 3
    assert {p.name for p in CORPUS.glob("bug_*.cu")} == set(BUGS)
    for name in BUGS:  # each bug file says what its one bug is
        assert (CORPUS / name).read_text().startswith(f"// BUG ({name[:-3]}): ")


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.name)
def test_correct_kernels_pass_every_kernel_check(path, spec):
    sub = load_kernel_submission(path, backend="cpu", spec=spec)
    chosen = _kernel_checks(spec)
    results = run_checks(sub, spec, profile="dev", select=chosen, target=path.name)
    assert len(results) == len(chosen) >= 15
    bad = [f"{r.check_id}: {r.message}" for r in results if r.status != "passed"]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", sorted(BUGS))
def test_each_bug_fails_its_clause_with_the_right_feedback(name, spec):
    check, clause, pattern = BUGS[name]
    sub = load_kernel_submission(CORPUS / name, backend="cpu", spec=spec)
    (res,) = run_checks(sub, spec, profile="dev", select=[check], target=name)
    assert res.status == "failed" and clause in res.clauses, (res.status, res.message)
    import re
    assert re.search(pattern, res.message or "", re.S), res.message
    said = res.fields.get("error_said")
    if said is None:   # every finding of the executor comes with its template
        assert not re.search(r"(RaceError|OutOfBoundsError|KernelError)", res.message or "")
    else:              # ... and is told in Dutch and Korean too
        for lang in ("nl", "ko"):
            _assert_translated(res, said, lang)


#: English fragments of the executor's findings that a Dutch or Korean report must not show.
ENGLISH = ("data race", "out-of-bounds", "byte offset", "misaligned or impossible", "writes it",
           "reads it", "with an atomic", "block-scoped", "with no __syncthreads",
           "null pointer", "never-written", "schedule",
           "block (", "is not reached", " raised ", "but should")
#: Words Dutch shares with English (argument, element, thread, kernel) but Korean does not.
ENGLISH_KO = ("argument", "element", "thread (", "kernel ")


def _assert_translated(check, said: dict, lang: str) -> None:
    """The report's sentence for `check` in `lang`: every executor sentence in it has a
    translation, and no English fragment of one is left."""
    from graders.grade.formats import check_message
    from graders.grade.i18n import _catalog, translator

    def msgids(s):
        yield s["msgid"]
        for v in s["fields"].values():
            if isinstance(v, dict):
                yield from msgids(v)

    cat = _catalog(lang)
    assert [m for m in msgids(said) if m not in cat] == []
    text = check_message(check, translator(lang))
    assert said["fields"]["kernel"] in text   # the values are there, the words translated
    left = [w for w in ENGLISH + (ENGLISH_KO if lang == "ko" else ()) if w in text]
    assert not left, (lang, left, text)


def test_the_commonest_kernel_bug_loses_points_through_the_grader():
    """A token backward with += instead of atomicAdd, graded in the sandboxed worker."""
    from graders.grade.grading import grade, load_submission
    rep = grade(load_submission(CORPUS / "bug_missing_atomic.cu"), load_spec(), profile="dev",
                limits=fast_limits(), select=["token_gradient_scatter_add"], sandbox=TEST_SANDBOX)
    assert rep["import"]["ok"], rep["import"]
    (chk,) = rep.checks
    assert chk.status == "failed" and rep.score == 0
    assert "data race on argument 2 (grad_token)" in chk.message
    assert "bug_missing_atomic.cu:43" in chk.message
    # the worker's finding reaches the report as a template: told in Dutch and Korean too
    from graders.grade import formats
    _assert_translated(chk, chk.fields["error_said"], "nl")
    _assert_translated(chk, chk.fields["error_said"], "ko")
    nl, ko = formats.text(rep, "nl", width=1000), formats.text(rep, "ko", width=1000)
    assert "raceconditie op argument 2 (grad_token)" in nl and "bug_missing_atomic.cu:43" in nl
    assert "데이터 경쟁" in ko and "bug_missing_atomic.cu:43" in ko
    assert "data race" not in nl + ko


def test_kernel_time_limits_and_hints_speak_of_kernels():
    from graders.conformance.outcome import Cause, FaultKind
    from graders.conformance.runner import CheckResult
    from graders.grade import messages as M
    from graders.grade.grading import KERNEL_CALL_FACTOR, _kernel_hints, kernel_limits
    from graders.grade.sandbox import Limits

    base = Limits()
    lim = kernel_limits(base)
    assert lim.call_timeout == min(base.call_timeout * KERNEL_CALL_FACTOR, base.check_timeout)
    assert lim.startup_timeout > base.startup_timeout and lim.total_timeout == base.total_timeout
    timeout = CheckResult("c", ("X-01",), "failed", cause=Cause.FAULT,
                          details={"fault": str(FaultKind.TIMEOUT)})
    imported = CheckResult("d", ("X-02",), "failed", cause=Cause.IMPORT_ERROR)
    _kernel_hints([timeout, imported])
    assert timeout.hint == M.HINT_TIMEOUT_KERNEL and "__syncthreads" in timeout.hint
    assert "Python" not in timeout.hint
    assert imported.hint == M.IMPORT_HINT_KERNEL


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.cu")), ids=lambda p: p.name)
def test_every_corpus_file_is_valid_cuda_for_the_contract(path):
    """NVRTC for sm_90 with the signature checks, as the grader's worker compiles first: the
    bugs are bugs of behaviour, not of compilation."""
    from andrea_gpu.nvrtc import NvrtcUnavailable
    from andrea_gpu.submission import compile_kernel_source
    try:
        ok, log = compile_kernel_source(path)
    except NvrtcUnavailable as exc:
        pytest.skip(str(exc))
    assert ok, log


#: A bug in one backward kernel, and the checks of the other kernel's clauses (and the backward
#: group's BWD-PURE-01, whose gradients come from the host) that must not be charged with it.
OTHER_KERNEL = {
    "bug_racy_position_sum.cu": ["token_gradient_scatter_add", "token_gradient_zero_rows",
                                 "backward_inputs_not_mutated"],
    "bug_missing_atomic.cu": ["position_gradient_batch_sum", "position_gradient_zero_past_t",
                              "backward_inputs_not_mutated"],
}


@pytest.mark.parametrize("name", sorted(OTHER_KERNEL))
def test_a_kernels_finding_costs_only_its_own_clauses(name, spec):
    """embed_backward runs two kernels: a check of one gradient launches only its kernel (the
    other gradient comes from the host), so a bug in one costs the other nothing."""
    sub = load_kernel_submission(CORPUS / name, backend="cpu", spec=spec)
    results = run_checks(sub, spec, profile="dev", select=OTHER_KERNEL[name], target=name)
    bad = [f"{r.check_id}: {r.message}" for r in results if r.status != "passed"]
    assert not bad, "\n".join(bad)
    own, _, _ = BUGS[name]
    (res,) = run_checks(sub, spec, profile="dev", select=[own], target=name)
    assert res.status == "failed"


def test_one_kernels_finding_through_the_grader():
    """The same through andrea-grade's sandboxed worker (the proxy passes the scope)."""
    from graders.grade.grading import grade, load_submission
    rep = grade(load_submission(CORPUS / "bug_racy_position_sum.cu"), load_spec(),
                profile="dev", limits=fast_limits(), sandbox=TEST_SANDBOX,
                select=["token_gradient_scatter_add", "position_gradient_batch_sum"])
    status = {c["id"]: c["status"] for c in rep["checks"]}
    assert status == {"token_gradient_scatter_add": "passed",
                      "position_gradient_batch_sum": "failed"}, rep["checks"]
