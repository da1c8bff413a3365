"""Reading a submission as students write it: a module, a folder, or a Jupyter notebook.

One module shared by ``andrea-conform`` (the student's self-check) and ``andrea-grade`` (the
grader), so that both read a submission the same way and apply the same import rule:

* a ``.py`` file is used as it is;
* a ``.ipynb`` notebook (or a folder holding exactly one, and no module) becomes one Python
  source made of its code cells, read with ``nbformat``. Each cell is first cleaned up as
  IPython does (``andrea_runtime.ipython_input.transform_cell``: the cell's common leading indentation and
  pasted ``>>> ``/``... `` and ``In [3]: ``/``   ...: `` prompts removed; IPython's own
  transformer where it is installed), keeping its line count. IPython-only lines (``%magics``,
  ``!shell`` escapes, ``get_ipython()`` calls, ``name?`` / ``?name`` help) become ``pass`` (so indentation
  and line numbers stay valid) and are listed in ``Source.dropped``; a cell that starts with a
  cell magic (``%%bash``, ``%%writefile``, ...) is dropped whole, except ``%%time``,
  ``%%timeit`` and ``%%capture``, whose body is Python. A ``%%writefile NAME.py`` cell (``-a``:
  append) writes a module when Jupyter runs it, which a later cell imports: its text is that
  module (``Source.written``, the text as it stands after the last cell), handed in with the
  notebook (``submission`` adds it to the files; the kit serves it from the notebook), so a
  notebook that writes its module and imports it runs in the grader as in Jupyter. Line numbers of the generated source map
  back to "cell N, line L" (cells counted from the top of the notebook, Markdown cells included).
  ``display(...)``, which Jupyter provides without an import, is there too (it shows nothing:
  ``NOTEBOOK_PRELUDE``, the source's first line, which maps to no cell; where IPython is not
  installed, an import of it binds its names to a stand-in that shows nothing, ``IPYTHON_STAND_IN``);
* a notebook runs as Jupyter runs it: cell after cell in one namespace (``run_cells`` of
  ``andrea_runtime.cells``, the one loop, which the grader's worker runs too), each
  cell compiled on its own with the line numbers of the whole source. A cell that raises an
  ``Exception`` is recorded and the cells after it still run (what the failing cell would have
  defined is missing); ``SystemExit``, ``KeyboardInterrupt`` (any ``BaseException`` that is not an
  ``Exception``) stop the run as in a module. A cell that does not compile is recorded the same
  way and not run (the other cells are);
* the import rule: a submission may import Python's standard library, its own modules and
  the packages of ONE list, ``imports.yaml`` (``ALLOWED_PACKAGES``), the same for the
  self-check, the local grader and the Gradescope image whatever else is installed there
  (``import_rule.ImportRule``, installed by andrea-conform and by the grader's worker, makes
  any other import a ``ModuleNotFoundError``); the kit's own packages (``KIT_PACKAGES``: the
  reference, the GPU implementation, the graders, the spec) and the test tooling
  (``TOOLING_PACKAGES``) are refused outright: ``forbidden_imports`` finds such imports in
  the source; the grader's worker also refuses them at run time.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path

from andrea_runtime.cells import source_lines
from andrea_runtime.ipython_input import transform_cell

KIT_PACKAGES = ("andrea_ref", "andrea_gpu", "andrea_runtime", "graders", "spec")
TOOLING_PACKAGES = ("hypothesis", "_hypothesis_pytestplugin", "_hypothesis_globals", "pytest",
                    "_pytest", "pluggy")
FORBIDDEN_PACKAGES = KIT_PACKAGES + TOOLING_PACKAGES
# What a submission's files are, by suffix (the one list: the self-check, the grader, a batch
# and andrea-audit read it): a module, a notebook, a CUDA kernel.
MODULE_SUFFIX = ".py"
NOTEBOOK_SUFFIX = ".ipynb"
KERNEL_SUFFIX = ".cu"
PYTHON_SUFFIXES = (MODULE_SUFFIX, NOTEBOOK_SUFFIX)
SOURCE_SUFFIXES = (MODULE_SUFFIX, NOTEBOOK_SUFFIX, KERNEL_SUFFIX)
IMPORTS_FILE = Path(__file__).resolve().parent / "imports.yaml"


def _allowed_packages() -> tuple[str, ...]:
    import yaml

    try:
        data = yaml.safe_load(IMPORTS_FILE.read_text(encoding="utf-8"))
        names = data["allowed"]
        if not (isinstance(names, list) and all(isinstance(n, str) and n.isidentifier()
                                                for n in names)):
            raise ValueError("'allowed' must be a list of module names")
    except (OSError, KeyError, TypeError, ValueError, yaml.YAMLError) as exc:
        raise RuntimeError(f"{IMPORTS_FILE}: the list of importable packages cannot be read "
                           f"({exc})") from None
    return tuple(names)


# The packages a submission may import besides the standard library and its own modules.
ALLOWED_PACKAGES = _allowed_packages()
PREFERRED_NAMES = ("submission.py", "embedding.py", "solution.py")
BODY_CELL_MAGICS = ("time", "timeit", "capture")

# What a Jupyter kernel puts in every notebook's namespace without an import, and a notebook may
# call at top level: display() (a no-op here, nothing is shown). One line, mapped to no cell.
NOTEBOOK_PRELUDE = "def display(*objects, **kwargs): return None"
# Where IPython is not installed with the grader, a notebook's own import of it (``from
# IPython.display import display, Markdown``, ``import IPython``) binds its names to this
# stand-in instead: any attribute of it is itself, and calling it shows nothing, as display()
# here. One line, mapped to no cell, like the prelude.
IPYTHON_STAND_IN = ('_andrea_ipython = type("IPython", (), {"__getattr__": lambda self, name: '
                    'self, "__call__": lambda self, *args, **kwargs: None})()')

_LINE_MAGIC = re.compile(r"^(\s*)(?:[A-Za-z_][\w.,\s]*=\s*)?[%!]")
# IPython's help: "name?", "name??", "?name", "??name" (and wildcards such as "np.*load*?")
_HELP = re.compile(r"^(\s*)(?:\?\??[\w.\[\]()*]+|[\w.\[\]()*]+\?\??)\s*$")
# searched, never matched from the line's start with ".*" before it: "^(\s*).*\bget_ipython"
# backtracked over every split of a long indented line (quadratic: 195 s for one 120 KB line)
_GET_IPYTHON = re.compile(r"\bget_ipython\s*\(")
# An import of IPython that the stand-in replaces is one short line; a longer one is not parsed
MAX_IMPORT_LINE = 1000
# Text parsed into a syntax tree in the grader's (and the self-check's) own process: an AST
# costs hundreds of bytes per character (a 4.9 MB module of 1+1+... took 3 GB and a minute);
# a longer text is scanned line by line instead (linear, no tree)
MAX_AST_CHARS = 256 << 10
# ... and one with more '{' than this is not parsed either: CPython's parser takes time
# quadratic in the replacement fields of one f-string (3.10 and 3.11 most: 240 KB of
# f'{a}{a}...' took 6 s to parse, and a folder of 19 such helpers held the grader for
# minutes before any worker started; still superlinear in 3.12)
MAX_AST_BRACES = 5000
# Lines left out of a notebook that are listed (reports, feedback); the rest are counted (a
# notebook of 1.25 million magic lines made a 148 MB report and took 2.1 GB of the grader)
MAX_DROPPED_LISTED = 100


class SourceError(Exception):
    """The submission cannot be read (not a notebook, unreadable file); names the file."""


@dataclass
class Dropped:
    cell: int
    line: int
    kind: str        # "magic", "shell", "get_ipython", "help", "cell_magic"
    text: str

    def to_dict(self) -> dict:
        return {"cell": self.cell, "line": self.line, "kind": self.kind, "text": self.text}


def parse_is_bounded(text: str) -> bool:
    """Whether `text` may be parsed into a syntax tree in the grader's (and the self-check's)
    own process: at most MAX_AST_CHARS characters and MAX_AST_BRACES braces (the one bound of
    every such parse: forbidden_imports, the package-face test, the tamper scan, copy
    detection's test of a file under another name; each reads a text that is not parsed by
    its lines or not at all)."""
    return len(text) <= MAX_AST_CHARS and text.count("{") <= MAX_AST_BRACES


def cell_at(line_map, line) -> tuple[int, int] | None:
    """(cell, line in that cell) of line `line` (1-based) of a notebook's module, by its line
    map (``Source.line_map``, or the same list as ``to_dict`` writes it); None for the
    notebook's prelude (cell 0), a line outside the module, or a line that is not an int (a
    worker's word). The one mapping of the self-check (``Source.locate``) and the grader (the
    import's error, the cells that raised, the tamper flags' places)."""
    if type(line) is not int or not 1 <= line <= len(line_map):
        return None
    cell, in_cell = line_map[line - 1]
    return (int(cell), int(in_cell)) if cell else None


@dataclass
class Source:
    """The Python text to import, and where each of its lines came from."""

    text: str
    origin: str                                       # the file the student handed in
    notebook: bool = False
    line_map: list[tuple[int, int]] = field(default_factory=list)   # line-1 -> (cell, line)
    dropped: list[Dropped] = field(default_factory=list)   # the first MAX_DROPPED_LISTED
    dropped_total: int = 0                                   # how many lines were left out
    written: dict[str, str] = field(default_factory=dict)    # %%writefile NAME.py -> its text

    def locate(self, line: int | None) -> tuple[int, int] | None:
        """(cell, line in cell) of a line of ``text`` (1-based); None for a plain module."""
        return cell_at(self.line_map, line) if self.notebook else None

    def cell_ranges(self) -> list[tuple[int, int]]:
        """(first, last) line of ``text`` (1-based) of each code cell, in order (the prelude
        first, as a cell of its own)."""
        ranges: list[tuple[int, int]] = []
        prev = None
        for i, (cell, _) in enumerate(self.line_map, 1):
            if cell == prev:
                ranges[-1] = (ranges[-1][0], i)
            else:
                ranges.append((i, i))
            prev = cell
        return ranges

    @classmethod
    def from_dict(cls, data: dict, text: str) -> "Source":
        """The Source whose ``to_dict()`` is `data`, with its Python `text`."""
        return cls(text, data["origin"], bool(data.get("notebook")),
                   [(int(c), int(k)) for c, k in data.get("line_map", [])],
                   [Dropped(**d) for d in data.get("dropped", [])],
                   int(data.get("dropped_total", 0)),
                   {str(k): str(v) for k, v in dict(data.get("written") or {}).items()})

    def to_dict(self) -> dict:
        return {"origin": self.origin, "notebook": self.notebook,
                "line_map": [list(x) for x in self.line_map],
                "dropped": [d.to_dict() for d in self.dropped],
                "dropped_total": max(self.dropped_total, len(self.dropped)),
                "written": dict(self.written)}


def notebook_source(data: bytes | str, origin: str) -> Source:
    """The code cells of a notebook as one Python source (see the module docstring)."""
    import warnings

    import nbformat
    import nbformat.reader
    from traitlets.log import get_logger   # nbformat's logger

    try:
        # utf-8-sig: a notebook saved by an editor that writes a byte-order mark is still one
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data.lstrip("\ufeff")
        # nbformat logs a schema violation and warns about missing or repeated cell ids on
        # stderr (with its own file paths); this reader judges the shapes it uses itself
        log = get_logger()
        quiet = getattr(log, "disabled", None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if quiet is not None:
                    log.disabled = True
                # read and upgraded to version 4, not validated: the schema validation
                # (jsonschema over every cell) costs the grader far more than the reading on
                # a hand-made file of many cells; the shapes used are checked in _code_cells.
                # An older format is upgraded only when it is small (the upgrade validates).
                nb = nbformat.reader.reads(text)
                if nb.get("nbformat") != 4 and len(text) > MAX_AST_CHARS:
                    raise ValueError(f"a notebook of format {nb.get('nbformat')!r} this large")
                nb = nbformat.convert(nb, 4)
            finally:
                if quiet is not None:
                    log.disabled = quiet
    except Exception as exc:  # noqa: BLE001 - JSON errors, nbformat's own, bad encodings
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SourceError(f"{origin}: not a Jupyter notebook ({first[:200]})") from None
    cells = _code_cells(nb, origin)
    out: list[str] = [NOTEBOOK_PRELUDE]
    line_map: list[tuple[int, int]] = [(0, 0)]
    dropped: list[Dropped] = []
    total = [0]

    def drop(d: Dropped) -> None:   # the first MAX_DROPPED_LISTED, and how many in all
        total[0] += 1
        if len(dropped) < MAX_DROPPED_LISTED:
            dropped.append(d)

    stand_in = not _ipython_installed()
    if stand_in:
        out.append(IPYTHON_STAND_IN)
        line_map.append((0, 0))
    written: dict[str, str] = {}
    for number, src in cells:
        # as IPython runs a cell: its common indentation and pasted prompts removed first
        lines = source_lines(transform_cell(src))   # Python's line ends only
        top = next((i for i, ln in enumerate(lines) if ln.strip()), None)
        if top is not None and lines[top].lstrip().startswith("%%"):
            head = lines[top]
            magic = head.lstrip()[2:].split(None, 1)[0] if head.strip() != "%%" else ""
            module = _written_module(head) if magic == "writefile" else None
            if module is not None:     # the cell's own text, as %%writefile writes it
                name, append = module
                body = "".join(ln + "\n" for ln in lines[top + 1:])   # IPython's cell body
                written[name] = (written.get(name, "") if append else "") + body
            else:
                drop(Dropped(number, top + 1, "cell_magic", head.strip()[:200]))
            if magic in BODY_CELL_MAGICS:
                lines = lines[:top] + ["pass"] + lines[top + 1:]
            else:
                lines = ["pass"] * len(lines)
        scan = _Continuation()
        for k, line in enumerate(lines, 1):
            kind = None if scan.inside else _ipython_kind(line)
            bound = None if scan.inside or not stand_in else _ipython_import(line)
            if kind is not None:
                drop(Dropped(number, k, kind, line.strip()[:200]))
                line = line[:len(line) - len(line.lstrip())] + "pass"
            elif bound is not None:
                drop(Dropped(number, k, "ipython_import", line.strip()[:200]))
                line = bound
            scan.feed(line)
            out.append(line)
            line_map.append((number, k))
        out.append("")
        line_map.append((number, len(lines) + 1))
    return Source("\n".join(out) + "\n", origin, True, line_map, dropped, total[0], written)


_WRITEFILE = re.compile(r"\s*%%writefile(?:\s+(-a|--append))?\s+([A-Za-z_]\w*\.py)\s*$")


def _written_module(head: str) -> tuple[str, bool] | None:
    """(NAME.py, append) of a ``%%writefile [-a] NAME.py`` line writing a module beside the
    notebook; None for anything else (another folder, a data file, a name of the grader's)."""
    m = _WRITEFILE.match(head)
    if m is None or m.group(2) in ("__init__.py", "notebook_submission.py"):
        return None
    return m.group(2), bool(m.group(1))


def _code_cells(nb, origin: str) -> list[tuple[int, str]]:
    """(cell number, source) of each code cell. nbformat only warns about a notebook that breaks
    its schema, so the shapes this reader relies on are checked here: a cell that is not an
    object, or a source that is neither text nor a list of texts, is not a notebook Jupyter
    wrote (a hand-made file must not crash the grader)."""
    cells = nb.get("cells", []) if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise SourceError(f"{origin}: not a Jupyter notebook ('cells' is not a list)")
    out = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise SourceError(f"{origin}: not a Jupyter notebook (cell {number} is not an object)")
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        if isinstance(src, list) and all(isinstance(part, str) for part in src):
            src = "".join(src)
        if not isinstance(src, str):
            raise SourceError(f"{origin}: not a Jupyter notebook (the source of cell {number} "
                              f"is not text)")
        out.append((number, src))
    return out


class _Continuation:
    """Whether the next line continues a statement (open brackets, an open triple-quoted
    string, a trailing backslash): such a line is never an IPython command, whatever it starts
    with (``(a\n % b)``, a docstring line "% of the rows")."""

    def __init__(self):
        self.depth = 0
        self.quote: str | None = None      # the open triple quote, if any
        self.backslash = False

    @property
    def inside(self) -> bool:
        return self.depth > 0 or self.quote is not None or self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if self.quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += 3
                    self.quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if line.startswith(('"""', "'''"), i):
                self.quote = line[i:i + 3]
                i += 3
                continue
            if c in "\"'":
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        self.backslash = self.quote is None and line.rstrip().endswith("\\")


def _ipython_installed() -> bool:
    """Whether a submission can import IPython: only where the import rule lists it (then it
    must be installed); elsewhere its display helpers are the stand-in, in the self-check and
    the grader alike, whatever is installed."""
    return "IPython" in ALLOWED_PACKAGES and importlib.util.find_spec("IPython") is not None


def _ipython_import(line: str) -> str | None:
    """The line that binds the names a one-line import of IPython would bind to the stand-in
    (IPYTHON_STAND_IN), with the line's indentation; None for any other line."""
    if "IPython" not in line or len(line) > MAX_IMPORT_LINE:
        return None
    indent = line[:len(line) - len(line.lstrip())]
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    node = tree.body[0]
    names: list[str] = []
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
            node.module == "IPython" or node.module.startswith("IPython.")):
        names = [a.asname or a.name for a in node.names if a.name != "*"]
    elif isinstance(node, ast.Import) and all(
            a.name == "IPython" or a.name.startswith("IPython.") for a in node.names):
        names = [a.asname or a.name.split(".")[0] for a in node.names]
    else:
        return None
    return indent + ("; ".join(f"{n} = _andrea_ipython" for n in names) or "pass")


