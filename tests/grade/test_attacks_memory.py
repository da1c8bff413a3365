"""Attacks on the host's and the grader's memory (tests/attacks/memory/): the submission's
processes and memfds together, user namespaces (a tmpfs beyond the quota), gc snooping, a
helper module whose syntax tree would be gigabytes, a reply that names one blob many times.

Each file of `tests/attacks/memory/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graders.grade import sandbox
from tests.attacks import CORPUS

from .attacking import grade_attack, printed_report, vm_hwm_mib
from .conftest import LIMITS, grade_path, needs_bwrap


@needs_bwrap
def test_gc_snoop(spec):
    rep, got = grade_attack("gc_snoop", spec, ["lookup_selects_row"])
    assert got["lookup_selects_row"]["status"] == "failed"
    assert "kit modules: []; candidates: 0" in rep["submission_output"]


@needs_bwrap
def test_no_user_namespace_of_its_own_so_no_tmpfs_beyond_the_quota(spec):
    rep = grade_path(CORPUS / "nested_userns.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed"
    line = next(x for x in rep["submission_output"].splitlines()
                if x.startswith("USERNS-REPORT "))
    got = {a["how"]: a["result"] for a in json.loads(line.split(" ", 1)[1])}
    assert got == {"unshare": "refused, errno 1", "clone": "refused, errno 1",
                   "clone3": "refused, errno 38"}, got   # EPERM, EPERM, ENOSYS


def _no_memory_cgroup() -> bool:
    from graders.grade.sandbox import MemoryCgroup

    return MemoryCgroup._find_base() is None


@needs_bwrap
@pytest.mark.xfail(_no_memory_cgroup(), strict=True,
                   reason="no memory cgroup can be made here: the memory limit is RLIMIT_AS "
                          "per process (up to RLIMIT_NPROC of them) and memfd pages count in "
                          "no address space")
def test_the_submissions_processes_together_stay_under_the_memory_limit(spec):
    from tests.helpers import fast_limits

    rep = grade_path(CORPUS / "memory_across_processes.py", spec, select=["vector_norm"],
                     limits=fast_limits(memory_mb=384), sandbox="bwrap")
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed"
    line = next(x for x in rep["submission_output"].splitlines()
                if x.startswith("MEMORY-REPORT "))
    held = json.loads(line.split(" ", 1)[1])
    assert held["children"] + held["memfd"] <= 384, held


@needs_bwrap
@pytest.mark.skipif(_no_memory_cgroup(), reason="no memory cgroup can be made here")
def test_memory_written_into_memfds_is_the_submissions_memory_fault(spec):
    from tests.helpers import fast_limits

    rep = grade_path(CORPUS / "memory_in_memfds.py", spec, select=["vector_norm"],
                     limits=fast_limits(memory_mb=384), sandbox="bwrap")
    (check,) = rep["checks"]
    assert check["status"] != "passed" and check["cause"] == "fault", check
    assert "counting every process it started (memory limit 384 MiB)" in check["message"]
    from graders.grade.sandbox import MemoryCgroup

    base, _ = MemoryCgroup._find_base()                          # every worker's cgroup removed
    assert not list(base.glob(f"andrea-worker-{os.getpid()}-*"))


def _bomb_folder(tmp_path: Path) -> Path:
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("seed", CORPUS / "parse_bomb_helper.py")
    seed = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(seed)
    folder = tmp_path / "bob"
    folder.mkdir()
    (folder / "submission.py").write_text((CORPUS / "parse_bomb_helper.py").read_text())
    (folder / "helper.py").write_text(seed.helper_text())
    return folder


def test_a_huge_helper_module_is_read_in_bounded_memory(tmp_path):
    folder = _bomb_folder(tmp_path)
    hwm, out = vm_hwm_mib(
        "import resource, time\n"
        "from graders.grade.grading import load_submission\n"
        f"sub = load_submission({str(folder)!r})\n"
        "print('MODULE', sub.module, sub.problem)\n"
        "print('CPU', resource.getrusage(resource.RUSAGE_SELF).ru_utime)\n")
    assert "MODULE submission.py None" in out, out
    assert hwm < 400, hwm        # it was 3 GB (the abstract syntax tree of the helper)
    cpu = float(next(x for x in out.splitlines() if x.startswith("CPU ")).split()[1])
    assert cpu < 30, cpu         # about a minute before; a few tenths of a second now


def test_nested_assignments_cost_the_tamper_scan_what_a_flat_file_does(tmp_path):
    """The tamper scan runs in the grader's process for every submission: 120 KB of nested
    named expressions (tamper_scan_nesting.py) against a flat file of the same size, CPU
    time as a ratio (it was about 19 times the flat file's, 25 s for 250 KB; now about 1)."""
    import importlib.util
    import resource

    from graders.grade.grading import load_submission, staff_flags

    spec_ = importlib.util.spec_from_file_location("nesting", CORPUS / "tamper_scan_nesting.py")
    attack = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(attack)
    nested = attack.nested_lines(120_000)
    line = "y = " + "+".join(["x"] * 530) + "\n"
    flat = line * (len(nested) // len(line))
    used = {}
    for name, text in (("flat", flat), ("nested", nested)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "submission.py").write_text((CORPUS / "tamper_scan_nesting.py").read_text()
                                              + text)
        sub = load_submission(folder)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        assert staff_flags(sub) == []
        used[name] = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
    assert used["nested"] < 4 * used["flat"] + 1, used


def test_f_strings_of_many_fields_cost_the_graders_parses_what_plain_helpers_do(tmp_path):
    """fstring_fields.py beside two helpers of 240 KB (one f-string of 80,000 fields each),
    read and flagged as the grader does in its own process, against two plain helpers of the
    same size (a list of names); CPU time as a ratio (the f-strings were parsed in quadratic
    time, several times each)."""
    import importlib.util
    import resource

    from graders.grade.grading import load_submission, staff_flags

    spec_ = importlib.util.spec_from_file_location("fields", CORPUS / "fstring_fields.py")
    attack = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(attack)
    fields = attack.helper_text()
    plain = "# the spec says nothing of this\nX = [" + "a," * (len(fields) // 2 - 20) + "]\n"
    used = {}
    for name, text in (("plain", plain), ("fields", fields)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "submission.py").write_text((CORPUS / "fstring_fields.py").read_text())
        for i in range(2):
            (folder / f"helper{i}.py").write_text(text)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        sub = load_submission(folder)
        assert sub.module == "submission.py" and sub.problem is None
        staff_flags(sub)
        used[name] = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
    assert used["fields"] < 2 * used["plain"] + 1, used   # about 6 times before


def test_without_isolation_nothing_of_the_submission_is_read(tmp_path, monkeypatch, capsys):
    from graders.grade import cli, grading

    folder = _bomb_folder(tmp_path)
    monkeypatch.setattr(sandbox.probe, "_PROBE", {})
    monkeypatch.setattr(sandbox.features, "bwrap_path", lambda: None)

    def never(*a, **k):
        raise AssertionError("the submission was read although isolation is unavailable")

    monkeypatch.setattr(grading, "load_submission", never)
    assert cli.main([str(folder), "--profile", "dev"]) == cli.EXIT_GRADER
    assert capsys.readouterr().err.startswith("andrea-grade: refusing to run untrusted code")


def test_a_blob_named_twice_is_a_malformed_value():
    from andrea_runtime import protocol as P

    blob = bytearray(1 << 20)
    for tree in ({"t": "list", "v": [{"t": "bytes", "i": 0}] * 2},
                 {"t": "list", "v": [{"t": "nd", "i": 0, "dtype": "|u1", "shape": [1 << 20]}] * 2},
                 {"t": "list", "v": [{"t": "bytes", "i": 0},
                                     {"t": "np", "i": 0, "dtype": "|u1"}]}):
        with pytest.raises(P.ProtocolError, match="named twice"):
            P.decode(tree, [blob], untrusted=True)
    # what the grader's own encoder writes still decodes: a blob per value
    blobs: list = []
    import numpy as np

    a = np.arange(6.0)
    tree = P.encode([a, a, b"xy", b"xy"], blobs)
    got = P.decode(tree, blobs, untrusted=True)
    assert got[0].tolist() == got[1].tolist() == a.tolist() and got[2:] == [b"xy", b"xy"]


@needs_bwrap
def test_a_reply_naming_one_blob_many_times_is_malformed(spec):
    rep = grade_path(CORPUS / "blob_named_many_times.py", spec,
                     select=["dot_product", "lookup_selects_row", "vector_norm"],
                     limits=LIMITS, sandbox="bwrap")
    got = {c["id"]: (c["status"], c["message"]) for c in rep["checks"]}
    assert got["vector_norm"][0] == "passed", got
    for cid in ("dot_product", "lookup_selects_row"):
        # refused as malformed (decoded: a blob named twice), or before it is read at all:
        # 16 MiB is more than any result of these calls can take (results.py)
        assert got[cid][0] == "error" and ("unreadable answer" in got[cid][1] or "more than any "
                                           "result for these arguments can take" in got[cid][1]
                                           ), got[cid]


@needs_bwrap
def test_a_first_reply_of_millions_of_small_objects_costs_the_grader_nothing():
    """json_header_objects.py: its forged first reply decoded to 476 MiB of the grader's
    memory; now refused before it is decoded."""
    hwm, out = _grade_hwm("json_header_objects.py", ["vector_norm"])
    assert "CHECK vector_norm not_run not run: your submission could not be imported" in out, out
    assert hwm < 350, hwm             # about 110 MiB; it was about 600


def _grade_hwm(name: str, select: list[str] | None) -> tuple[float, str]:
    """The grader's peak resident memory (MiB) grading attack `name`, and what it printed:
    each check as one line ``CHECK id status message``."""
    return vm_hwm_mib(
        "from graders.grade.grading import grade, load_submission\n"
        "from spec import load_spec\n"
        "from tests.helpers import fast_limits\n"
        "from tests.attacks import CORPUS\n"
        f"rep = grade(load_submission(CORPUS / {name!r}), load_spec(), profile='dev',\n"
        f"            limits=fast_limits(), sandbox='bwrap', select={select!r})\n"
        "rep = rep.to_dict() if hasattr(rep, 'to_dict') else rep\n"
        "for c in rep['checks']:\n"
        "    print('CHECK', c['id'], c['status'], ' '.join(c['message'].split()))\n")


def _checks(out: str) -> dict[str, tuple[str, str]]:
    return {line.split()[1]: (line.split()[2], line.split(" ", 3)[3])
            for line in out.splitlines() if line.startswith("CHECK ")}


LOOKUP_CHECKS = ["lookup_selects_row", "lookup_is_onehot_product",
                 "lookup_permutation_equivariant"]


@needs_bwrap
def test_results_as_large_as_a_reply_keep_the_grader_under_its_memory_target():
    """huge_results.py: lookup returns 376 MB of zeros for every call (5.0 GB of grader memory
    for these three checks, 7.5 GB for the whole grade, before results were sized by the
    contract before they are read: results.py)."""
    hwm, out = _grade_hwm("huge_results.py", LOOKUP_CHECKS)
    got = _checks(out)
    assert sorted(got) == sorted(LOOKUP_CHECKS), out[-2000:]
    for cid, (status, message) in got.items():
        assert status == "failed" and "lookup() returned 47000000 values where" in message, (
            cid, status, message)
    assert hwm < 400, hwm       # 5009 MiB before


# one check of each contract function (the counts, init, lookup, embed, backward, vectors,
# the optional encodings)
EVERY_FUNCTION = ["token_table_params", "position_table_params", "embedding_layer_params",
                  "init_shape_and_dtype", "init_size_errors", "lookup_selects_row",
                  "out_of_range_ids", "embed_adds_position_rows", "token_gradient_scatter_add",
                  "dot_product", "vector_norm", "dot_is_norms_times_cosine",
                  "sinusoidal_fixed_bounded_any_position", "rope_preserves_norms"]


@needs_bwrap
def test_every_function_answering_with_a_whole_reply_is_refused_before_it_is_read():
    """huge_results_everywhere.py: every contract function returns 376 MB of zeros."""
    hwm, out = _grade_hwm("huge_results_everywhere.py", EVERY_FUNCTION)
    got = _checks(out)
    assert sorted(got) == sorted(EVERY_FUNCTION), out[-2000:]
    for cid, (status, message) in got.items():
        assert status == "failed" and "returned 47000000 values where" in message, (
            cid, status, message)
    assert hwm < 400, hwm


@needs_bwrap
def test_results_just_inside_the_bound_keep_the_grader_under_its_memory_target():
    """results_at_the_bound.py: every result is as large as the bound lets through (twice the
    contract's values and 4096 more, float64): read, judged on its shape, and not kept."""
    select = ["init_shape_and_dtype", "init_mean_and_std", "lookup_selects_row",
              "spec_sizes_accepted", "embed_adds_position_rows", "token_gradient_scatter_add",
              "position_gradient_batch_sum", "sinusoidal_fixed_bounded_any_position",
              "rope_preserves_norms", "vector_norm"]
    hwm, out = _grade_hwm("results_at_the_bound.py", select)
    got = _checks(out)
    assert got.pop("vector_norm")[0] == "passed", out[-2000:]
    assert sorted(got) == sorted(set(select) - {"vector_norm"}), out[-2000:]
    for cid, (status, message) in got.items():
        assert status == "failed" and "values where" not in message, (cid, status, message)
    assert hwm < 1536, hwm


@needs_bwrap
def test_results_as_huge_lists_are_sized_as_arrays_are():
    """huge_list_results.py: a million Python floats (16 MiB of JSON) for every call."""
    hwm, out = _grade_hwm("huge_list_results.py", ["lookup_selects_row", "spec_sizes_accepted",
                                                   "embed_adds_position_rows", "vector_norm"])
    got = _checks(out)
    assert got.pop("vector_norm")[0] == "passed", out[-2000:]
    for cid, (status, message) in got.items():
        assert status == "failed" and "returned 1052673 values where" in message, (
            cid, status, message)
    assert hwm < 400, hwm


@needs_bwrap
def test_a_reply_longer_than_the_calls_bound_is_not_read():
    """reply_past_the_bound.py: the submission writes its own frame of 300 MiB for a lookup."""
    hwm, out = _grade_hwm("reply_past_the_bound.py", ["lookup_selects_row", "vector_norm"])
    got = _checks(out)
    assert got["vector_norm"][0] == "passed", out[-2000:]
    status, message = got["lookup_selects_row"]
    assert status == "error" and "more than any result for these arguments can take" in message, (
        status, message)
    assert hwm < 400, hwm


def _filter_loads() -> bool:
    """Whether the worker's seccomp filter installs here (libseccomp): `--sandbox none` then
    uses it too; bubblewrap's probe requires it."""
    import subprocess
    import sys

    code = ("import sys; sys.path.insert(0, %r); import worker; worker.confine()"
            % str(Path(__file__).resolve().parents[2] / "andrea_runtime"))
    return subprocess.run([sys.executable, "-S", "-c", code], capture_output=True,
                          timeout=120).returncode == 0


def _remove_ipc(got: dict) -> None:
    """Remove what the attack made, if anything (a test run before the filter denied it)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for sid in got.get("shm", []):
        libc.shmctl(sid, 0, None)            # IPC_RMID
    for qid in got.get("msg", []):
        libc.msgctl(qid, 0, None)
    for sem in got.get("sem", []):
        libc.semctl(sem, 0, 0)
    if got.get("mq"):
        libc.mq_unlink(b"/andrea_ipc_leftovers")


_MODES = [pytest.param("bwrap", marks=needs_bwrap),
          pytest.param("none", marks=pytest.mark.skipif(
              not _filter_loads(), reason="libseccomp is missing: --sandbox none then runs "
                                          "without the worker's filter"))]


@pytest.mark.parametrize("mode", _MODES)
def test_no_system_v_ipc_object_outlives_its_worker(spec, mode):
    """Sixth red-team round: shared memory segments (written, then detached), a message queue
    and a semaphore set belong to the IPC namespace, not to the worker: with no namespace of
    its own (container, none) 128 MiB stayed on the host after grading. The filter refuses
    each call; the container mode's own test grades the file too."""
    rep = grade_path(CORPUS / "ipc_leftovers.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox=mode)
    got = printed_report(rep, "IPC-REPORT")
    try:
        assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed", rep["checks"]
        eperm = "refused, errno 1"
        assert got == {"shm": [], "msg": [], "sem": [], "shm_refused": eperm,
                       "msg_refused": eperm, "sem_refused": eperm, "mq_refused": eperm}, got
    finally:
        if mode == "none":
            _remove_ipc(got)


@pytest.mark.parametrize("mode", _MODES)
def test_a_workers_files_go_with_it(spec, mode):
    """Sixth red-team round: each worker start's work folder (container, none) stayed until
    the submission was graded, so a worker that writes and crashes left its files for every
    start (on /dev/shm, memory outside every live cgroup). Each is removed once its worker is
    confirmed gone."""
    rep = grade_path(CORPUS / "work_folder_leftovers.py", spec,
                     select=["vector_norm", "dot_product"], limits=LIMITS, sandbox=mode)
    reports = [json.loads(x.split(" ", 1)[1]) for x in rep["submission_output"].splitlines()
               if x.startswith("WORK-REPORT ")]
    assert len(reports) >= 2, rep["submission_output"][:2000]       # a fresh worker per check
    assert all(r["wrote_mib"] == 24 and r["earlier"] == [] for r in reports), reports


@pytest.mark.parametrize("mode", _MODES)
def test_no_pages_of_the_huge_page_pool(spec, mode):
    """Sixth red-team round: MAP_HUGETLB and MFD_HUGETLB take pages of the machine's reserved
    pool, charged to the hugetlb controller and never to the worker's memory cgroup. The
    filter refuses both flags (EPERM, before the empty pool's ENOMEM); plain mappings and
    memfds still work."""
    rep = grade_path(CORPUS / "hugetlb_pages.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox=mode)
    assert rep["import"]["ok"] and rep["checks"][0]["status"] == "passed", rep["checks"]
    got = printed_report(rep, "HUGETLB-REPORT")
    assert got == {"mmap": "refused, errno 1", "memfd": "refused, errno 1",
                   "plain": "works"}, got


def test_a_work_folder_is_removed_whatever_its_worker_left_there(tmp_path):
    """What a dead worker leaves in its folder: folders it closed (mode 0), a link out of the
    folder. Everything goes; the link is removed, never followed."""
    from graders.grade.sandbox.processes import LaunchPlan, _remove_work

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the grader's")
    work = tmp_path / "scratch" / "work-0"
    (work / "a" / "b").mkdir(parents=True)
    (work / "a" / "b" / "held.bin").write_bytes(b"\1" * 4096)
    (work / "out").symlink_to(outside)
    (work / "a" / "b").chmod(0)
    (work / "a").chmod(0)
    plan = LaunchPlan(argv=[], env={}, cwd=str(work), preexec=None, mode="rlimits", uid=None,
                      marker="m", work=work)
    _remove_work(plan)
    assert not work.exists() and (outside / "keep.txt").read_text() == "the grader's"
