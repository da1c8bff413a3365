"""Notebook cells are cleaned up as IPython cleans them up (andrea_runtime/ipython_input.py):
the module's own copy of IPython's cleanup transforms gives what IPython's TransformerManager
gives, on hand-written cells, on every code cell of the corpus notebooks, and on cells drawn by
Hypothesis from the pieces that matter (indentation, prompts, triple quotes, blank lines); and
the corpus notebooks, run cell by cell by IPython's own shell, define the same functions,
giving the same answers, as the notebook read by the kit."""

from __future__ import annotations

import sys

import nbformat
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from andrea_runtime.ipython_input import transform_cell
from graders.conformance.sources import notebook_source
from tests.corpus import correct_files

NOTEBOOKS = [p for p in correct_files() if p.suffix == ".ipynb"]


def _read(path):
    """A notebook as nbformat reads it, also one saved with a byte-order mark (Windows
    editors; the grader reads those, nbformat.read does not)."""
    return nbformat.reads(path.read_bytes().decode("utf-8-sig"), as_version=4)


# The notebooks IPython's plain shell can run outside Jupyter: no shell escapes (``!pip``
# would install), no %matplotlib (the plain shell has no GUI loop).
RUN_BY_IPYTHON = [p for p in NOTEBOOKS if not any(
    line.lstrip().startswith(("!", "%matplotlib", "%pip", "%%bash", "%%writefile"))
    or "get_ipython" in line or "google.colab" in line
    for c in _read(p).cells if c.cell_type == "code"
    for line in c.source.splitlines())]


def _ipython_cleanup():
    """IPython's own cleanup transforms, where an IPython this module follows is installed."""
    ipython = pytest.importorskip("IPython", reason="IPython is not installed here")
    version = tuple(int(x) for x in ipython.__version__.split(".")[:2] if x.isdigit())
    if version < (9, 18):
        pytest.skip(f"IPython {ipython.__version__}: the module's copy follows IPython 9.18")
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().cleanup_transforms


def _norm(text: str) -> str:
    """A cleaned-up cell without its leading empty lines and final newlines (the module keeps
    leading empty lines as empty lines, for line numbers; IPython drops them, and ends every
    cell with a newline first)."""
    lines = text.splitlines(keepends=True)
    while lines and (not lines[0] or lines[0].isspace()):
        lines.pop(0)
    return "".join(lines).rstrip("\n")


def ipython_says(cell: str, steps) -> str:
    """What IPython's cleanup makes of `cell` (as its transform_cell starts: a final newline)."""
    if not cell.endswith("\n"):
        cell += "\n"
    lines = cell.splitlines(keepends=True)
    for step in steps:
        lines = step(lines)
    return _norm("".join(lines))


def ours(cell: str) -> str:
    """The module's own copy of the cleanup, compared the same way."""
    return _norm(transform_cell(cell, use_ipython=False))


HAND = [
    # (cell, what IPython runs), written out
    ("    def backward(self, dout):\n        return dout\n",
     "def backward(self, dout):\n    return dout\n"),
    ("\tdef f():\n\t    return 1", "def f():\n    return 1"),
    ("\n\n    x = 1\n\n    y = 2\n", "\n\nx = 1\n\ny = 2\n"),
    (">>> x = 1\n>>> def g():\n...     return 2\n...\n>>> g()\n2\n",
     "x = 1\ndef g():\n    return 2\n\ng()\n2\n"),
    ("    >>> x = 1\n    >>> x + 1\n    2\n", "x = 1\nx + 1\n2\n"),
    ("In [3]: def h(a):\n   ...:     return a\n   ...:\n", "def h(a):\n    return a\n\n"),
    ("[ins] In [12]: z = 3\n", "z = 3\n"),
    ("x = 1\nIn [4]: y = 2\n", "x = 1\ny = 2\n"),          # a prompt on the second line
    ("x = 1\ny = 2\nIn [4]: z = 3\n", "x = 1\ny = 2\nIn [4]: z = 3\n"),   # not on the third
    ("...\n", "...\n"),                                                  # Ellipsis, no prompt
    ('def f():\n    """\n    >>> f()\n    """\n', 'def f():\n    """\n    >>> f()\n    """\n'),
    ('>>> s = """\n... >>> kept in the string\n... """\n',
     's = """\n>>> kept in the string\n"""\n'),
    ("    %time x = 1\n    y = 2\n", "%time x = 1\ny = 2\n"),
    ("  a = 1\n    b = 2\n", "a = 1\n  b = 2\n"),                      # dedent, not reindent
    ("", ""),
]


@pytest.mark.parametrize("cell, want", HAND)
def test_hand_written_cells(cell, want):
    got = transform_cell(cell, use_ipython=False)
    assert got == want
    assert len(got.splitlines()) == len(cell.splitlines()) or not cell.strip()


@pytest.mark.parametrize("cell, want", HAND)
def test_hand_written_cells_as_ipython_cleans_them(cell, want):
    steps = _ipython_cleanup()
    assert ours(cell) == ipython_says(cell, steps) if cell.strip() else True
    assert transform_cell(cell, use_ipython=True) == transform_cell(cell)


def test_every_cell_of_the_corpus_notebooks_as_ipython_cleans_it():
    steps = _ipython_cleanup()
    cells = [c.source for p in NOTEBOOKS for c in _read(p).cells
             if c.cell_type == "code"]
    assert len(cells) >= 20
    changed = 0
    for cell in cells:
        if cell.strip():
            assert ours(cell) == ipython_says(cell, steps), cell
            changed += transform_cell(cell) != cell
    assert changed >= 4          # the pasted-cells notebook has indented and prompted cells