def _ipython_kind(line: str) -> str | None:
    stripped = line.lstrip()
    if not stripped or stripped.startswith("#"):
        return None
    m = _LINE_MAGIC.match(line)
    if m:
        marker = line[m.end() - 1]
        return "shell" if marker == "!" else "magic"
    if "get_ipython" in line and _GET_IPYTHON.search(line):
        return "get_ipython"
    if _HELP.match(line):
        return "help"
    return None


def read_source(path: str | Path) -> Source:
    """A .py file as it is, or a notebook's code cells."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return source_of(data, p.name, path)


def source_of(data: bytes, origin: str, path: str | Path | None = None) -> Source:
    """The bytes of a file named `origin`: a notebook's code cells, or a module's text decoded
    as Python decodes a module (UTF-8, or the encoding its coding line declares). A
    SourceError names `path` (by default `origin`)."""
    if origin.endswith(NOTEBOOK_SUFFIX):
        return notebook_source(data, origin)
    try:
        return Source(importlib.util.decode_source(data), origin)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        raise SourceError(f"{path if path is not None else origin}: not UTF-8 text (nor in the "
                          "encoding a coding line declares)") from None


# Files a student hands in beside the submission that are never it: their own tests, a
# pytest conftest, a setup script.
_NOT_THE_SUBMISSION = re.compile(r"^(?:test_.*|.*_test|conftest|setup)\.py$")


def submission_root(names: list[str]) -> str:
    """The folder, inside a handed-in folder, that holds the submission: "" (the folder itself)
    or, when the folder's top level has no module, notebook or kernel and exactly one of its
    subfolders has some (a zipped folder: ``hw3/embedding.py``), that subfolder (``"hw3/"``),
    descending while the rule holds. `names` are the files' relative paths; hidden folders and
    ``__MACOSX``/``__pycache__`` are never the submission's."""
    prefix = ""
    while True:
        rest = [n[len(prefix):] for n in names if n.startswith(prefix)]
        if any("/" not in r and r.endswith(SOURCE_SUFFIXES) for r in rest):
            return prefix
        holding = {r.split("/", 1)[0] for r in rest
                   if "/" in r and r.endswith(SOURCE_SUFFIXES)}
        holding = {d for d in holding if not d.startswith((".", "__"))}
        if len(holding) != 1:
            return prefix
        prefix += holding.pop() + "/"


def kit_names_taken(names: list[str], entry: str | None,
                    texts: list[str]) -> list[tuple[str, str]]:
    """(file, package) for each top-level module or folder of a submission, other than its
    entry, named like one of the kit's packages or the test tooling (``spec.py``, ``graders/``)
    and imported by one of its modules (`texts`): that import would be refused as importing the
    kit, so the grader and the self-check both ask for the file to be renamed."""
    imported = {n.split(".", 1)[0] for t in texts for n in forbidden_imports(t)}
    out = []
    for r in sorted({n.split("/", 1)[0] + ("/" if "/" in n else "") for n in names}):
        stem = r[:-1] if r.endswith("/") else r[:-3] if r.endswith(".py") else None
        if stem in FORBIDDEN_PACKAGES and stem in imported and r != entry:
            out.append((r, stem))
    return out


def choose_entry(names: list[str], init_text: str | None = None
                 ) -> tuple[str | None, str | None, list[str]]:
    """Which top-level file of a folder is the submission: (name, None, []) or (None, why, names).

    `names` are the folder's files (relative paths); `init_text` is the text of its top-level
    ``__init__.py``, if it has one. Rules, the same for the self-check and the grader: a
    package (an ``__init__.py`` that re-exports its modules' functions with relative imports,
    or defines functions) is imported as a package, else a module named like PREFERRED_NAMES, else the one notebook
    (other modules are its helpers), else the one module; the student's own test files
    (``test_*.py``, ``*_test.py``, ``conftest.py``) and ``setup.py`` are not counted when
    another module is there.
    `why` is "none" (nothing to grade) or "many" (ambiguous; the candidates are returned).
    """
    top = [r for r in names if "/" not in r]
    if "__init__.py" in top and init_text is not None and _is_package_face(init_text):
        return "__init__.py", None, []
    py = sorted(r for r in top if r.endswith(".py") and r != "__init__.py")
    nbs = sorted(r for r in top if r.endswith(NOTEBOOK_SUFFIX))
    own = [r for r in py if not _NOT_THE_SUBMISSION.match(r)]
    if own:
        py = own
    for n in PREFERRED_NAMES:
        if n in py:
            return n, None, []
    if len(nbs) == 1:      # a notebook with helper modules beside it
        return nbs[0], None, []
    if len(py) == 1 and not nbs:
        return py[0], None, []
    if py or nbs:
        return None, "many", py + nbs
    return None, "none", []


