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

import shutil
from pathlib import Path

import pytest

from tests.attacks import CORPUS

from .attacking import ROOT
from .conftest import LIMITS, grade_path, needs_bwrap


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


# The flags' false alarms on honest work (third red-team round). Honest code, so no attack
# file of tests/attacks/ (whose files must each be classified by test_tamper.py): each case is
# a line of an ordinary notebook or module.
HONEST_FLAGGED = {
    # the notebook idiom for picking up edits of a helper module beside it
    "reload_helper": "import importlib\nimport embedding_impl\nimportlib.reload(embedding_impl)\n",
    # a course about parameter counts and memory: the student measures the table's memory
    "measure_memory": ("import resource\nimport numpy as np\ntable = np.zeros((8449, 768), "
                       "np.float32)\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"),
}


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="known gap (third red-team round): "
                   "the tamper scan flags importlib.reload of a helper and resource.getrusage "
                   "in honest notebooks as reaching into the grader ('a submission that can tell "
                   "it is being graded may behave differently then')")
@pytest.mark.parametrize("name", sorted(HONEST_FLAGGED))
def test_honest_notebook_idioms_get_no_tamper_flag(name):
    from graders.grade.tamper import tamper_flags

    assert tamper_flags([("hw.py", HONEST_FLAGGED[name])]) == []


def _compiled_reference(folder: Path) -> None:
    """fastpath.pyc: the reference's embedding and vectors modules and its argument checks,
    joined into one module and compiled for this Python (compiled_copy.py's folder)."""
    import py_compile

    def body(path: Path) -> str:
        return path.read_text().replace("from andrea_runtime import validate", "").replace(
            "from __future__ import annotations", "")

    src = ("from __future__ import annotations\nimport types as _types\n"
           + body(ROOT / "andrea_runtime" / "validate.py")
           + "\nvalidate = _types.SimpleNamespace(**{k: v for k, v in dict(globals()).items() "
             "if callable(v) and not k.startswith('_')})\n"
           + body(ROOT / "andrea_ref" / "embedding.py") + "\n"
           + body(ROOT / "andrea_ref" / "vectors.py"))
    (folder / "fastpath_src.py").write_text(src)
    py_compile.compile(str(folder / "fastpath_src.py"), cfile=str(folder / "fastpath.pyc"),
                       doraise=True)
    (folder / "fastpath_src.py").unlink()


@needs_bwrap
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="known gap (third red-team round): "
                   "the reference compiled to a .pyc and loaded with SourcelessFileLoader scores "
                   "full marks with no flag (copy detection and the tamper scan read source only)")
def test_a_reference_copy_handed_in_as_bytecode_is_flagged(tmp_path, spec):
    d = tmp_path / "hw"
    d.mkdir()
    _compiled_reference(d)
    shutil.copy(CORPUS / "compiled_copy.py", d / "submission.py")
    rep = grade_path(d, spec, select=["lookup_selects_row", "vector_norm"], limits=LIMITS,
                     sandbox="bwrap")
    assert [c["status"] for c in rep["checks"]] == ["passed", "passed"]   # the copy runs
    assert {f["kind"] for f in rep["flags"]} & {"reference_copy", "grader_tamper"}, rep["flags"]
