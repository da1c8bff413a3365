"""Copy detection evaded or overloaded (tests/attacks/similarity/): a reference copy handed in
every way, identical copies in a small class, files that make fingerprinting or the similarity
page slow or huge, a coding line naming a slow codec.

Each file of `tests/attacks/similarity/` is one attack class; its docstring (a notebook: its first
cell, a kernel: its first comment) says what it tries and what must happen. Tests that need
a worker run it in bubblewrap (skipped where bubblewrap cannot run: the grader then refuses
untrusted code, which tests/grade/test_sandbox.py checks for every attack file), with
`select` limited to the checks the attack needs.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.attacks import CORPUS

from .attacking import ROOT
from .conftest import LIMITS, grade_path, needs_bwrap
from graders.grade.similarity import python_parts


def test_a_huge_module_is_fingerprinted_whole_in_linear_time():
    """No token cap (a copy hid behind one: tests/attacks/similarity/copy_evasion.py): the whole text is
    read; a fifth of the attack's size keeps the test fast, the CPU time bounds linearity."""
    import resource

    from graders.grade import similarity

    text = (CORPUS / "similarity_bomb.py").read_text() + "X = " + "1+" * 100_000 + "1\n"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    toks = similarity.tokens(text)
    assert len(toks) > 200_000 and toks[-2:] == ["0", ";"]    # read to its end
    assert toks[:3] == ["import", "V", "as"] or "def" in toks   # the module's own start is read
    prints = similarity.fingerprints(text)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - before < 60
    assert len(prints) >= similarity.MIN_FINGERPRINTS
    assert similarity.containment(prints, prints) == 1.0
    assert similarity.similar_pairs({"a": text, "b": text})   # still compared


def _seed():
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("copy_seed", CORPUS / "copy_evasion.py")
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


def _filler_seed():
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("filler_seed",
                                                   CORPUS / "filler_statements.py")
    seed = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(seed)
    return seed


def test_a_reference_copy_with_statements_that_do_nothing_is_flagged():
    """filler_statements.py: a filler after every statement (it was unflagged with each),
    and the copy behind 70 comments holding a form feed (it was never read)."""
    from graders.grade.similarity import reference_flags

    seed, copy = _filler_seed(), _reference_copy()
    variants = {f"filler {f!r}": seed.with_fillers(copy, f) for f in seed.FILLERS}
    variants["form feeds"] = seed.behind_form_feeds(copy)
    for name, text in variants.items():
        compile(text, name, "exec")               # still valid Python
        flags = reference_flags(text)
        assert flags and flags[0]["kind"] == "reference_copy", name


def test_statements_that_do_nothing_are_left_out_of_the_tokens():
    from graders.grade.similarity import tokens

    body = "def f(a):\n    b = a + 1\n    return b\n"
    assert tokens(body) == tokens("def f(a):\n    b = a + 1\n    0\n    _ = len(a)\n"
                                  "    c = 2\n    c = c + 1\n    x: int\n    return b\n")
    # what runs is kept: a call, an item or an attribute assigned, a name read later, and a
    # module's or a class's names (read from outside)
    for kept in ("    print(a)\n", "    a[0] = 1\n", "    a.x = 1\n", "    b += 1\n"):
        assert tokens(body) != tokens(body.replace("    return b\n", kept + "    return b\n"))
    assert tokens("X = 1\n") == ["V", "=", "0", ";"]
    assert tokens("class A:\n    x = 1\n") != tokens("class A:\n    pass\n")