def _is_package_face(text: str) -> bool:
    """Whether an ``__init__.py`` is the face of a package submission: it imports from its own
    modules (``from .layer import lookup``) or defines functions itself. One that only marks a
    folder as a package, or sets ``__version__``, leaves the other rules to choose. Text that
    does not parse is taken as the face (its error is reported when it is imported). A text
    that may not be parsed (parse_is_bounded) is judged by its lines (a top-level ``def`` or
    ``from .``)."""
    if not parse_is_bounded(text):
        return any(line.startswith(("def ", "async def ", "from .")) for line in
                   source_lines(text))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return bool(text.strip())
    return any((isinstance(n, ast.ImportFrom) and n.level > 0)
               or isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in tree.body)


# an import statement's line, in the scan of a long text (linear: no two parts can match the
# same characters): "import a.b, c as d" or "from a.b import ..."
_IMPORT_LINE = re.compile(r"[ \t]*(?:import[ \t]+([\w. \t,]+)|from[ \t]+([\w.]+)[ \t]+import\b)")
_IMPORT_CALL = re.compile(r"""(?:__import__|import_module)\(\s*(?:'([\w.]+)'|"([\w.]+)")""")


def forbidden_imports(text: str) -> list[str]:
    """Modules of the kit or of the test tooling that `text` imports (statically visible).

    Linear in the text and bounded in memory: a text that names none of those packages
    imports none of them (no parse); one that may not be parsed (parse_is_bounded: too
    long, too many braces) is scanned line by line (import
    statements that start a line, ``__import__("x")`` and ``import_module("x")``) instead of
    being parsed into a tree."""
    if not any(name in text for name in FORBIDDEN_PACKAGES):
        return []
    names: list[str] = []
    if not parse_is_bounded(text):
        for line in source_lines(text):
            if not any(name in line for name in FORBIDDEN_PACKAGES):
                continue
            m = _IMPORT_LINE.match(line)
            if m and m.group(1):
                names += [p.split()[0] for p in m.group(1).split(",") if p.split()]
            elif m:
                names.append(m.group(2))
            names += [a or b for a, b in _IMPORT_CALL.findall(line)]
    else:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.append(node.module)
            elif (isinstance(node, ast.Call) and node.args
                  and isinstance(node.args[0], ast.Constant)
                  and isinstance(node.args[0].value, str)
                  and _call_name(node.func) in ("__import__", "import_module")):
                names.append(node.args[0].value)
    found: list[str] = []
    for n in names:
        if n.split(".", 1)[0] in FORBIDDEN_PACKAGES and n not in found:
            found.append(n)
    return found


def _call_name(func) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""
