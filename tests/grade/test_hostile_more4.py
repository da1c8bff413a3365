"""Attacks of issue 19: a student who has read the grader's source goes after what it trusts
and what it parses in its own process.

Each file in `tests/attacks/` is one attack class; its docstring says what it tries
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
from tests.helpers import load_margin
from tests.attacks import CORPUS

MORE4 = CORPUS   # tests/attacks/<threat>/
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


# ----------------------------------------------------------------------------- grader's parsing
def _vm_hwm_mib(code: str) -> tuple[float, str]:
    """Run `code` in a fresh interpreter; its peak resident memory (VmHWM, MiB) and output."""
    import subprocess
    import sys

    code += ("\nfor line in open('/proc/self/status'):\n"
             "    if line.startswith('VmHWM:'): print('HWM', int(line.split()[1]) / 1024)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    hwm = [float(x.split()[1]) for x in out.stdout.splitlines() if x.startswith("HWM ")]
    assert hwm, (out.stdout[-2000:], out.stderr[-2000:])
    return hwm[0], out.stdout


def _bomb_folder(tmp_path: Path) -> Path:
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("seed", MORE4 / "parse_bomb_helper.py")
    seed = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(seed)
    folder = tmp_path / "bob"
    folder.mkdir()
    (folder / "submission.py").write_text((MORE4 / "parse_bomb_helper.py").read_text())
    (folder / "helper.py").write_text(seed.helper_text())
    return folder


def test_a_huge_helper_module_is_read_in_bounded_memory(tmp_path):
    folder = _bomb_folder(tmp_path)
    hwm, out = _vm_hwm_mib(
        "import resource, time\n"
        "from graders.grade.grading import load_submission\n"
        f"sub = load_submission({str(folder)!r})\n"
        "print('MODULE', sub.module, sub.problem)\n"
        "print('CPU', resource.getrusage(resource.RUSAGE_SELF).ru_utime)\n")
    assert "MODULE submission.py None" in out, out
    assert hwm < 400, hwm        # it was 3 GB (the abstract syntax tree of the helper)
    cpu = float(next(x for x in out.splitlines() if x.startswith("CPU ")).split()[1])
    assert cpu < 30, cpu         # about a minute before; a few tenths of a second now


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


def _backtracking_notebook(tmp_path: Path, n: int) -> Path:
    import nbformat

    nb = nbformat.v4.new_notebook()
    seed = (MORE4 / "notebook_backtracking.py").read_text()
    nb.cells = [nbformat.v4.new_code_cell(seed),
                nbformat.v4.new_code_cell(" " * n + "x" * n)]
    path = tmp_path / "hw.ipynb"
    path.write_text(nbformat.writes(nb))
    return path


def test_a_long_indented_notebook_line_is_read_in_linear_time(tmp_path):
    import resource

    from graders.conformance.sources import _ipython_kind, read_source

    path = _backtracking_notebook(tmp_path, 600_000)   # ten times the attack's line
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    src = read_source(path)
    assert _ipython_kind(" " * 600_000 + "x = get_ipython  ()") == "get_ipython"
    used = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
    assert src.notebook and used < 20, used   # quadratic: days for this line


@needs_bwrap
def test_the_reported_time_counts_the_reading(tmp_path, monkeypatch, capsys):
    """execution_time is from the command's start to its report: reading the submission
    counts (a notebook that took 195 s to read was reported as graded in 19 s)."""
    from graders.grade import cli, grading

    path = _backtracking_notebook(tmp_path, 1000)
    real = grading.load_submission

    def slow(p):
        import time

        time.sleep(2.0)
        return real(p)

    monkeypatch.setattr(grading, "load_submission", slow)
    out = tmp_path / "r.json"
    assert cli.main([str(path), "--profile", "dev", "--select", "vector_norm",
                     "--format", "json", "--output", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["execution_time"] >= 2.0, rep["execution_time"]


# ----------------------------------------------------------------------------- decoded size
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
    rep = grade_path(MORE4 / "blob_named_many_times.py", spec,
                     select=["dot_product", "lookup_selects_row", "vector_norm"],
                     limits=LIMITS, sandbox="bwrap")
    got = {c["id"]: (c["status"], c["message"]) for c in rep["checks"]}
    assert got["vector_norm"][0] == "passed", got
    for cid in ("dot_product", "lookup_selects_row"):
        assert got[cid][0] == "error" and "malformed reply" in got[cid][1], got[cid]


# ----------------------------------------------------------------------------- strict outputs
def _strict_json(text: str):
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _no_raw_controls(text: str, where: str) -> None:
    bad = [c for c in text if c in "\x1b\x9b\u202e" or 0xD800 <= ord(c) <= 0xDFFF]
    assert not bad, (where, bad[:5])


@needs_bwrap
def test_one_students_words_neither_stop_a_batch_nor_reach_any_output_raw(tmp_path, spec):
    import csv
    import shutil
    import sqlite3
    import xml.etree.ElementTree as ET

    from graders.grade import batch, formats

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(MORE4 / "report_poison.py", subs / "eve\x1b[31m.py")
    shutil.copy(ROOT / "examples" / "submissions" / "correct_student.py", subs / "zoe.py")
    out = tmp_path / "out"
    out.mkdir()
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev", limits=LIMITS,
                    sandbox="bwrap", select=["vector_norm", "dot_product", "lookup_selects_row"],
                    progress=False, feedback_dir=out / "fb", report_dir=out / "rep",
                    csv_path=out / "scores.csv")
    fb = sorted(p.name for p in (out / "fb").iterdir())
    assert len(fb) == 2 and any(n.startswith("zoe") for n in fb), fb
    for p in [*(out / "fb").iterdir(), *(out / "rep").glob("*.txt"), *(out / "rep").glob("*.html"),
              out / "scores.csv"]:
        _no_raw_controls(p.read_text(encoding="utf-8"), p.name)
    for p in (out / "rep").glob("*.html"):   # no element of the submission's
        assert "<img" not in p.read_text(encoding="utf-8") or p.name == "summary.html"
    rows = list(csv.DictReader(open(out / "scores.csv", encoding="utf-8")))
    assert {r["submission"] for r in rows} == {"eve\\x1b[31m.py", "zoe.py"}
    con = sqlite3.connect(tmp_path / "gb.sqlite")
    for (text,) in con.execute("SELECT report FROM grades"):
        rep = _strict_json(text)
        _no_raw_controls(text, "gradebook")
        for fmt in formats.FORMATS:
            rendered = formats.render(rep, fmt)
            _no_raw_controls(rendered, fmt)
            if fmt in ("json", "gradescope"):
                _strict_json(rendered)
            if fmt == "junit":
                ET.fromstring(rendered)
    eve = next(_strict_json(t) for (t,) in con.execute("SELECT report FROM grades")
               if "eve" in _strict_json(t)["submission"])
    said = json.dumps(eve)
    assert "\\\\x1b[2J" in said and "\\\\ud800" in said, said[:400]   # shown, as escapes
    assert next(r for r in rows if r["submission"] == "zoe.py")["score"] != ""


def test_a_report_is_strict_json_whatever_it_holds():
    from graders.grade import formats

    rep = {"x": [float("nan"), float("inf"), -float("inf"), 1.5], "\x1b": "a\ud800b",
           "t": (1, 2), 3: "k"}
    text = formats.dumps(rep)
    assert _strict_json(text) == {"x": ["nan", "inf", "-inf", 1.5], "\\x1b": "a\\ud800b",
                                  "t": [1, 2], "3": "k"}
    from graders.conformance.i18n import Translator

    assert Translator("en")("{got:.3f} and {x:,}", got="nan", x=1000) == "nan and 1,000"


# ----------------------------------------------------------------------------- hidden verdicts
def test_nothing_visible_depends_on_a_hidden_result(tmp_path, spec):
    """Two submissions that differ only in an after-the-due-date function: the Gradescope
    summary and the visible tests are the same text."""
    from graders.grade import formats

    from .conftest import SANDBOX

    correct = (ROOT / "examples" / "submissions" / "correct_student.py").read_text()
    bad = tmp_path / "bad.py"
    bad.write_text(correct + "\n" + (MORE4 / "hidden_only_failure.py").read_text())
    select = ["vector_norm", "dot_product", "gradient_shapes", "BWD-TOK-01"]
    shown = []
    for path in (ROOT / "examples" / "submissions" / "correct_student.py", bad):
        rep = grade_path(path, spec, select=select, limits=LIMITS, sandbox=SANDBOX)
        gs = formats.gradescope(rep)
        shown.append((gs["output"].replace(rep["submission"], "X"),
                      [x for x in gs["tests"] if x["visibility"] == "visible"]))
        if path == bad:
            assert any(x["status"] == "failed" for x in gs["tests"]
                       if x["visibility"] == "after_due_date"), gs["tests"]
    assert shown[0] == shown[1], shown
    assert "Nothing went wrong" in shown[0][0] and "HIDDEN-INPUT" not in shown[1][0]
    assert "HIDDEN-INPUT" in rep["submission_output"]    # the staff still see it


# ----------------------------------------------------------------------------- names
def test_names_that_look_alike_never_share_a_feedback_file_or_a_row(tmp_path, spec):
    import csv
    import shutil

    from graders.grade import batch
    from graders.grade.batch_reports import safe_name

    from .conftest import SANDBOX

    subs = tmp_path / "subs"
    subs.mkdir()
    correct = ROOT / "examples" / "submissions" / "correct_student.py"
    shutil.copy(correct, subs / "bob.py")
    for alias in (" bob.py", "\u200bbob.py", "Bob.py"):   # ("bob.py " is no .py file)
        shutil.copy(MORE4 / "name_collision.py", subs / alias)
    out = tmp_path / "out"
    out.mkdir()
    batch.run_batch(subs, spec, jobs=1, db=tmp_path / "gb.sqlite", profile="dev",
                    limits=LIMITS, sandbox=SANDBOX, select=["vector_norm"], progress=False,
                    feedback_dir=out / "fb", report_dir=out / "rep", csv_path=out / "s.csv")
    rows = list(csv.DictReader(open(out / "s.csv", encoding="utf-8")))
    names = [r["submission"] for r in rows]
    assert sorted(names) == sorted(["bob.py", "\\x20bob.py", "\\u200bbob.py", "Bob.py"]), names
    files = {r["submission"]: r["feedback"] for r in rows}
    assert files["bob.py"] == "bob.py.md"
    assert len({f.lower() for f in files.values()}) == 4
    assert sorted(p.name for p in (out / "fb").iterdir()) == sorted(files.values())
    for r in rows:
        text = (out / "fb" / r["feedback"]).read_text(encoding="utf-8")
        assert text.splitlines()[0].replace("\\\\", "\\") == "# " + r["submission"], text[:80]
    by = {r["submission"]: r for r in rows}
    assert by["bob.py"]["vector_norm"] == "passed"
    assert all(by[n]["vector_norm"] == "failed" for n in names if n != "bob.py")
    assert safe_name("bob.py") == "bob.py" and "~" in safe_name("Bob.py")
    from graders.grade.grading import printable_name

    # a name is one line of any report (a line break could forge a row of summary.txt)
    assert printable_name("eve.py\nbob.py: 100 / 100") == "eve.py\\x0abob.py: 100 / 100"


# ----------------------------------------------------------------------------- report size
@needs_bwrap
def test_a_report_lists_are_bounded_and_every_output_is_small(tmp_path):
    """Two notebooks: 300,000 magic lines (whose worker may well be too slow to import
    them: that is the sandbox's business), and 300 cells that raise (norm passes)."""
    import nbformat

    seed = (MORE4 / "report_bloat.py").read_text()
    magic, raising = nbformat.v4.new_notebook(), nbformat.v4.new_notebook()
    magic.cells = [nbformat.v4.new_code_cell(seed),
                   nbformat.v4.new_code_cell("%a\n" * 300_000)]   # (the attack: 1.25 million)
    raising.cells = [nbformat.v4.new_code_cell(seed)] + [
        nbformat.v4.new_code_cell(f"raise ValueError({i})") for i in range(300)]
    paths = [tmp_path / "magic.ipynb", tmp_path / "raising.ipynb"]
    for path, nb in zip(paths, (magic, raising)):
        path.write_text(json.dumps(nb))   # each cell's source one string (nbformat splits it)
        assert path.stat().st_size < 5 << 20
    hwm, out = _vm_hwm_mib(
        "import json\n"
        "from graders.grade import formats\n"
        "from graders.grade.grading import grade, load_submission\n"
        "from spec import load_spec\n"
        "from tests.helpers import fast_limits\n"
        f"for path in {[str(p) for p in paths]!r}:\n"
        "    rep = grade(load_submission(path), load_spec(), profile='dev',\n"
        "                limits=fast_limits(), select=['vector_norm'])\n"
        "    sizes = {f: len(formats.render(rep, f).encode()) for f in formats.FORMATS}\n"
        "    sizes['gradebook'] = len(formats.dumps(rep))\n"
        "    print('OUT', json.dumps({'sizes': sizes, 'status': rep['checks'][0]['status'],\n"
        "          'dropped': len(rep['notebook']['dropped']),\n"
        "          'total': rep['notebook']['dropped_total'],\n"
        "          'cells': len(rep['import'].get('cells', []))}))\n")
    got = [json.loads(x.split(" ", 1)[1]) for x in out.splitlines() if x.startswith("OUT ")]
    assert got[0]["dropped"] <= 100 and got[0]["total"] == 300_000, got[0]
    assert got[1]["status"] == "passed", got[1]
    assert 0 < got[1]["cells"] <= 50, got[1]   # the first 50 (worker and proxy)
    for g in got:
        assert all(n < 5_000_000 for n in g["sizes"].values()), g["sizes"]
    assert hwm < 1536, hwm


# ----------------------------------------------------------------------------- copy detection
def _seed():
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("copy_seed", MORE4 / "copy_evasion.py")
    seed = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(seed)
    return seed


def _reference_copy() -> str:
    from tests.workflow.disguise import disguise, reference_as_one_module

    return disguise(reference_as_one_module(), "v")


def test_a_reference_copy_is_flagged_however_it_is_handed_in(tmp_path):
    from graders.grade.grading import load_submission
    from graders.grade.similarity import python_parts, reference_flags

    copy = _reference_copy()
    variants = {}
    variants["padding.py"] = _seed().padding_line() + copy
    utf7 = tmp_path / "utf7.py"
    utf7.write_bytes(b"# -*- coding: utf-7 -*-\n" + copy.encode("utf-7"))
    folder = tmp_path / "sub"
    (folder / "lib").mkdir(parents=True)
    (folder / "lib" / "__init__.py").write_text("")
    (folder / "lib" / "impl.py").write_text(copy)
    (folder / "submission.py").write_text("from lib.impl import *  # noqa\n")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.py").write_text("x = '''never closed\n")
    (broken / "submission.py").write_text(copy)
    # filler between statements: a ';' after each, and 'pass' statements between them
    lines, ends = copy.splitlines(), _statement_ends(copy)
    indent = [x[:len(x) - len(x.lstrip())] for x in lines]
    variants["semicolons.py"] = "\n".join(x + ";" if n in ends else x
                                          for n, x in enumerate(lines, 1))
    variants["fillers.py"] = "\n".join(f"{x}\n{indent[n - 1]}pass" if n in ends else x
                                       for n, x in enumerate(lines, 1))
    elsewhere = tmp_path / "txt"          # the code kept in a file not named .py, run by exec
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text(copy)
    (elsewhere / "submission.py").write_text('exec(open("notes.txt").read())\n')
    for name, text in variants.items():
        (tmp_path / name).write_text(text)
    for name in ("semicolons.py", "fillers.py"):
        compile(variants[name], name, "exec")       # still valid Python
    for path in [tmp_path / "padding.py", utf7, folder, broken, tmp_path / "semicolons.py",
                 tmp_path / "fillers.py", elsewhere]:
        sub = load_submission(path)
        flags = reference_flags(python_parts(sub.files, sub.module))
        assert flags and flags[0]["kind"] == "reference_copy", path.name


def _statement_ends(source: str) -> set[int]:
    """The lines (1-based) of `source` on which a simple statement ends: a line ending in a
    NEWLINE token whose last token is not ':' (a block's header)."""
    import io
    import tokenize

    toks = list(tokenize.generate_tokens(io.StringIO(source).readline))
    return {t.start[0] for prev, t in zip(toks, toks[1:])
            if t.type == tokenize.NEWLINE and prev.string != ":"}


def test_identical_copies_in_a_small_class_are_flagged_and_no_honest_student_is():
    from graders.grade.grading import load_submission
    from graders.grade.similarity import (PAIR_THRESHOLD, python_parts, reference_flags,
                                          similar_pairs)

    honest = sorted(p for p in (ROOT / "tests" / "corpus" / "correct").iterdir()
                    if p.name != "__init__.py" and not p.name.startswith("."))
    texts = {}
    for p in honest:
        sub = load_submission(p)
        texts[p.name] = python_parts(sub.files, sub.module)
        assert reference_flags(texts[p.name]) == [], p.name   # no honest student flagged
    assert not similar_pairs(texts, PAIR_THRESHOLD), "an honest pair flagged"
    small = dict(list(texts.items())[:8])                      # a class of twelve
    work = texts["numpy_naive.py"]
    for i in range(4):
        small[f"copy{i}.py"] = work
    pairs = {(a, b) for a, b, _ in similar_pairs(small, PAIR_THRESHOLD)}
    copies = [f"copy{i}.py" for i in range(4)]
    for i, a in enumerate(copies):
        for b in copies[i + 1:]:
            assert (a, b) in pairs, (a, b, pairs)


def test_fingerprinting_a_whole_5_mib_file_is_linear(tmp_path):
    """No cap: the padding attack's whole file is read, in bounded CPU time."""
    import resource

    from graders.grade.similarity import fingerprints

    text = _seed().padding_line(200_000)   # a fifth of 5 MiB (the test stays fast)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    prints = fingerprints(text + "\n" + _reference_copy())
    used = resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
    assert len(prints) > 20_000 and used < 60, used


def test_the_similarity_page_stays_small_whatever_the_files_hold():
    """One-line files of 0.8 MB each, flagged as a pair and as reference copies, and sixty
    pairs of 600-line files: similarity.html is under 5 MB (it held each file whole)."""
    from graders.grade.batch_reports import similarity_html

    line = "x = y" + "".join(f".a{i}" for i in range(100_000)) + "\n"
    sources = {"big1.py": [("big1.py", line)], "big2.py": [("big2.py", line)]}
    page = similarity_html([("big1.py", "big2.py", 1.0)], sources,
                           references=[("big1.py", 0.9), ("big2.py", 0.9)])
    assert len(page.encode()) < 5_000_000, len(page.encode())
    code = "".join(f"def f{i}(a, b):\n    return a.k{i} + b * {i}\n" for i in range(300))
    sources = {f"s{i}.py": [(f"s{i}.py", code)] for i in range(120)}
    pairs = [(f"s{2 * i}.py", f"s{2 * i + 1}.py", 1.0) for i in range(60)]
    page = similarity_html(pairs, sources)
    assert len(page.encode()) < 5_000_000, len(page.encode())


def test_a_coding_line_naming_a_slow_codec_costs_the_grader_nothing():
    """punycode's decoder is quadratic (80 KB: 0.3 s; 5 MiB: about twenty minutes): a big
    file declaring it is read as UTF-8 by the grader (Python's own import of it runs in the
    sandbox, under its limits)."""
    import resource

    from graders.grade.similarity import source_text

    data = b"# coding: punycode\nx=1\n-" + b"ba" * 1_500_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    text = source_text(data)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - before < 10
    assert text.startswith("# coding: punycode")
    assert source_text(b"# coding: punycode\nx=1\n-") .startswith("# coding")   # small: decoded


# ----------------------------------------------------------------------------- mount names
@needs_bwrap
def test_the_scratch_folder_is_mounted_under_a_neutral_name(spec):
    from graders.grade.sandbox.scratch import _scratch_parent

    rep = grade_path(MORE4 / "mount_names.py", spec, select=["vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert rep["checks"][0]["status"] == "passed"
    roots = _report(rep, "MOUNT-REPORT")
    for where in ("/sandbox/runtime", "/sandbox/submission"):
        assert "andrea" not in roots[where], roots
        if _scratch_parent() == "/dev/shm":
            assert roots[where].count("/") == 2, roots   # /<random>/runtime