def test_a_reference_copy_kept_in_a_file_read_as_python_elsewhere_is_flagged(tmp_path):
    """copy_elsewhere.py: the copy in a UTF-7 notes.txt run through compile(), and in a
    notebook beside the graded module run by exec of its cells: neither was compared."""
    import importlib.util

    from graders.grade.grading import load_submission, staff_flags

    spec_ = importlib.util.spec_from_file_location("elsewhere", CORPUS / "copy_elsewhere.py")
    seed = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(seed)
    copy = _reference_copy()
    notes, book = tmp_path / "notes", tmp_path / "book"
    notes.mkdir()
    book.mkdir()
    (notes / "submission.py").write_text(seed.RUN_NOTES)
    (notes / "notes.txt").write_bytes(seed.notes_utf7(copy))
    (book / "submission.py").write_text(seed.RUN_NOTEBOOK)
    (book / "work.ipynb").write_text(seed.notebook(copy))
    for folder in (notes, book):
        flags = staff_flags(load_submission(folder))
        kinds = {f["kind"] for f in flags}
        assert {"reference_copy", "grader_tamper"} <= kinds, (folder.name, flags)
    # a graded notebook's own file is read once, as its module
    (book / "submission.py").unlink()
    sub = load_submission(book)
    assert sub.entry == "work.ipynb"
    assert [f for f, _ in python_parts(sub.files, sub.module, sub.entry)] == [
        "notebook_submission.py"]


def test_a_reference_copy_calling_builtins_and_numpy_under_its_own_names_is_flagged():
    """aliased_names.py: `_b3 = len`, `from numpy import *` (it was unflagged)."""
    import importlib.util

    from graders.grade.similarity import reference_flags

    spec_ = importlib.util.spec_from_file_location("aliased", CORPUS / "aliased_names.py")
    seed = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(seed)
    text = seed.aliased(_reference_copy())
    compile(text, "aliased", "exec")              # still valid Python
    assert "np." not in text and "isinstance(" not in text
    flags = reference_flags(text)
    assert flags and flags[0]["kind"] == "reference_copy", flags


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
    # the grader's own lines of a notebook's module (display(), the IPython stand-in) are no
    # student's code: two honest notebooks shared them and little else (0.75)
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


# The flags' false alarms on honest work (third red-team round). Honest code, so no attack
# file of tests/attacks/ (whose files must each be classified by test_tamper.py): each case is
# a line of an ordinary notebook or module. The scan judges what is reached, not the tool: the
# submission's own modules, its own resources, time and memory, its own data files.
HONEST_IDIOMS = {
    # the notebook idiom for picking up edits of a helper module beside it (both spellings)
    "reload_helper": "import importlib\nimport embedding_impl\nimportlib.reload(embedding_impl)\n",
    "reload_from_import": ("from importlib import reload\nimport helpers.lookup as hl\n"
                           "from helpers import plots\nhl = reload(hl)\nreload(plots)\n"),
    # a course about parameter counts and memory: the student measures the table's memory
    "measure_memory": ("import resource\nimport numpy as np\ntable = np.zeros((8449, 768), "
                       "np.float32)\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"),
    "getrusage_from_import": ("from resource import getrusage, RUSAGE_SELF\n"
                              "peak = getrusage(RUSAGE_SELF).ru_maxrss / 1024\n"),
    "timing": ("import time\nfrom time import perf_counter\nt0 = time.perf_counter()\n"
               "t1 = perf_counter(); ns = time.perf_counter_ns(); cpu = time.process_time()\n"
               "print(f'{t1 - t0:.3f} s')\n"),
    "timeit": "import timeit\nprint(timeit.timeit('sum(range(100))', number=100))\n",
    "tracemalloc": ("import tracemalloc\ntracemalloc.start()\nx = [0] * 1000\n"
                    "current, peak = tracemalloc.get_traced_memory()\ntracemalloc.stop()\n"),
    "getsizeof": "import sys\nimport numpy as np\nprint(sys.getsizeof([1, 2]), np.ones(3).nbytes)\n",
    "import_module_own_helper": ("import importlib\nhelper = importlib.import_module('helper')\n"
                                 "part = importlib.import_module('helpers.part2')\n"),
    "signature_own_function": ("import inspect\ndef lookup(table, ids):\n    return table[ids]\n"
                               "print(inspect.signature(lookup), inspect.getsource(lookup))\n"
                               "assert inspect.isfunction(lookup)\n"),
    "gc_collect": "import gc\ngc.collect()\ngc.disable(); gc.enable()\n",
    "own_data_file": ("import os\nimport numpy as np\nHERE = os.path.dirname(os.path.abspath(__file__))"
                      "\npath = os.path.join(HERE, 'data', 'scale.txt')\n"
                      "if os.path.exists(path):\n    SCALE = float(open(path).read())\n"
                      "w = np.load('weights.npy') if os.path.isfile('weights.npy') else None\n"
                      "print(os.getcwd(), os.listdir('.'))\n"),
    "warnings_filters": ("import warnings\nwarnings.filterwarnings('ignore', category=RuntimeWarning)"
                         "\nwith warnings.catch_warnings():\n    warnings.simplefilter('error')\n"),
    "logging": ("import logging\nlogging.basicConfig(level=logging.INFO)\n"
                "log = logging.getLogger(__name__)\nlog.info('table %s', (3, 4))\n"),
    # fourth red-team round: output captured or silenced by hand, and the shim old notebooks
    # carry for NumPy 1.24's removed aliases (both flagged `patch` before)
    "stdout_by_hand": ("import io\nimport sys\nbuf, old = io.StringIO(), sys.stdout\n"
                       "sys.stdout = buf\nprint('quiet')\nsys.stdout = old\n"
                       "sys.stderr = open('/dev/null', 'w')\n"),
    "numpy_removed_alias": "import numpy as np\nnp.float = float\nnp.int = int\n",
    # the course's model is ANDREA: a student's own names for its sizes (flagged grader_name)
    "andrea_names": ("ANDREA_VOCAB_SIZE = 8449\nANDREA_D_MODEL = 768\n"
                     "CONFIGS = {'ANDREA_SMALL': (8449, 768), 'ANDREA_BASE': (8449, 1024)}\n"),
}


