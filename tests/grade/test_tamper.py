"""Tamper flags (graders/grade/tamper.py): places in a submission's source that reach into the
grader's machinery are shown to the staff, never to the student, and never change a score.

Measured here: not one flag on any correct or buggy corpus file (tests/corpus, the workflow
corpus, examples/submissions), a flag on every attack of tests/attacks/ that reaches into its
worker (``REACHING``, with the kinds each must show), and a reason for every attack that is not
flagged (``NOT_REACHING``): an attack added without being classified fails
``test_every_attack_is_classified``. The scan reads text under bounds (no syntax tree of a
long text, a cap on what is parsed in all, a cap on the places listed).
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from graders.grade import tamper
from graders.grade.grading import load_submission, staff_flags
from graders.grade.tamper import MAX_AST_TOTAL, MAX_FINDINGS, scan_text, tamper_flags
from graders.conformance.sources import MAX_AST_CHARS
from tests.attacks import all_attacks
from tests.corpus import HERE as CORPUS_DIR, buggy_cases, correct_files

ROOT = Path(__file__).resolve().parents[2]


def flags_of(path: Path) -> list[dict]:
    return [f for f in staff_flags(load_submission(path)) if f["kind"] == tamper.KIND]


def rules_of(path: Path) -> set[str]:
    got = flags_of(path)
    return set(got[0]["rules"]) if got else set()


# ----------------------------------------------------------------------------- precision
HONEST = sorted([*correct_files(), *(ROOT / "tests" / "workflow" / "corpus").glob("*.py"),
                 *(ROOT / "examples" / "submissions").glob("*.py")])


def test_the_honest_corpus_is_big_enough():
    assert len(HONEST) >= 35 and any(p.suffix == ".ipynb" for p in HONEST)
    assert any(p.is_dir() for p in HONEST)


@pytest.mark.parametrize("path", HONEST, ids=lambda p: p.name)
def test_no_correct_submission_is_flagged(path):
    assert flags_of(path) == []


@pytest.mark.parametrize("case", buggy_cases(), ids=lambda c: c.name)
def test_no_buggy_submission_is_flagged(case, tmp_path):
    assert flags_of(case.write(tmp_path)) == []


# ----------------------------------------------------------------------------- recall
# The attacks that reach into their worker (its objects, its memory, its processes and
# descriptors, the grader's packages or files by name, code built at run time): each must be
# flagged, with at least these kinds.
REACHING = {
    "purity_substitute.py": {"modules", "grader_name"},       # sys.modules -> _Decoder
    "purity_unhooked.py": {"gc", "modules", "grader_name", "code"},
    "purity_detach.py": {"native"},                           # ctypes + mmap MAP_FIXED
    "arena_tricks.py": {"native", "process"},
    "gc_snoop.py": {"gc", "frames", "modules", "grader_name"},
    "reach_grader.py": {"native", "proc", "process"},
    "sockets_and_syscalls.py": {"native", "process"},
    "nested_userns.py": {"native", "process"},
    "site_leftovers.py": {"modules", "grader_name", "exec"},
    "site_view.py": {"exec"},
    "write_runtime.py": {"modules", "process"},
    "symlink_swap.py": {"process"},
    "gradebook_tamper.py": {"proc"},
    "mount_names.py": {"proc"},
    "memory_across_processes.py": {"process"},
    "memory_in_memfds.py": {"process"},
    "ipc_leftovers.py": {"native"},                         # System V IPC through ctypes
    "hugetlb_pages.py": {"native", "process"},              # mmap, os.memfd_create
    "work_folder_leftovers.py": {"process"},                # os._exit in every call
    "blob_named_many_times.py": {"process"},               # writes forged frames on fd 1
    "json_header_objects.py": {"process"},                 # writes a forged first reply
    "catch_base_exception.py": {"process"},                # signal handlers
    "close_time_storm.py": {"process"},
    "escape_cleanup.py": {"process"},
    "exhaust_fds.py": {"process"},
    "forged_import_error.py": {"process"},
    "forged_reply.py": {"process"},
    "frame_lies.py": {"process"},
    "reply_past_the_bound.py": {"process"},                 # writes its own frame on the pipe
    "stdout_frames.py": {"process"},
    "hidden_crash.py": {"process"},                         # os._exit in every call
    "fill_storage.py": {"grader_name"},                     # writes into /sandbox/runtime
    "proc_host_paths.py": {"proc", "modules"},               # /proc/self/*, modules' files
    "neighbour_region.py": {"proc"},                         # another worker's /proc/<pid>/fd
    "previous_results.py": {"proc"},                         # the grader's /proc/<pid>/cmdline
    "checkout_copy.py": {"proc", "exec"},                    # /proc/<pid>/cmdline, exec(...)
    "batch_neighbours.py": {"proc"},                         # /proc/<pid>/cmdline
    "runtime_validate.py": {"grader_name", "exec"},          # 'andrea_runtime', exec(...)
    # code that is not source (copy detection cannot read it): the loaders and what they load
    "compiled_copy.py": {"compiled"},                        # SourcelessFileLoader
    "pycache_copy.py": {"compiled"},                         # cache_from_source
    "extension_copy.py": {"compiled"},                       # ExtensionFileLoader, 'x.so'
    "zip_copy.py": {"compiled"},                             # zipimport
    "pth_copy.py": {"compiled"},                             # site.addsitedir
    "bytecode_literal.py": {"compiled", "exec"},             # marshal, a bytecode literal
    "native_via_numpy.py": {"native"},                       # numpy.ctypeslib.load_library
    "rule_switched_off.py": {"code"},                        # builtins.__import__.__self__
    "loader_data_copy.py": {"exec"},                         # a SourceFileLoader subclass
}
# Not flagged, and why: they attack with what they return, print, name or write to their own
# files, with the grader's own parsers, or with timing; nothing of the worker is reached.
NOT_REACHING = {
    "hidden_names.py": "file names (the grader's reading of names)",
    "many_files.py": "a folder of many files (the grader's reading of folders)",
    "deep_folders.py": "a chain of nested folders (the grader's reading of folders)",
    "tamper_scan_nesting.py": "nested assignments (the cost of the grader's own scan)",
    "filler_statements.py": "statements that do nothing around a copy (copy detection)",
    "aliased_names.py": "builtins and NumPy names aliased in a copy (copy detection)",
    "similar_crowd.py": "one file handed in by many (the batch's reports)",
    "normalised_names.py": "file names equal once normalised (the batch's reports)",
    "writefile_many.py": "builds a notebook of many %%writefile cells (the grader's reading)",
    "fstring_fields.py": "f-strings of many fields (the cost of the grader's parses)",
    "copy_elsewhere.py": "builds the folders of a copy kept elsewhere (their exec is "
                         "flagged: tests/grade/test_attacks_similarity.py)",
    "see_kit.py": "lists a folder of the file system (what the sandbox shows)",
    "scratch_paths.py": "prints and raises with its own paths (what students read)",
    "site_symlinks.md": "not a submission",
    "huge_values.py": "returns huge values",
    "huge_results_everywhere.py": "returns huge results from every function",
    "huge_list_results.py": "returns huge nested lists",
    "results_at_the_bound.py": "returns results as large as the contract's bound",
    "parse_bomb_helper.py": "a large module for the grader's parsers",
    "many_cells.ipynb": "a notebook for the grader's notebook reader",
    "notebook_backtracking.py": "a long line for the grader's notebook rules",
    "triple_quote_prompts.py": "prompt lines for the grader's notebook cleanup",
    "report_file_names.py": "file names that are the batch's report files",
    "shared_row_names.py": "one file handed in under two names (the gradebook's rows)",
    "huge_results.py": "returns results as large as a reply may be",
    "unicode_line_separator.ipynb": "a line separator for the grader's notebook reader",
    "rng_not_advanced.py": "draws from a copy of its Generator",
    "notebook_cell_shapes.ipynb": "a notebook that cannot be read (no module)",
    "slow_calls.py": "timing",
    "threads_left_running.py": "threads that touch its own arguments after the call",
    "feedback_markup.py": "words in messages",
    "hidden_only_failure.py": "a verdict of a hidden check",
    "hidden_budget.py": "slow calls in a hidden check (timing)",
    "hidden_hang.py": "a busy loop in a hidden check (timing)",
    "hidden_mutates.py": "changes its arguments in a hidden check (judged by the region)",
    "hidden_prints.py": "prints in a hidden check",
    "hidden_raises.py": "raises in a hidden check",
    "inject_output.py": "control characters and markup in output",
    "name_collision.py": "file names",
    "report_bloat.py": "a large report",
    "report_poison.py": "values that are not JSON",
    "copy_evasion.py": "builds copies for the copy flags (tests/workflow)",
    "similarity_bomb.py": "a text for the fingerprints",
    "arena_keep_buffers.py": "keeps views of its own arguments",
    "check_break.py": "values that break a check",
    "fake_exceptions.py": "exception classes of its own",
    "forged_hypothesis_control.py": "exceptions named like Hypothesis's",
    "lying_values.py": "values with lying methods",
    "mutate_args.py": "changes its arguments (judged by the grader's region)",
    "nan_results.py": "NaN results",
    "universal_exception.py": "one exception of every type",
    "wrong_first_answer.py": "answers that depend on how often it is asked",
    # flagged by its data file, not its source: vocab.npy (built by test_attacks_similarity.py)
    # pickles a call of eval, which the pickle scan flags (rule exec, with the file); the source
    # alone, an np.load(allow_pickle=True) of the submission's own data, is honest
    "npy_pickle_copy.py": "its data file is flagged (pickled code), not its source",
    # EVADES the scan (fourth red-team round, strict xfail in test_attacks_similarity.py):
    # code built at run time from data with no exec/eval/compile/decoder named
    "written_module.py": "EVADES: writes a decoded module into its own folder and imports it",
}
KERNELS = "CUDA sources: native code by design, judged by the kernel include filter"


def _attack_names() -> list[str]:
    root = ROOT / "tests" / "attacks"
    return sorted(p.name for t in root.iterdir() if t.is_dir() for p in t.iterdir()
                  if p.is_file() and p.name != "__init__.py")


def test_every_attack_is_classified():
    names = _attack_names()
    unclassified = [n for n in names if n not in REACHING and n not in NOT_REACHING
                    and not n.endswith(".cu")]
    assert unclassified == [], (
        "each attack of tests/attacks/ is either flagged (REACHING, with its kinds) or says "
        "why it reaches nothing of its worker (NOT_REACHING): classify these in "
        "tests/grade/test_tamper.py")
    assert not set(REACHING) & set(NOT_REACHING)
    assert set(REACHING) | set(NOT_REACHING) <= set(names)


@pytest.mark.parametrize("name", sorted(REACHING))
def test_every_attack_that_reaches_into_its_worker_is_flagged(name):
    (path,) = [p for p in all_attacks() if p.name == name]
    got = rules_of(path)
    assert REACHING[name] <= got, (name, got)


@pytest.mark.parametrize("name", sorted(n for n in NOT_REACHING if not n.endswith(".md")))
def test_attacks_that_reach_nothing_are_not_flagged(name):
    (path,) = [p for p in all_attacks() if p.name == name]
    try:
        sub = load_submission(path)
    except Exception:  # noqa: BLE001 - an attack on the reader itself: no grade, no flags
        return
    assert [f for f in staff_flags(sub) if f["kind"] == tamper.KIND] == []


def test_the_bundled_hostile_examples_that_reach_the_worker_are_flagged():
    hostile = ROOT / "examples" / "hostile"
    assert rules_of(hostile / "monkeypatch_numpy.py") == {"patch"}
    assert rules_of(hostile / "segfault.py") == {"native"}
    assert "grader_name" in rules_of(hostile / "import_reference.py")
    assert {"grader_name", "exec"} <= rules_of(hostile / "read_outside.py")
    assert rules_of(hostile / "infinite_loop.py") == set()


# ----------------------------------------------------------------------------- the rules
@pytest.mark.parametrize("code, rule", [
    ("import ctypes", "native"),
    ("from _ctypes import PyObj_FromPtr", "native"),
    ("import mmap as m\nm.mmap(-1, 10)", "native"),
    ("c = __import__('ctypes')", "native"),
    ("import gc\nfor o in gc.get_objects(): pass", "gc"),
    ("from gc import get_referrers as r\nr(1)", "gc"),
    ("import sys\nf = sys._getframe(1)", "frames"),
    ("def f():\n    raise ValueError\ntry:\n    f()\nexcept ValueError as e:\n"
     "    g = e.__traceback__.tb_frame.f_back.f_globals", "frames"),
    ("import inspect\ninspect.stack()", "frames"),
    ("import sys\nsys.settrace(None)", "frames"),
    ("import sys\nsys.modules['numpy'].x = 1", "modules"),
    ("from sys import modules\nm = modules.get('x')", "modules"),
    ("import sys\nsys.meta_path.clear()", "modules"),
    ("s = getattr(__import__('sys'), 'modules')", "code"),
    ("name = 'andrea_runtime.protocol'", "grader_name"),
    ("name = 'graders.grade'", "grader_name"),
    ("p = open('/proc/self/maps').read()", "proc"),
    ("import os\ngraded = os.path.isdir('/sandbox/runtime')", "grader_name"),
    ("import os\ngraded = os.path.exists('/autograder')", "grader_name"),
    ("import os\ngraded = 'ANDREA_GRADE_WORKER' in os.environ", "grader_name"),
    ("import builtins\nbuiltins.len = lambda x: 0", "builtins"),
    ("__builtins__['len'] = None", "builtins"),
    ("import numpy as np\nnp.frombuffer = None", "patch"),
    ("import numpy\nsetattr(numpy, 'array_equal', None)", "patch"),
    ("def f(): pass\ndef g(): return 1\nf.__code__ = g.__code__", "code"),
    ("x = (lambda: 0).__globals__", "code"),
    ("subs = object.__subclasses__()", "code"),
    ("import os\nos._exit(0)", "process"),
    ("import signal\nsignal.signal(15, signal.SIG_IGN)", "process"),
    ("import atexit\natexit.register(print)", "process"),
    ("import os\nos.write(1, b'x')", "process"),
    ("code = input()\nexec(code)", "exec"),
    ("eval(f'{1}+1')", "exec"),
    ("import importlib\nimportlib.import_module(name)", "exec"),
    ("import pickle\npickle.loads(b'cbuiltins\\neval\\n(S\\'1\\'\\ntR.')", "exec"),
    ("import pickle, io\nP = b'\\x80\\x04\\x8c\\x02os\\x8c\\x06system\\x93.'\n"
     "pickle.load(io.BytesIO(P))", "exec"),
    ("import pickle\npickle.loads(b'c' + b'builtins\\nexec\\n' + B)", "exec"),
    ("import pickle, base64\npickle.loads(base64.b64decode(B))", "exec_decoded"),
    ("import marshal\nexec(marshal.loads(b'...'))", "exec"),
    ("import zlib, base64\nexec(zlib.decompress(base64.b64decode(B)))", "exec_decoded"),
    ("import codecs\nsrc = codecs.decode(S, 'rot13')\nexec(src)", "exec_decoded"),
    ("exec(bytes.fromhex(H).decode())", "exec_decoded"),
    ("import lzma as l\nf = compile(l.decompress(D), 'x', 'exec')", "exec_decoded"),
])
def test_each_rule_flags_its_place(code, rule):
    places, parsed = scan_text(code, "m.py")
    assert parsed
    assert rule in {p["rule"] for p in places}, places
    assert all(p["file"] == "m.py" and p["line"] >= 1 for p in places)


@pytest.mark.parametrize("code", [
    "import numpy as np\nx = np.zeros(3)\nnp.random.default_rng(0)",
    "exec('x = 1')",                                        # a literal: nothing hidden
    "import re\np = re.compile(r'\\d+')",                   # not the builtin compile
    "class M:\n    def eval(self): return 1\nM().eval()",   # a method named eval
    '"""Checked by the graders against the course text (andrea_ref style)."""',   # prose
    "import inspect\ninspect.signature(print)",
    "import gc\ngc.collect()",
    "import math, functools, itertools, operator, numbers, warnings",
    "import sys\nprint(sys.version_info, file=sys.stderr)",
    "msg = 'ask the graders'",
    "path = 'data/sandbox/x.npy'; name = 'ANDREA-120M'",
    "import sys\nsys.path.append('..')\nsys.setrecursionlimit(10000)",
    "import pickle\nwith open('t.pkl', 'wb') as f:\n    pickle.dump([1], f)",
    "import pickle\nwith open('t.pkl', 'rb') as f:\n    t = pickle.load(f)",   # judged by data
    "import pickle\nc = pickle.loads(pickle.dumps(blob))",
    "import pickle\nx = pickle.loads(b'\\x80\\x04]\\x94(K\\x01K\\x02e.')",   # a literal list
    "import numpy as np\nv = np.load('v.npy', allow_pickle=True).item()",
    "import warnings\nwarnings.filterwarnings('ignore')",
    "import matplotlib.pyplot as plt\nplt.rcParams['figure.dpi'] = 100",
    "import time, logging\nt = time.perf_counter()\nlogging.getLogger(__name__).info('x')",
    "import numpy as np\nnp.random.seed(0)\nrng = np.random.default_rng(0)",
    "from functools import lru_cache\n@lru_cache\ndef f(n): return n",
    "import os\nif __name__ == '__main__':\n    print(os.getcwd(), os.environ.get('HOME'))",
    "class T:\n    def __init__(self):\n        self.modules = []\n        self.eval_mode = True",
    "import os\np = os.path.join('a', 'b')",
    "import numpy as np\nnp.set_printoptions(precision=3)",
])
def test_ordinary_code_is_not_flagged(code):
    assert scan_text(code, "m.py")[0] == []


def test_a_place_is_named_by_file_and_line_and_listed_once():
    code = "import numpy as np\n\n\nimport sys\nm = sys.modules; n = sys.modules\n"
    (flag,) = tamper_flags([("pkg/helper.py", code)])
    assert flag["kind"] == "grader_tamper" and flag["count"] == 1
    (place,) = flag["places"]
    assert (place["file"], place["line"], place["rule"]) == ("pkg/helper.py", 5, "modules")
    assert place["source"] == "m = sys.modules; n = sys.modules"
    assert "pkg/helper.py, line 5" in flag["message"]


def test_a_notebook_place_is_named_by_cell_and_line(tmp_path):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# hw", "id": "a"},
        {"cell_type": "code", "metadata": {}, "source": "import numpy as np\n", "id": "b",
         "outputs": [], "execution_count": None},
        {"cell_type": "code", "metadata": {}, "id": "c", "outputs": [], "execution_count": None,
         "source": "%matplotlib inline\nimport gc\nobjs = gc.get_objects()\n"}]}
    path = tmp_path / "hw.ipynb"
    path.write_text(json.dumps(nb))
    (flag,) = flags_of(path)
    (place,) = flag["places"]
    assert (place["file"], place["cell"], place["line"], place["rule"]) == (
        "hw.ipynb", 3, 3, "gc")


def test_every_source_file_of_a_folder_is_read(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "submission.py").write_text((CORPUS_DIR / "correct" / "numpy_naive.py")
                                            .read_text())
    (tmp_path / "sub" / "deep.py").write_text("import ctypes\n")
    (tmp_path / "notes.txt").write_text("import sys\nsys.modules.clear()\n")
    (tmp_path / "scratch.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "source": ["x = 1\n", "exec(blob)\n"]}]}))
    (flag,) = flags_of(tmp_path)
    where = {(p["file"], p.get("cell"), p["line"], p["rule"]) for p in flag["places"]}
    assert where == {("sub/deep.py", None, 1, "native"), ("notes.txt", None, 2, "modules"),
                     ("scratch.ipynb", 1, 2, "exec")}


def test_a_reference_copy_run_from_compressed_data_is_flagged_for_what_it_hides():
    """The reference, disguised, compressed and run by exec: copy detection cannot see it
    (the grader never runs submission code in its own process); the tamper flag names the
    exec of decoded data, with its line."""
    import base64
    import zlib

    from graders.grade.similarity import reference_flags
    from tests.workflow.disguise import disguise, reference_as_one_module

    blob = base64.b64encode(zlib.compress(disguise(reference_as_one_module(), "z").encode()))
    text = ("import base64\nimport zlib\n\n_SRC = " + repr(blob.decode()) + "\n"
            "exec(zlib.decompress(base64.b64decode(_SRC)).decode())\n")
    assert reference_flags([("hw.py", text)]) == []
    (flag,) = tamper_flags([("hw.py", text)])
    assert [(p["line"], p["rule"]) for p in flag["places"]] == [(5, "exec_decoded")]


# ----------------------------------------------------------------------------- bounds
def test_a_long_text_is_read_without_a_syntax_tree(monkeypatch):
    parsed = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: (parsed.append(len(text)),
                                                             real(text, *a, **k))[1])
    pad = "x = 1\n" * (MAX_AST_CHARS // 6 + 10)
    text = pad + "import sys\nsys.modules['numpy'] = None\n"
    (flag,) = tamper_flags([("big.py", text)])
    assert parsed == []
    assert {"native", "modules"} >= set(flag["rules"]) and "modules" in flag["rules"]
    assert flag["places"][0]["line"] == text.count("\n") - 1 + 1


def test_what_is_parsed_in_all_is_capped(monkeypatch):
    parsed = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: (parsed.append(len(text)),
                                                             real(text, *a, **k))[1])
    one = "x = 1\n" * (MAX_AST_CHARS // 7) + "import mmap\n"
    parts = [(f"m{i}.py", one) for i in range(12)]
    (flag,) = tamper_flags(parts)
    assert sum(parsed) <= MAX_AST_TOTAL
    assert flag["count"] == 12 and flag["rules"] == ["native"]   # the rest by the text scan


def test_long_attribute_chains_cost_what_their_size_does():
    """Each node of `a.b.b.b...` resolved its whole chain (60 chains of 900: 4 s, quadratic);
    a dotted name is resolved over at most MAX_CHAIN links. CPU time against a peer of as many
    nodes (additions) in the same run: no wall time, no idle machine assumed."""
    import time

    def cpu(text: str) -> float:
        start = time.process_time()
        scan_text(text, "m.py")
        return time.process_time() - start

    chains = ("x = a" + ".b" * 900 + "\n") * 60
    flat = ("x = a" + "+b" * 900 + "\n") * 60
    cpu(flat)                                     # warm up
    assert cpu(chains) < 3 * cpu(flat) + 0.05
    places, _ = scan_text("import ctypes\nx = ctypes" + ".b" * 900 + "\n", "m.py")
    assert (2, "native") in {(p["line"], p["rule"]) for p in places}   # the first links


def test_the_places_listed_are_capped_and_counted():
    text = "".join(f"import ctypes as c{i}\n" for i in range(500))
    (flag,) = tamper_flags([("m.py", text)])
    assert len(flag["places"]) == MAX_FINDINGS and flag["count"] == 500
    assert len(json.dumps(flag)) < 20_000


def test_broken_source_is_read_as_text():
    places, parsed = scan_text("def f(:\n    import ctypes\n", "m.py")
    assert not parsed and [(p["line"], p["rule"]) for p in places] == [(2, "native")]


# ----------------------------------------------------------------------------- not source
def _compiled_files(tmp_path) -> dict[str, bytes]:
    """One file of each kind of code that is not source, as a submission hands it in."""
    import io
    import marshal
    import py_compile
    import zipfile

    (tmp_path / "m.py").write_text("def f():\n    return 42\n")
    py_compile.compile(str(tmp_path / "m.py"), cfile=str(tmp_path / "m.pyc"), doraise=True)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("fastpath.py", "x = 1\n")
    pe = bytearray(b"MZ" + bytes(0x3A) + (0x80).to_bytes(4, "little") + bytes(0x40))
    pe[0x80:0x84] = b"PE\0\0"
    return {
        "fastpath.pyc": (tmp_path / "m.pyc").read_bytes(),
        "notes.dat": (tmp_path / "m.pyc").read_bytes(),            # a .pyc under another name
        "blob.bin": marshal.dumps(compile("x = 1", "<x>", "exec")),  # a marshalled code object
        "libfast.so": b"\x7fELF\x02\x01\x01" + bytes(57),
        "fast.dylib": b"\xcf\xfa\xed\xfe" + bytes(60),
        "fast.pyd": bytes(pe),
        "data.png": b"\x89PNG\r\n\x1a\n" + bytes(8) + archive.getvalue(),  # a zip appended
        "lib.egg": b"not even a zip",
        "setup.pth": b"# a path\n.\nimport os; print('site runs this')\n",
    }


def test_every_file_of_code_that_is_not_source_is_flagged(tmp_path):
    files = _compiled_files(tmp_path)
    places = tamper.file_places(files)
    assert {p["file"] for p in places} == set(files)
    assert {p["rule"] for p in places} == {"compiled"}
    (pth,) = [p for p in places if p["file"] == "setup.pth"]
    assert pth["line"] == 3 and pth["source"].startswith("import os")
    (flag,) = tamper_flags([("hw.py", "x = 1\n")], files)
    assert flag["rules"] == ["compiled"]


def test_honest_data_files_are_not_flagged(tmp_path):
    import io
    import zipfile

    import numpy as np

    npy, npz = io.BytesIO(), io.BytesIO()
    np.save(npy, np.arange(10.0))
    np.savez(npz, a=np.arange(3), b=np.ones(2))
    with zipfile.ZipFile(archive := io.BytesIO(), "w") as z:
        z.writestr("data/table.csv", "a,b\n1,2\n")
    files = {"table.npy": npy.getvalue(), "tables.npz": npz.getvalue(),
             "data.zip": archive.getvalue(), "notes.txt": b"c\r\r\nwindows text\r\n",
             "vocab.json": b'{"a": 1}', "plot.png": b"\x89PNG\r\n\x1a\n" + bytes(64),
             "README.md": b"# My homework\n", "paths.pth": b"# weights, not a site file\n",
             "empty.dat": b"", "c.bin": b"c" + bytes(40), "MZ.txt": b"MZ is a code\n"}
    assert tamper.file_places(files) == []
    assert tamper_flags([("hw.py", "import numpy as np\nt = np.load('table.npy')\n")],
                        files) == []


@pytest.mark.parametrize("code", [
    "from importlib.machinery import SourcelessFileLoader",
    "import importlib.machinery\nL = importlib.machinery.ExtensionFileLoader",
    "import zipimport",
    "import marshal\nc = marshal.loads(b'x')",
    "import _imp",
    "import pkgutil\npkgutil.read_code(open('x', 'rb'))",
    "from importlib import _bootstrap_external",
    "import site\nsite.addsitedir('.')",
    "import importlib.util as u\ns = u.spec_from_file_location('m', path)",
    "import importlib.util as u\ns = u.spec_from_file_location('m', 'fast.pyc')",
    "import runpy\nrunpy.run_path('fast.pyc')",
    "import importlib.util as u\np = u.cache_from_source('helper.py')",
    "p = 'helper.cpython-311.pyc'",
    "p = '__pycache__'",
    "lib = 'fastpath.so'",
    "CODE = b'\\xe3" + "\\x00" * 24 + "\\xf3" + "\\x00" * 20 + "'",    # marshalled code
    "CODE = '\\xa7\\r\\r\\n" + "\\x00" * 12 + "c" + "\\x00" * 30 + "'",  # a .pyc as a str
])
def test_the_compiled_rule(code):
    (flag,) = tamper_flags([("hw.py", code)])
    assert "compiled" in flag["rules"], flag


@pytest.mark.parametrize("code", [
    "import importlib.util as u\ns = u.spec_from_file_location('helper', 'helper.py')",
    "import runpy\nrunpy.run_path('helper.py')",
    "with open('weights.npz', 'rb') as f:\n    data = f.read()",
    "name = 'also'\nsuffix = '.py'",
    "b = b'\\x00\\x01' * 20",
])
def test_the_compiled_rule_leaves_honest_code_alone(code):
    assert tamper_flags([("hw.py", code)]) == []


# ----------------------------------------------------------------------------- pickled data
def test_the_pickle_scan_is_bounded_and_fails_closed():
    """Data files are read for pickles in linear time under caps (pickletools opcodes); what a
    cap leaves unread is flagged rather than passed: a pickle longer than the opcode budget, an
    archive member that unpacks past the byte cap (a zip bomb), padding files that spend the
    budget of files not named as pickles. Honest data (text, numbers, a zip of CSV files, an
    .npz of numbers compressed a thousandfold) is read without a flag."""
    import io
    import pickle
    import time
    import zipfile

    import numpy as np

    from graders.grade.tamper import pickle_places

    honest = {"notes.txt": b"country,pop\nNL,17.5\n" * 5000, "w.bin": bytes(range(256)) * 4096}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.csv", b"1.0,2.0\n" * 10000)
    honest["tables.zip"] = buf.getvalue()
    buf = io.BytesIO()
    np.savez_compressed(buf, z=np.zeros((2000, 2000)))
    honest["zeros.npz"] = buf.getvalue()
    started = time.process_time()
    assert pickle_places(honest) == []

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("m.pkl", bytes(40 << 20))
    (place,) = pickle_places({"bomb.npz": buf.getvalue()})
    assert place["rule"] == "exec" and "larger than the scan reads" in place["code"]
    (place,) = pickle_places({"pad.txt": b"(" * 300_000})        # valid opcodes all along
    assert place["file"] == "pad.txt" and "?" in place["code"]
    padding = {f"p{k:02}.txt": pickle.dumps([0] * 30_000, protocol=0) for k in range(40)}
    padding["z.txt"] = pickle.dumps(print, protocol=0)
    assert pickle_places(padding), "padding spent the budget and the last file was not read"
    assert time.process_time() - started < 60      # linear: a few seconds on a loaded machine