PIECES = st.lists(st.tuples(
    st.sampled_from(["", "", "    ", "  ", "\t", ">>> ", "... ", ">>>", "...", "    >>> ",
                     "    ... ", "In [3]: ", "   ...: ", "...: ", "[nav] In [1]: ", " "]),
    st.sampled_from(["x = 1", "def f():", "    return 2", '"""', "'''", 'r"""doc', "s = '''",
                     "", "...", "# comment", "%time y = 2", "f(1)", "2", "  pass",
                     ">>> inner", 'print(""" >>> """)', "\\"])),
    min_size=1, max_size=8)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(pieces=PIECES, newline=st.booleans())
def test_drawn_cells_as_ipython_cleans_them(pieces, newline):
    steps = _ipython_cleanup()
    cell = "\n".join(p + b for p, b in pieces) + ("\n" if newline else "")
    if not cell.strip():
        return
    assert ours(cell) == ipython_says(cell, steps)
    assert transform_cell(cell, use_ipython=True) == transform_cell(cell)
    assert len(transform_cell(cell).splitlines()) == len(cell.splitlines())


def test_line_numbers_point_into_the_cell():
    """The module keeps every line (IPython drops leading empty ones): a cell that raises is
    reported at its own line."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("\n\n    x = 1\n    1 / 0\n")]
    src = notebook_source(nbformat.writes(nb), "t.ipynb")
    line = src.text.splitlines().index("1 / 0") + 1
    assert src.locate(line) == (1, 4)


def test_the_corpus_notebooks_run_by_ipython_define_the_same_functions(tmp_path):
    """Proof on IPython itself: each corpus notebook's code cells run one by one in IPython's
    shell (as Jupyter's kernel runs them) define the contract functions the kit's reading
    defines, and they give the same answers."""
    pytest.importorskip("IPython", reason="IPython is not installed here")
    from IPython.core.interactiveshell import InteractiveShell

    from graders.conformance.runner import load_impl

    assert [p.stem for p in RUN_BY_IPYTHON if "pasted" in p.stem]
    names = ("token_embedding_params", "init_table", "lookup", "embed", "embed_backward", "dot",
             "norm", "cosine_similarity")
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    pos = np.ones((5, 3), dtype=np.float32)
    calls = {"token_embedding_params": (7, 3), "init_table": (2, 3, 0),
             "lookup": (table, np.array([3, 0, 3])), "embed": (np.array([1, 2]), table, pos),
             "embed_backward": (np.array([1, 1]), np.ones((2, 3), np.float32), 4, 5),
             "dot": ([1.0, 2.0], [3.0, 4.0]), "norm": ([3.0, 4.0],),
             "cosine_similarity": ([1.0, 0.0], [1.0, 1.0])}
    # IPython's shell puts its own module in sys.modules['__main__'] (without __spec__) and its
    # own display and exception hooks in sys: put back what this process had, or every later
    # test that starts a process by 'spawn' (the batch's pool) fails in multiprocessing.
    kept = (sys.modules["__main__"], sys.displayhook, sys.excepthook)
    shell = InteractiveShell.instance()
    try:
        for path in RUN_BY_IPYTHON:
            shell.reset(new_session=False)
            for c in _read(path).cells:
                if c.cell_type == "code":
                    shell.run_cell(c.source, store_history=False, silent=True)
            theirs = shell.user_ns
            mine = load_impl(path)
            for fn in names:
                assert callable(theirs.get(fn)) == callable(getattr(mine, fn, None)), (path, fn)
                if not callable(theirs.get(fn)):
                    continue
                args = calls[fn]
                if fn == "init_table":
                    a = theirs[fn](2, 3, np.random.default_rng(0))
                    b = getattr(mine, fn)(2, 3, np.random.default_rng(0))
                else:
                    a, b = theirs[fn](*args), getattr(mine, fn)(*args)
                pairs = zip(a, b) if isinstance(a, tuple) else [(a, b)]
                assert all(np.array_equal(x, y) for x, y in pairs), (path, fn)
    finally:
        InteractiveShell.clear_instance()
        sys.modules["__main__"], sys.displayhook, sys.excepthook = kept


@pytest.mark.parametrize("cell", [
    '>>> a = """x""" + r"""\n... >>> kept?\n... """\n',
    '>>> a = \'\'\'x\'\'\' """\n>>> b\n"""\n',
    'r"""  """ """\n>>> inside\n"""\n>>> x = 1\n',
    '    >>> s = u"""a""" b"""\n    ... >>> c\n    ... """\n',
    ">>> x = " + "''' ''' " * 50 + "'''\n>>> y\n'''\n",
])
def test_lines_of_several_triple_quotes_as_ipython_cleans_them(cell):
    """Only a line's first triple quote can open a string whose prompts are kept (the copy
    skips the prefix test for the others, which keeps it linear): IPython agrees."""
    assert ours(cell) == ipython_says(cell, _ipython_cleanup())


def test_a_line_of_many_triple_quotes_is_cleaned_up_in_linear_time():
    """tests/attacks/notebooks/triple_quote_prompts.py: IPython's stripper slices the line
    before every quote (quadratic: 47 s of CPU for 1 MB); the copy does not."""
    import time

    cell = ">>> x = " + "''' ''' " * 250_000 + "\n"     # 2 MB
    before = time.process_time()
    assert transform_cell(cell).startswith("x = '''")
    assert time.process_time() - before < 5           # quadratic: minutes