@pytest.mark.parametrize("name", sorted(HONEST_IDIOMS))
def test_honest_notebook_idioms_get_no_tamper_flag(name):
    from graders.grade.tamper import tamper_flags

    assert tamper_flags([("hw.py", HONEST_IDIOMS[name])]) == []


def _pickled_files(payload) -> dict:
    """A submission's data files holding `payload` in every way a notebook saves one: pickle
    (protocols 0-5, and under a name that is not a pickle's), np.save of an object array, a
    .npz member."""
    import io
    import pickle

    import numpy as np

    files = {f"cache{p}.pkl": pickle.dumps(payload, protocol=p) for p in range(6)}
    files["vocab.txt"] = pickle.dumps(payload, protocol=0)
    arr = np.empty((), dtype=object)
    arr[()] = payload
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=True)
    files["vocab.npy"] = buf.getvalue()
    buf = io.BytesIO()
    np.savez(buf, table=np.arange(6.0).reshape(2, 3), meta=np.array([payload], dtype=object))
    files["model.npz"] = buf.getvalue()
    return files


UNPICKLING = ("import pickle\nimport numpy as np\nwith open('vocab.pkl', 'rb') as f:\n"
              "    vocab = pickle.load(f)\ntable = np.load('table.npy')\n"
              "meta = np.load('vocab.npy', allow_pickle=True).item()\n")


