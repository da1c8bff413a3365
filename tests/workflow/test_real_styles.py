"""Real code graded fairly, and the self-check saying what the grader says: submissions in the
styles real students and libraries write (tests/corpus/correct/: a torch-like Module class with
module-level wrappers, lambdas and functools.partial as contract functions, decorators reading
inspect.signature, singledispatch, rng passed through np.random.default_rng, full-size tables
and an argparse __main__ block at import; tests/workflow/real_styles/: the corpus's base saved
on Windows (BOM, CRLF, tabs), developed by trial in a notebook (drafts redefined, __future__ in
a later cell, %timeit, `x = !ls`, `name?`), as an nbformat 3 notebook and a notebook saved on
Windows, and global debug settings (np.seterr(all='raise'), warnings as errors, print
options), which the kit must survive in the student's own process; kernels with warp-level
id batches (__ballot_sync, __shfl_sync) and with the host harness they were tested with) get
full marks from
andrea-conform and andrea-grade (bubblewrap where it runs) with the same verdict on every
check. A kernel file NVRTC rejects (a helper without __device__, an unguarded main()) is
refused by both with NVRTC's log and a hint that names host code, where the kit used to build
it with g++ alone and say "conforms".

Buggy variants of those styles, one per bug class students make (positions from 1, a position
slice off by one, tied tables counted once, std 0.02 and 1/d, float64 out of the backward and
the init, += into the caller's token table), each fail exactly the checks of their bug, with the
cause and hint that name it, in the kit and the grader alike.

Every correct file is also in tests/conformance/test_corpus.py (in-process, every check). Here,
by default a sample (a module, a notebook, the debug settings, the kernels) goes through both
tools; ANDREA_ALL_STYLES=1 takes every file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graders.conformance import hints
from graders.grade import messages as M
from graders.grade.grading import grade, load_submission
from spec import load_spec
from tests.corpus import HERE as CORPUS
from tests.helpers import TEST_SANDBOX

ROOT = Path(__file__).resolve().parents[2]
STYLES = Path(__file__).resolve().parent / "real_styles"
KERNELS = ROOT / "tests" / "gpu" / "kernels" / "submissions"
CORRECT = [CORPUS / "correct" / n for n in (
    "torch_module_style.py", "lambdas_and_partials.py", "rng_passthrough_take.py",
    "main_block_full_size.py", "decorators_signature.py")] + [STYLES / n for n in (
    "windows_tabs_crlf_bom.py", "notebook_iterative_redefinitions.ipynb",
    "notebook_nbformat3.ipynb", "notebook_windows_bom_tabs.ipynb", "global_debug_settings.py")]
# the format variants of tests/corpus/correct/numpy_naive.py (its code, saved on Windows, as an
# old notebook, developed by trial) live here: in the corpus the copy flags would rightly pair
# them with it (tests/grade/test_attacks_similarity.py: no honest pair is flagged)
OWN = [p for p in CORRECT if p.parent == STYLES and p.name != "global_debug_settings.py"]
SAMPLE = {"notebook_iterative_redefinitions.ipynb", "global_debug_settings.py"}
ALL = os.environ.get("ANDREA_ALL_STYLES") == "1"
KERNEL_SELECT = ["lookup_selects_row", "embed_adds_position_rows", "out_of_range_ids",
                 "token_gradient_scatter_add", "position_gradient_batch_sum"]
KERNEL_SAMPLE = {"correct_warp_shfl_ids.cu": ["out_of_range_ids", "token_gradient_scatter_add"]}


def _kit(path: Path, select=None) -> tuple[int, dict | None, str]:
    """andrea-conform --format json in a process of its own, as a student runs it (a
    submission's global settings stay in its process)."""
    argv = [str(path), "--format", "json", "--profile", "dev",
            *sum((["--select", s] for s in select or ()), [])]
    proc = subprocess.run([sys.executable, "-m", "graders.conformance.cli", *argv],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    data = json.loads(proc.stdout) if proc.returncode in (0, 1) else None
    return proc.returncode, data, proc.stderr


def _grade(path: Path, select=None):
    return grade(load_submission(path), load_spec(), profile="dev", sandbox=TEST_SANDBOX,
                 select=select)


def _same_verdicts(data: dict, rep) -> dict:
    kit = {r["check_id"]: (r["status"], r["cause"]) for r in data["results"]}
    graded = {c["id"]: (c["status"], c["cause"]) for c in rep["checks"]}
    assert kit == graded, {k: (kit.get(k), graded.get(k)) for k in set(kit) | set(graded)
                           if kit.get(k) != graded.get(k)}
    return kit


def test_the_styles_are_in_the_corpus():
    for path in CORRECT:
        assert path.is_file(), path
    raw = (STYLES / "windows_tabs_crlf_bom.py").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n\t" in raw      # git kept it as written


@pytest.mark.parametrize("path", OWN, ids=lambda p: p.name)
def test_the_format_variants_pass_every_check(path):
    """In process, as tests/conformance/test_corpus.py runs the corpus (these are not in it)."""
    from graders.conformance.runner import load_impl, run_checks

    results = run_checks(load_impl(path), load_spec(), profile="dev")
    bad = [(r.check_id, r.message) for r in results if r.status.value not in ("passed", "skipped")]
    assert not bad


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.name)
def test_correct_styles_get_full_marks_from_both(path):
    if not ALL and path.name not in SAMPLE:
        pytest.skip("sampled: ANDREA_ALL_STYLES=1 grades every style")
    rc, data, err = _kit(path)
    rep = _grade(path)
    assert rc == 0 and data is not None, err[-2000:]
    kit = _same_verdicts(data, rep)
    assert {v for v in kit.values()} <= {("passed", None), ("skipped", "optional_absent")}
    assert rep["score"] == rep["max_score"] == 100, [
        (c["id"], c["message"]) for c in rep["checks"] if c["problem"]]
    assert not rep["flags"], rep["flags"]                 # honest code is never flagged


@pytest.mark.parametrize("name", ["correct_warp_shfl_ids.cu", "correct_host_main_guarded.cu"])
def test_production_style_kernels_pass_both(name):
    """Every check of both in-process: tests/gpu/test_gpu_kernel_corpus.py."""
    pytest.importorskip("andrea_gpu.nvrtc")
    if not ALL and name not in KERNEL_SAMPLE:
        pytest.skip("sampled: ANDREA_ALL_STYLES=1 grades every style")
    select = KERNEL_SELECT if ALL else KERNEL_SAMPLE[name]
    rc, data, err = _kit(KERNELS / name, select)
    rep = _grade(KERNELS / name, select)
    assert rc == 0 and data is not None, err[-2000:]
    kit = _same_verdicts(data, rep)
    assert set(kit.values()) == {("passed", None)}


@pytest.mark.parametrize("name, says", [
    ("host_helper_not_device.cu", "host functions are not allowed in JIT mode"),
    ("host_main_unguarded.cu", 'identifier "cudaMalloc" is undefined'),
])
def test_host_code_in_a_kernel_file_is_refused_by_both_with_the_reason(name, says):
    """NVRTC compiles a kernel file for the GPU and g++ for the CPU executor; g++ takes host
    code that NVRTC refuses. The grader's worker compiles with NVRTC first; the kit built with
    g++ only and said "conforms" (host_helper_not_device.cu: 37 passed) where the grader scored
    0/60. Both now refuse it, with NVRTC's log and the hint that names host code."""
    from andrea_gpu.nvrtc import NvrtcUnavailable, compile_source

    try:
        compile_source("", "probe.cu", "sm_90")
    except NvrtcUnavailable as exc:
        pytest.skip(f"NVRTC: {exc}")
    rc, data, err = _kit(STYLES / name, ["lookup_selects_row"])
    rep = _grade(STYLES / name, ["lookup_selects_row"])
    assert rc == 2 and data is None, (rc, err[-2000:])
    assert rep["import"]["error"]["type"] == "CompileError"
    detail = M.import_detail(rep["import"], kernel=True)
    assert says in detail and says in err
    assert detail.splitlines()[0] in err and detail.splitlines()[-1] in err, (detail, err)
    assert hints.KERNEL_HOST_CODE in err
    (check,) = rep.checks
    assert check.hint == M.HINT_KERNEL_HOST_CODE


# name -> (correct file it edits, the text replaced, its replacement, the checks it fails,
#          (the check that names the bug, its cause, its hint, a regex of its message))
BUGGY = {
    "positions_from_one_module_class": (
        "torch_module_style.py", "pos = np.arange(T)", "pos = np.arange(1, T + 1)",
        {"embed_adds_position_rows", "embed_keeps_float32", "embed_not_permutation_equivariant",
         "embed_shapes", "forward_pass_at_real_size", "spec_sizes_accepted"},
        ("embed_adds_position_rows", "raised", hints.RAISED,
         r"^embed\(\) raised IndexError: token id out of range")),
    "position_slice_off_by_one_lambdas": (
        "lambdas_and_partials.py", "+ position_table[:_t(np.asarray(token_ids), len(position_table))])",
        "+ position_table[1:_t(np.asarray(token_ids), len(position_table)) + 1])",
        {"embed_adds_position_rows", "embed_not_permutation_equivariant", "embed_shapes",
         "forward_pass_at_real_size", "spec_sizes_accepted"},
        ("embed_not_permutation_equivariant", "wrong_value", hints.POSITION_ROWS,
         r"the output ignores positions")),
    "tied_count_decorators": (
        "decorators_signature.py",
        "    return token_embedding_params(vocab_size, d_model) + position_embedding_params(\n"
        "        context_length, d_model)",
        "    # tied: the output projection reuses the token table (GPT-2)\n"
        "    return token_embedding_params(vocab_size, d_model)",
        {"embedding_layer_params", "parameter_shares"},
        ("embedding_layer_params", "wrong_value", None,
         r"embedding_params\(\.\.\.\)=6,488,832, but should be 7,275,264")),
    "std_002_passthrough": (
        "rng_passthrough_take.py", "rng.normal(0.0, cols ** -0.5, size=(rows, cols))",
        "rng.normal(0.0, 0.02, size=(rows, cols))", {"init_mean_and_std"},
        ("init_mean_and_std", "wrong_value", hints.INIT_SCALE, r"^std=0\.0199")),
    "std_one_over_d_module_class": (
        "torch_module_style.py", "std = 1.0 / math.sqrt(self.embedding_dim)",
        "std = 1.0 / self.embedding_dim", {"init_mean_and_std"},
        ("init_mean_and_std", "wrong_value", hints.INIT_SCALE, r"^std=0\.2")),
    "float64_backward_script": (
        "main_block_full_size.py", "for j in range(d)], axis=1).astype(np.float32)",
        "for j in range(d)], axis=1)", {"gradient_shapes"},
        ("gradient_shapes", "wrong_value", hints.DTYPE,
         r"^grad_token\.dtype=float64, but should be float32")),
    "float64_init_decorators": (
        "decorators_signature.py",
        "z = rng.standard_normal((int(num_rows), int(d_model)), dtype=np.float32)\n"
        "    z *= np.float32(1.0 / math.sqrt(d_model))",
        "z = rng.standard_normal((int(num_rows), int(d_model)))\n"
        "    z *= 1.0 / math.sqrt(d_model)", {"init_shape_and_dtype"},
        ("init_shape_and_dtype", "wrong_value", hints.DTYPE,
         r"^table\.dtype=float64, but should be float32")),
    "inplace_add_into_token_table": (
        "rng_passthrough_take.py",
        "    out = np.take(token_table, ids, axis=0)\n"
        "    np.add(out, position_table[:seq_len], out=out)\n    return out",
        "    token_table[ids] += position_table[:seq_len]\n    return token_table[ids]",
        {"embed_adds_position_rows", "embed_not_permutation_equivariant", "inputs_not_mutated"},
        ("inputs_not_mutated", "wrong_value", hints.MUTATION,
         r"^embed\(\) changed its input in place \(token_table\)")),
}
EDITED = {"positions_from_one_module_class": "embed", "position_slice_off_by_one_lambdas": "embed",
          "tied_count_decorators": "embedding_params", "std_002_passthrough": "init_table",
          "std_one_over_d_module_class": "init_table", "float64_backward_script": "embed_backward",
          "float64_init_decorators": "init_table", "inplace_add_into_token_table": "embed"}
BUGGY_SAMPLE = {"std_002_passthrough", "inplace_add_into_token_table"}


def _buggy(name: str, folder: Path) -> Path:
    base, old, new, *_ = BUGGY[name]
    text = (CORPUS / "correct" / base).read_text(encoding="utf-8-sig")
    assert text.count(old) == 1, name
    path = folder / f"{name}.py"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_each_bug_in_a_real_style_is_named(name, tmp_path):
    """In process (every check of the functions the edit touches): exactly the bug's checks
    fail, and the one that names it says so with its cause and hint."""
    import re

    from graders.conformance.runner import load_impl, run_checks

    from graders.conformance.registry import all_checks

    *_, fails, (check, cause, hint, said) = BUGGY[name]
    # the checks of the contract function the edit is in: the others call only code that the
    # correct file passes every check with
    edited = {EDITED[name]}
    select = [c.id for c in all_checks() if set(c.requires) & edited]
    results = run_checks(load_impl(_buggy(name, tmp_path)), load_spec(), profile="dev",
                         select=select)
    failed = {r.check_id for r in results if r.status.value not in ("passed", "skipped")}
    assert failed == fails, sorted(failed ^ fails)
    (r,) = [r for r in results if r.check_id == check]
    assert (r.cause, r.hint) == (cause, hint), (r.cause, r.hint, r.message)
    assert re.search(said, r.message), r.message


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_the_kit_and_the_grader_name_each_bug_alike(name, tmp_path):
    if not ALL and name not in BUGGY_SAMPLE:
        pytest.skip("sampled: ANDREA_ALL_STYLES=1 grades every style")
    *_, fails, (check, cause, hint, said) = BUGGY[name]
    path = _buggy(name, tmp_path)
    select = sorted(fails | {"lookup_selects_row"})
    rc, data, err = _kit(path, select)
    rep = _grade(path, select)
    assert rc == 1 and data is not None, err[-2000:]
    kit = _same_verdicts(data, rep)
    assert {k for k, v in kit.items() if v[0] != "passed"} == fails
    (graded,) = [c for c in rep["checks"] if c["id"] == check]
    (mine,) = [r for r in data["results"] if r["check_id"] == check]
    assert graded["message"] == mine["message"] and graded["hint"] == mine["hint"] == hint


def test_the_kit_says_when_it_could_not_compile_for_the_gpu(monkeypatch, capsys):
    """Where NVRTC is missing (the kit without its gpu extra) the kit builds for the CPU
    executor only and says so, since the grader's NVRTC compile may refuse what g++ takes."""
    from andrea_gpu import nvrtc
    from graders.conformance.cli import main
    from graders.conformance.messages import MSG_NO_NVRTC

    def unavailable(*args, **kwargs):
        raise nvrtc.NvrtcUnavailable("libnvrtc not found")

    monkeypatch.setattr(nvrtc, "compile_source", unavailable)
    capsys.readouterr()
    rc = main([str(STYLES / "host_helper_not_device.cu"), "--format", "json", "--profile", "dev",
               "--select", "lookup_selects_row"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["notes"] == [MSG_NO_NVRTC]        # built by g++: it ran
    capsys.readouterr()
    monkeypatch.undo()
    assert main([str(KERNELS / "correct_thread_per_row.cu"), "--format", "json", "--profile",
                 "dev", "--select", "lookup_selects_row"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == []
