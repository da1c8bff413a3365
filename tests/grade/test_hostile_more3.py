"""Attacks on the grading path's newest shortcuts, by a student who has read its source.

Each file in `tests/attacks/` is one attack class; its docstring says what it tries
and what must happen. Tests that need a worker run it in bubblewrap (skipped where bubblewrap
cannot run: the grader then refuses untrusted code, which test_hostile_sandbox.py checks).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from graders.conformance.sources import FORBIDDEN_PACKAGES
from graders.grade import sandbox

import pytest

from .conftest import LIMITS, grade_path, needs_bwrap
from tests.attacks import CORPUS

MORE3 = CORPUS   # tests/attacks/<threat>/
ROOT = Path(__file__).resolve().parents[2]


def _report(rep: dict, tag: str) -> dict:
    line = next(x for x in rep["submission_output"].splitlines() if x.startswith(tag + " "))
    return json.loads(line.split(" ", 1)[1])


# ----------------------------------------------------------------------------- left-out packages
@needs_bwrap
def test_no_tooling_or_kit_through_the_interpreters_own_package_folders(spec):
    rep = grade_path(MORE3 / "site_leftovers.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["import"]["ok"], rep["import"]
    assert rep["checks"][0]["status"] == "passed"
    got = _report(rep, "SITE-REPORT")
    assert got == {"imported": [], "shown": [], "records": []}, got


def test_the_interpreters_package_folders_are_covered_in_the_sandbox():
    """What the attack above reached: every site-/dist-packages folder inside a folder the
    sandbox binds whole (the interpreter's prefix, /usr) is covered by an empty tmpfs."""
    exe, prefix = sandbox.features._python()
    cmd = sandbox.mounts._bwrap_prefix("bwrap", {}, site=[], disk_bytes=1 << 20)
    covered = {cmd[i + 1] for i, a in enumerate(cmd[:-1]) if a == "--tmpfs"}
    for d in sandbox.mounts._package_folders(["/usr", prefix]):
        assert str(d) in covered or any(c in d.parents for c in map(Path, covered)), d


def _fake_site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    plain = [f"pkg{i}" for i in range(8)]   # most of the folder allowed: it is bound once
    for d in ("numpy", "hypothesis", "_pytest", "mylib-src/mylib", "pytest-9.0.dist-info",
              *plain):
        (site / d).mkdir(parents=True)
        (site / d / "__init__.py").write_text("SECRET = 1\n")
    (site / "evil.pth").write_text("import os\n")
    os.symlink("hypothesis", site / "hyp")
    os.symlink("_pytest", site / "_pytest_compat")
    os.symlink(ROOT / "andrea_ref", site / "tools")
    os.symlink(site / "mylib-src" / "mylib", site / "mylib")
    return site


def test_links_in_site_packages_cannot_bring_in_the_tooling_or_the_kit(tmp_path, monkeypatch):
    site = _fake_site(tmp_path)
    monkeypatch.setattr(sandbox.mounts, "_site_dirs", lambda: [site])
    entries = sandbox.mounts._package_dirs()
    names = sorted(e.name for e in entries)
    allowed = ["mylib", "mylib-src", "numpy"] + [f"pkg{i}" for i in range(8)]
    assert names == allowed, names
    for e in entries:
        assert e.name.split(".")[0] not in FORBIDDEN_PACKAGES
        assert ROOT not in e.resolve().parents and e.resolve() != ROOT
    args = sandbox.mounts._site_args(entries)
    # the real left-out entries are covered where the folder is bound
    assert args[args.index(str(site)) + 1] == "/sandbox/pkgs/0"   # the folder, bound once
    covered = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--tmpfs"]
    covered += [args[i + 2] for i, a in enumerate(args[:-2]) if a == "--ro-bind"
                and args[i + 1] == "/dev/null"]
    for left in ("hypothesis", "_pytest", "pytest-9.0.dist-info", "evil.pth"):
        assert any(c.endswith("/" + left) for c in covered), (left, args)
    linked = [args[i + 2] for i, a in enumerate(args[:-2]) if a == "--symlink"]
    bound = [args[i + 2] for i, a in enumerate(args[:-2]) if a == "--ro-bind"
             and args[i + 1] != "/dev/null"]
    visible = {Path(p).name for p in linked + bound if p.startswith("/sandbox/site/")}
    assert visible == set(allowed), visible


# ----------------------------------------------------------------------------- the kill at close
@needs_bwrap
def test_a_fork_storm_at_close_time_does_not_outlive_its_worker(tmp_path, spec):
    import csv
    import shutil

    from graders.grade import batch

    from .conftest import CORRECT, leftovers

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(MORE3 / "close_time_storm.py", subs / "mallory.py")
    shutil.copy(CORRECT, subs / "zoe.py")
    csv_path = tmp_path / "scores.csv"
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", csv_path=csv_path,
                    profile="dev", limits=LIMITS, sandbox="bwrap", select=["vector_norm"],
                    progress=False)
    assert leftovers("andrea-hostile-storm", ours_only=False) == []
    rows = {r["submission"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    assert rows["mallory.py"]["vector_norm"] == "passed"
    assert rows["zoe.py"]["vector_norm"] == "passed"


# ----------------------------------------------------------------------------- the arena
def test_views_and_buffers_kept_from_arena_copies_never_change(monkeypatch):
    import numpy as np

    from graders.grade import proxy as px
    from graders.grade.sandbox import choose_mode, prepare

    from .conftest import SANDBOX

    monkeypatch.setattr(px, "ARENA_BYTES", 4 << 20)     # two 1.6 MB arrays fit: regions reused
    sc = prepare({"m.py": (MORE3 / "arena_keep_buffers.py").read_bytes()}, "m.py")
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