def test_unpickling_the_submissions_own_data_file_gets_no_tamper_flag():
    """pickle.load of a cached vocabulary was flagged exec while np.load(allow_pickle=True),
    which unpickles the same way, was not (fourth red-team round): both are judged by the data
    now. Plain containers, NumPy arrays, scalars and dtypes are not flagged."""
    import collections

    import numpy as np

    from graders.grade.tamper import tamper_flags

    assert tamper_flags([("hw.py", UNPICKLING)]) == []
    honest = {"vocab": ["a", "b"], "ids": {"a": 0}, "t": (1, 2.5, None, True, b"x", 1j),
              "s": {1}, "f": frozenset([2]), "od": collections.OrderedDict(a=1),
              "dd": collections.defaultdict(list), "c": collections.Counter("ab"),
              "arr": np.arange(6.0).reshape(2, 3), "i": np.int64(3), "dt": np.dtype("<f4"),
              "rec": np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]),
              "rng": np.random.default_rng(0), "rs": np.random.RandomState(0),
              "ma": np.ma.masked_array([1.0, 2.0], [0, 1])}
    try:
        import scipy.sparse as sp
        m = sp.random(4, 4, density=0.5, format="csr", random_state=0)
        honest.update(csr=m, coo=m.tocoo(), dok=m.todok(), lil=m.tolil(), arr=sp.csr_array(m))
    except ImportError:
        pass
    files = _pickled_files(honest)
    assert tamper_flags([("hw.py", UNPICKLING)], files) == []


class _CallsPrint:
    def __reduce__(self):
        return (print, ("hello",))


def test_a_data_file_that_pickles_a_call_is_flagged_with_the_file():
    from graders.grade.tamper import tamper_flags

    for name, data in _pickled_files({"x": _CallsPrint()}).items():
        (flag,) = tamper_flags([("hw.py", UNPICKLING)], {name: data})
        assert flag["rules"] == ["exec"], (name, flag)
        (place,) = flag["places"]
        assert place["file"] == name and "print" in place["code"], place


# What those tools reach when they are turned on the worker: still flagged.
REACHING_IDIOMS = {
    "reload_numpy": ("import importlib\nimport numpy as np\nimportlib.reload(np)\n", "modules"),
    "reload_stdlib": ("from importlib import reload\nimport json\nreload(json)\n", "modules"),
    "reload_grader": ("import importlib\nimport andrea_runtime.protocol as p\n"
                      "importlib.reload(p)\n", "modules"),
    "reload_unimported": ("import importlib\nfor m in mods:\n    importlib.reload(m)\n",
                          "modules"),
    "reload_expression": ("import importlib\nimportlib.reload(__import__('numpy'))\n", "modules"),
    "setrlimit": ("import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))\n",
                  "process"),
    "getrlimit_from_import": ("from resource import getrlimit\nsoft, hard = getrlimit(9)\n",
                              "process"),
    "patch_numpy_function": ("import numpy as np\nnp.frombuffer = lambda *a, **k: None\n",
                             "patch"),
    "patch_numpy_present_alias": ("import numpy as np\nnp.bool = int\n", "patch"),
    "patch_sys_other": ("import sys\nsys.excepthook = print\n", "patch"),
    "grader_variable": ("import os\nGRADED = os.environ.get('ANDREA_GRADE_WORKER')\n",
                        "grader_name"),
    "grader_variable_prefix": ("import os\nGRADED = any(k.startswith('ANDREA_') "
                               "for k in os.environ)\n", "grader_name"),
}


def test_a_module_read_as_text_keeps_a_students_andrea_names_unflagged():
    """A module too long for a syntax tree (a vocabulary pasted as a literal) is read by the
    text scan, which flagged the identifiers ANDREA_VOCAB_SIZE and ANDREA_D_MODEL as the
    grader's names (fourth red-team round); the grader's own variable still is."""
    from graders.grade.tamper import tamper_flags

    vocab = "VOCAB = [" + ",".join(repr(f"tok{i}") for i in range(40000)) + "]\n"
    honest = HONEST_IDIOMS["andrea_names"] + vocab
    assert len(honest) > MAX_AST_CHARS_FOR_TEST
    assert tamper_flags([("hw.py", honest)]) == []
    (flag,) = tamper_flags([("hw.py", honest + "import os\nG = os.environ.get("
                             "'ANDREA_GRADE_WORKER')\n")])
    assert flag["rules"] == ["grader_name"], flag
    # English in a docstring is not the modules it spells (the text scan flagged 'signal')
    prose = ('"""The gradient signal flows back through the socket, as the graders. The '
             'subprocess of training ends."""\n')
    assert tamper_flags([("hw.py", prose + vocab)]) == []
    for code, rule in [("import os, signal\n", "process"), ("signal.alarm(1)\n", "process"),
                       ("from subprocess import run\n", "process"),
                       ("from graders.grade import x\n", "grader_name")]:
        (flag,) = tamper_flags([("hw.py", prose + code + vocab)])
        assert flag["rules"] == [rule], (code, flag)


@pytest.mark.parametrize("name", sorted(REACHING_IDIOMS))
def test_the_same_tools_turned_on_the_worker_are_flagged(name):
    from graders.grade.tamper import tamper_flags

    code, rule = REACHING_IDIOMS[name]
    (flag,) = tamper_flags([("hw.py", code)])
    assert rule in flag["rules"], flag


from graders.conformance.sources import MAX_AST_CHARS as MAX_AST_CHARS_FOR_TEST  # noqa: E402


# ----------------------------------------------------------------------------- not source
def _reference_module() -> str:
    """The reference's embedding and vectors modules and its argument checks, joined into one
    module (what compiled_copy.py and its kin hand in, compiled or archived)."""
    def body(path: Path) -> str:
        return path.read_text().replace("from andrea_runtime import validate", "").replace(
            "from __future__ import annotations", "")

    return ("from __future__ import annotations\nimport types as _types\n"
            + body(ROOT / "andrea_runtime" / "validate.py")
            + "\nvalidate = _types.SimpleNamespace(**{k: v for k, v in dict(globals()).items() "
              "if callable(v) and not k.startswith('_')})\n"
            + body(ROOT / "andrea_ref" / "embedding.py") + "\n"
            + body(ROOT / "andrea_ref" / "vectors.py"))


def _compile_reference(folder: Path, name: str, unchecked: bool = False) -> None:
    """`name` in `folder`: the reference module compiled for this Python (an unchecked
    hash-based .pyc, PEP 552, with `unchecked`: loaded for a source without reading it)."""
    import py_compile

    (folder / "fastpath_src.py").write_text(_reference_module())
    mode = (py_compile.PycInvalidationMode.UNCHECKED_HASH if unchecked
            else py_compile.PycInvalidationMode.TIMESTAMP)
    py_compile.compile(str(folder / "fastpath_src.py"), cfile=str(folder / name), doraise=True,
                       invalidation_mode=mode)
    (folder / "fastpath_src.py").unlink()


def _compiled_reference(folder: Path) -> None:
    _compile_reference(folder, "fastpath.pyc")


def _pycache_reference(folder: Path) -> None:
    _compile_reference(folder, "cache.bin", unchecked=True)
    names = ["lookup", "embed", "embed_backward", "init_table", "dot", "norm",
             "cosine_similarity"]
    (folder / "helper.py").write_text("".join(
        f"def {n}(*args, **kwargs):\n    raise NotImplementedError('{n}: not done yet')\n\n\n"
        for n in names))


def _extension_reference(folder: Path) -> None:
    # an ELF header: the worker refuses it before the dynamic loader would read it
    (folder / "fastpath.so").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(57))


def _zipped_reference(folder: Path) -> None:
    import zipfile

    with zipfile.ZipFile(folder / "lib.zip", "w") as z:
        z.writestr("fastpath.py", _reference_module())


def _pth_reference(folder: Path) -> None:
    import base64
    import zlib

    packed = base64.b64encode(zlib.compress(_reference_module().encode())).decode()
    (folder / "setup.pth").write_text(
        "# site folder\nimport builtins, zlib, base64; exec(zlib.decompress(base64.b64decode("
        f"'{packed}')).decode(), builtins.__dict__)\n")


# attack file -> (what the test puts beside it, the file the staff are shown)
COMPILED = {
    "compiled_copy.py": (_compiled_reference, "fastpath.pyc"),
    "pycache_copy.py": (_pycache_reference, "cache.bin"),
    "extension_copy.py": (_extension_reference, "fastpath.so"),
    "zip_copy.py": (_zipped_reference, "lib.zip"),
    "pth_copy.py": (_pth_reference, "setup.pth"),
}


@needs_bwrap
@pytest.mark.parametrize("name", sorted(COMPILED))
def test_a_reference_copy_handed_in_as_code_that_is_not_source_is_refused_and_flagged(
        name, tmp_path, spec):
    """The worker loads no compiled code from the submission's folder (the import rule): the
    copy does not run, and the staff are shown the file and the loader (rule `compiled`)."""
    build, shown = COMPILED[name]
    d = tmp_path / "hw"
    d.mkdir()
    build(d)
    shutil.copy(CORPUS / name, d / "submission.py")
    rep = grade_path(d, spec, select=["lookup_selects_row", "vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert "passed" not in [c["status"] for c in rep["checks"]], rep["checks"]
    (flag,) = [f for f in rep["flags"] if f["kind"] == "grader_tamper"]
    assert "compiled" in flag["rules"]
    assert shown in {p["file"] for p in flag["places"] if p["rule"] == "compiled"}, flag
    if name == "pycache_copy.py":     # helper.py's own source runs, not its cache
        assert "not done yet" in json.dumps(rep["checks"]), (rep["import"], rep["checks"])
    else:
        assert "not Python source" in json.dumps(rep["import"]), rep["import"]


# ----------------------------------------------------------------------------- decoded at run time
def _loader_data_reference(folder: Path) -> None:
    """loader_data_copy.py: an empty fastpath.py (the loader's path) and the reference XOR-ed
    with one byte in vocab.bin."""
    (folder / "fastpath.py").write_text("")
    (folder / "vocab.bin").write_bytes(bytes(b ^ 0x5A for b in _reference_module().encode()))


class _Unpickles:
    """An object whose pickle, when loaded, execs `src` into a fresh dict and returns it."""

    def __init__(self, src: str):
        self.src = src

    def __reduce__(self):
        return (eval, ("(lambda ns: (exec(%r, ns), ns)[1])({})" % self.src,))


def _npy_pickle_reference(folder: Path) -> None:
    """npy_pickle_copy.py: vocab.npy, a 0-d object array holding an _Unpickles of the
    reference module."""
    import numpy as np

    arr = np.empty((), dtype=object)
    arr[()] = _Unpickles(_reference_module())
    np.save(folder / "vocab.npy", arr, allow_pickle=True)


DECODED = {
    "loader_data_copy.py": _loader_data_reference,
    "npy_pickle_copy.py": _npy_pickle_reference,
}


@needs_bwrap
@pytest.mark.parametrize("name", [
    # a SourceFileLoader subclass whose get_data decodes vocab.bin: flagged since the fourth
    # red-team round (rule exec: a class deriving from importlib's loaders)
    "loader_data_copy.py",
    # a .npy whose pickle calls eval, loaded with np.load(allow_pickle=True): flagged by the
    # data file since the pickle scan (rule exec, the file named)
    "npy_pickle_copy.py",
])
def test_a_reference_copy_run_from_data_is_flagged(name, tmp_path, spec):
    d = tmp_path / "hw"
    d.mkdir()
    DECODED[name](d)
    shutil.copy(CORPUS / name, d / "submission.py")
    rep = grade_path(d, spec, select=["lookup_selects_row", "vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    ran = [c["status"] for c in rep["checks"]] == ["passed", "passed"]
    flagged = [f for f in rep["flags"] if f["kind"] in ("grader_tamper", "reference_copy")]
    assert not ran or flagged, (rep["checks"], rep["flags"])


@needs_bwrap
def test_a_native_library_loaded_through_numpy_is_flagged(tmp_path, spec):
    """native_via_numpy.py: a C library decoded at run time into the worker's home and loaded
    with numpy.ctypeslib (ctypes never named, no native file handed in) computed norm and dot
    with no flag (fourth red-team round); numpy.ctypeslib is ctypes for the scan (rule
    `native`). The library still loads: the flag is how the staff see it."""
    import subprocess

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the library")
    (tmp_path / "fast.c").write_text(
        "#include <math.h>\n"
        "double vnorm(const float* v, long n) { double s = 0; for (long i = 0; i < n; i++) "
        "s += (double)v[i] * v[i]; return sqrt(s); }\n"
        "double vdot(const float* a, const float* b, long n) { double s = 0; "
        "for (long i = 0; i < n; i++) s += (double)a[i] * b[i]; return s; }\n")
    lib = tmp_path / "libfast.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "fast.c"),
                    "-lm"], check=True, capture_output=True, timeout=120)
    d = tmp_path / "hw"
    d.mkdir()
    (d / "blob.bin").write_bytes(bytes(b ^ 0x5A for b in lib.read_bytes()))
    shutil.copy(CORPUS / "native_via_numpy.py", d / "submission.py")
    rep = grade_path(d, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    (flag,) = [f for f in rep["flags"] if f["kind"] == "grader_tamper"]
    assert "native" in flag["rules"], flag


_EXTENSION_C = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
static PyObject* vnorm(PyObject* self, PyObject* arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    const double* d = (const double*)view.buf; Py_ssize_t n = view.len / 8; double s = 0;
    for (Py_ssize_t i = 0; i < n; i++) s += d[i] * d[i];
    PyBuffer_Release(&view);
    return PyFloat_FromDouble(sqrt(s));
}
static PyMethodDef M[] = {{"vnorm", vnorm, METH_O, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, "fastpath", NULL, -1, M};
PyMODINIT_FUNC PyInit_fastpath(void) { return PyModule_Create(&D); }
"""


@needs_bwrap
def test_the_import_rule_cannot_be_switched_off_in_one_unflagged_line(tmp_path, spec):
    """rule_switched_off.py: `builtins.__import__.__self__.remove()` removed the import rule
    (its guarded import was a bound method of the rule), then a C extension module decoded at
    run time into the writable copy imported with a plain `import`: vector_norm passed,
    computed natively, with no flag (fourth red-team round). Now the installed import is a
    plain function (no `__self__`): the line raises and the module does not import; and
    `__self__` is flagged (rule `code`)."""
    import subprocess
    import sysconfig

    cc = shutil.which("cc") or shutil.which("gcc")
    include = sysconfig.get_paths()["include"]
    if cc is None or not (Path(include) / "Python.h").is_file():
        pytest.skip("no C compiler or Python headers to build the extension module")
    (tmp_path / "fastpath.c").write_text(_EXTENSION_C)
    ext = tmp_path / ("fastpath" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([cc, "-O2", "-shared", "-fPIC", f"-I{include}", "-o", str(ext),
                    str(tmp_path / "fastpath.c"), "-lm"], check=True, capture_output=True,
                   timeout=120)
    d = tmp_path / "hw"
    d.mkdir()
    (d / "blob.bin").write_bytes(bytes(b ^ 0x5A for b in ext.read_bytes()))
    shutil.copy(CORPUS / "rule_switched_off.py", d / "submission.py")
    rep = grade_path(d, spec, select=["vector_norm"], limits=LIMITS, sandbox="bwrap")
    assert [c["status"] for c in rep["checks"]] != ["passed"], rep["checks"]
    assert "__self__" in json.dumps(rep["import"]), rep["import"]
    (flag,) = [f for f in rep["flags"] if f["kind"] == "grader_tamper"]
    assert "code" in flag["rules"], flag
