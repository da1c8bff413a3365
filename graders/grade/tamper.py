"""Tamper flags: the places in a submission's source that reach into the grader's machinery.

A submission runs in a worker process of the grader, in the same interpreter as the worker's
own code (``andrea_runtime``: how it receives its arguments, how it answers). Python code can
reach that code (``sys.modules``, ``gc``, frames, ``object.__subclasses__()``, patching a module
the worker uses), native code can change the worker's memory (``ctypes``, ``mmap``), and code
built at run time from data (``exec(zlib.decompress(...))``) hides what it does from every
static reading, copy detection included. No black-box grader can rule out a submission that
notices it is being graded and behaves differently then (a defeat device): each verdict
describes what the submission did to the data the grader gave it. This scan is how the staff
see the attempt: a ``grader_tamper`` flag in the report's ``flags``, with the file and line of
each place. Like every flag it informs the staff and never changes a score.

What is flagged (``RULES``; tests/grade/test_tamper.py measures it: no flag on any correct or
buggy corpus file, a flag on every attack that reaches into the worker):

* ``native``: ``ctypes``, ``_ctypes``, ``cffi``, ``mmap`` (imported or named), and
  ``numpy.ctypeslib`` (ctypes under NumPy's name: ``load_library`` loads a native library);
* ``gc``: walking the interpreter's objects (``gc.get_objects``, ``get_referrers``,
  ``get_referents``, ``garbage``, ``callbacks``);
* ``frames``: ``sys._getframe``, ``sys._current_frames``, ``settrace``/``setprofile``,
  ``inspect``'s frame functions, a frame's ``f_back``/``f_globals``/``f_locals``/
  ``f_builtins`` and ``tb_frame``/``gi_frame``/``cr_frame``/``ag_frame``;
* ``modules``: ``sys.modules``, ``sys.meta_path``, ``sys.path_hooks``,
  ``sys.path_importer_cache``; ``importlib.reload`` of a module that is not the submission's
  own (the standard library's, an installed package's such as NumPy, the grader's) or of what
  the source does not name (``reload(m)`` for an ``m`` it did not import): reloading a helper
  module beside a notebook, the notebook idiom for picking up its edits, is honest;
* ``grader_name``: the grader's packages (``andrea_runtime``, ``andrea_ref``, ``andrea_gpu``,
  ``graders``) named in code or in a string, and the strings that tell grading apart: the
  sandbox's folder ``/sandbox``, Gradescope's ``/autograder``, the grader's ``ANDREA_``
  variables (``ANDREA_GRADE_WORKER``, ...) and the bare prefix ``ANDREA_`` (not a student's
  own ``ANDREA_VOCAB_SIZE``: the course's model is ANDREA);
* ``proc``: a ``/proc/`` path in a string;
* ``builtins``: ``__builtins__``, an attribute of ``builtins`` assigned or deleted;
* ``patch``: an attribute of an imported module assigned or deleted (``np.frombuffer = ...``:
  NumPy is the worker's as much as the submission's), ``setattr``/``delattr`` on one; not
  ``sys.stdout``/``sys.stderr`` (the submission's own output, which the worker captures by
  descriptor) nor an alias NumPy no longer has (``np.float = float``, old code's shim);
* ``code``: ``__code__`` assigned, ``__globals__``, ``__closure__``, ``__subclasses__``,
  ``__self__`` (a bound method's object: the import rule was reached that way),
  ``inspect.getclosurevars``, ``types.CodeType``, and ``getattr``/``setattr`` with any of the names above as a string;
* ``process``: ``os._exit``, ``os.kill``, ``os.fork``, ``os.setsid``, raw descriptors
  (``os.close``, ``os.dup2``, ``os.write``, ...), ``signal``, ``atexit``, ``faulthandler``,
  ``subprocess``, ``socket``, ``multiprocessing``; of ``resource`` only what changes or reads
  the worker's limits (``setrlimit``, ``prlimit``, ``getrlimit``): measuring one's own use
  (``resource.getrusage``, as ``time``, ``tracemalloc`` and ``sys.getsizeof`` do) is honest;
* ``exec`` / ``exec_decoded``: ``exec``, ``eval``, ``compile``, ``__import__``,
  ``importlib.import_module``, ``marshal``, ``runpy``,
  ``InspectLoader.source_to_code`` given anything but a literal, a class of the submission's
  deriving from importlib's loaders or finders (what its ``get_data`` returns is run); ``exec_decoded`` when what it is given is decoded at run time (``zlib``,
  ``base64``, ``codecs``, ``bz2``, ``lzma``, ``gzip``, ``binascii``, ``bytes.fromhex``,
  ``.decode()``), in the call or through a name assigned from such a decoding; unpickling
  is judged by the data, not the call (``pickle_places``): a data file of the submission
  (.pkl, .npy of objects, .npz and zip members, any file that is a pickle stream) or a literal
  whose pickle would import anything beyond plain containers, NumPy arrays and dtypes, and
  ``pickle.loads`` of bytes decoded (``exec_decoded``) or built at run time;
* ``compiled``: code that is not source, which neither copy detection nor this scan can read:
  a file of the submission that is compiled Python (a .pyc's magic number, a marshalled code
  object), a native library (ELF, Mach-O, PE headers; .so, .pyd, .dylib, .dll), a zip archive
  holding modules (importable with ``zipimport``; an .egg, a .whl) or a .pth file with an
  ``import`` line (site runs it); in source,
  importlib's ``SourcelessFileLoader``/``ExtensionFileLoader``, ``zipimport``, ``imp``,
  ``_imp``, ``marshal`` (with a literal too), ``pkgutil.read_code``, importlib's bootstrap
  modules, ``site.addsitedir``, ``spec_from_file_location``/``SourceFileLoader`` given a
  path that is not a .py literal, ``runpy`` given a literal that is not, a bytes or string
  literal that is bytecode, a string naming a compiled file (``.pyc``, ``__pycache__``).
  The worker refuses to load such code (bytecode, native libraries, zip archives, .pth files)
  from the submission's folder or anywhere it can write (``andrea_runtime.import_rule``; not a
  bytecode literal given to ``marshal.loads``): the flag tells the staff what was handed in or
  tried.

Bounded like the grader's other readings of untrusted bytes (``sources.forbidden_imports``,
``similarity``): a file is parsed into a syntax tree only up to ``sources.MAX_AST_CHARS``
characters and ``sources.MAX_AST_BRACES`` braces (``sources.parse_is_bounded``), and at most ``MAX_AST_TOTAL`` characters of a submission are parsed in all; other
text (too long, or not Python: a syntax error) is read by one regular expression of plain
words, in linear time (names in comments count there too; the process modules and
``graders`` only as code: imported or an attribute used, not "the gradient signal" of a
docstring). At most ``MAX_FINDINGS`` places are listed, with how many there were. The scan reads text; it never runs the submission.
"""

from __future__ import annotations

import ast
import json
import re
import sys

from andrea_runtime.cells import source_lines
from graders.conformance.sources import (ALLOWED_PACKAGES, FORBIDDEN_PACKAGES, MAX_AST_CHARS,
                                         cell_at, parse_is_bounded)

KIND = "grader_tamper"
MAX_FINDINGS = 20          # places listed in one flag (the rest counted)
MAX_AST_TOTAL = 512 << 10  # characters of one submission parsed into syntax trees, in all
MAX_SOURCE_CHARS = 160     # of a flagged line, kept to show the staff
MAX_NOTEBOOK_BYTES = 5 << 20
MAX_CHAIN = 4              # attributes of a dotted name resolved (a.b.c.d)
MAX_DECODE_ROUNDS = 8      # assignments in a row through which a decoding is followed

GRADER_PACKAGES = ("andrea_runtime", "andrea_ref", "andrea_gpu", "graders")
NATIVE = {"ctypes", "_ctypes", "cffi", "mmap"}
# ctypes under another name: NumPy's load_library/ndpointer/as_ctypes_type load and call a
# native library without naming ctypes (tests/attacks/similarity/native_via_numpy.py)
NATIVE_DOTTED = ("numpy.ctypeslib",)
PROCESS_MODULES = {"signal", "atexit", "faulthandler", "subprocess", "socket",
                   "multiprocessing", "_thread", "pty", "fcntl", "_posixsubprocess"}
# resource: what changes or reads the worker's limits (getrusage measures one's own use)
_RESOURCE_LIMITS = {"setrlimit", "prlimit", "getrlimit"}
_RELOAD = {"importlib.reload", "imp.reload"}
# Modules that are not a submission's own: reloading one reaches what the worker uses too.
_NOT_OWN = (set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
            | set(ALLOWED_PACKAGES) | set(FORBIDDEN_PACKAGES) | set(GRADER_PACKAGES)
            | {"numpy", "builtins", "__main__", "importlib", "sys", "os"})
RULES = ("native", "gc", "frames", "modules", "grader_name", "proc", "builtins", "patch",
         "code", "process", "exec", "exec_decoded", "compiled")

_GC = {"get_objects", "get_referrers", "get_referents", "garbage", "callbacks"}
_SYS_FRAMES = {"_getframe", "_current_frames", "settrace", "setprofile", "_current_exceptions"}
_INSPECT_FRAMES = {"currentframe", "stack", "trace", "getouterframes", "getinnerframes",
                   "getframeinfo"}
_FRAME_ATTRS = {"f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame",
                "cr_frame", "ag_frame"}
_SYS_IMPORT = {"modules", "meta_path", "path_hooks", "path_importer_cache"}
_CODE_ATTRS = {"__globals__", "__closure__", "__subclasses__", "__builtins__", "__self__"}
_OS_PROCESS = {"_exit", "kill", "killpg", "fork", "forkpty", "setsid", "setpgid", "setpgrp",
               "close", "closerange", "dup", "dup2", "write", "pwrite", "writev", "pwritev",
               "sendfile", "memfd_create", "posix_fallocate", "ftruncate", "truncate",
               "system", "popen", "posix_spawn", "posix_spawnp", "execv", "execve", "execl",
               "execle", "execlp", "execlpe", "execvp", "execvpe", "spawnv", "spawnve",
               "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnvp", "spawnvpe", "pidfd_open",
               "tgkill", "abort"}
_RUN_CODE = {"exec", "eval", "compile", "__import__", "execfile"}
_RUN_CODE_DOTTED = {"importlib.import_module", "importlib.__import__", "marshal.loads",
                    "marshal.load", "pickle.loads", "pickle.load", "pickle.Unpickler",
                    "_pickle.loads", "_pickle.load", "runpy.run_path", "runpy.run_module",
                    "types.FunctionType", "types.CodeType", "code.InteractiveInterpreter",
                    "importlib.abc.InspectLoader.source_to_code",
                    "code.InteractiveConsole"}
_DECODERS = {"zlib", "base64", "codecs", "bz2", "lzma", "gzip", "binascii", "zipfile",
             "tarfile", "quopri", "uu"}
_DECODE_ATTRS = {"fromhex", "decode", "decompress", "b64decode", "b85decode", "a85decode",
                 "b32decode", "b16decode", "urlsafe_b64decode", "unhexlify", "a2b_base64",
                 "a2b_hex"}
# code that is not source (the `compiled` rule)
_COMPILED_MODULES = {"zipimport", "imp", "_imp", "marshal", "_frozen_importlib",
                     "_frozen_importlib_external"}
_COMPILED_DOTTED = {"importlib._bootstrap", "importlib._bootstrap_external", "pkgutil.read_code",
                    "site.addsitedir", "site.main", "site.addpackage"}
_COMPILED_NAMES = {"SourcelessFileLoader", "ExtensionFileLoader", "zipimporter",
                   "_compile_bytecode", "create_dynamic", "load_compiled", "load_dynamic",
                   "read_code", "addsitedir", "cache_from_source", "source_from_cache"}
_FROM_FILE = {"importlib.util.spec_from_file_location", "importlib.machinery.SourceFileLoader",
              "importlib.machinery.FileLoader", "importlib.abc.FileLoader"}
_COMPILED_STRING = re.compile(r"\.py[cod]\b|__pycache__|\.(?:so|dylib|dll|egg|whl)$|"
                              r"\b(?:SourcelessFileLoader|ExtensionFileLoader|zipimporter|"
                              r"_bootstrap_external|create_dynamic)\b")
_NATIVE_MAGIC = (b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe",
                 b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
_COMPILED_SUFFIXES = (".pyc", ".pyo", ".pyd", ".so", ".dylib", ".dll", ".egg", ".whl")
_ZIP_MODULES = (".py", ".pyc", ".pyo", ".pyd", ".so", ".pth")
MAX_ZIP_ENTRIES = 10_000   # names of one archive looked at

# getattr/setattr/delattr with one of these names as a string reaches what the name does
_SENSITIVE_NAMES = (_SYS_FRAMES | _FRAME_ATTRS | _SYS_IMPORT | _CODE_ATTRS | _GC
                    | {"__code__", "__import__", "_exit"})

# The grader's own ANDREA_ names (environment variables: ANDREA_GRADE_WORKER, ANDREA_PROTECT,
# ANDREA_BWRAP, ANDREA_AUTOGRADER_ROOT, ANDREA_VENV, ANDREA_GPU_BACKEND; the kernel prelude's
# macros) and the bare prefix (a probe of os.environ for "ANDREA_"); not any ANDREA_ word: the
# course's model is ANDREA, and ANDREA_VOCAB_SIZE = 8449 or "ANDREA_SMALL" are a student's own
# names (flagged before, fourth red-team round; an identifier in a module read as text too)
_GRADER_VARS = (r"\bANDREA_(?:(?:GRADE|PROTECT|BWRAP|AUTOGRADER|VENV|GPU|EXEC|PROBE|STUB)\w*)?"
                r"(?!\w)")
# "graders" alone is an English word: only as a module path ("graders.grade") or the whole
# string; the sandbox's folder (/sandbox), Gradescope's (/autograder) and the worker's marker
# (ANDREA_GRADE_WORKER, any ANDREA_ variable) tell a submission that it is being graded
_GRADER_STRING = re.compile(r"\b(?:andrea_runtime|andrea_ref|andrea_gpu)\b|"
                            r"(?<![\w./-])graders[./]\w|^graders$|"
                            r"(?<![\w.-])/(?:sandbox|autograder)(?![\w.-])|" + _GRADER_VARS)
_PROC = re.compile(r"/proc/")
# the text scan of what is not parsed: plain words, one alternation (linear)
_TEXT_RULES = (
    ("native", re.compile(r"\b(?:_?ctypes|ctypeslib|cffi|mmap)\b")),
    ("gc", re.compile(r"\bgc\s*\.\s*(?:get_objects|get_referrers|get_referents|garbage|"
                      r"callbacks)\b")),
    ("frames", re.compile(r"\b(?:_getframe|_current_frames|settrace|setprofile|f_back|"
                          r"f_globals|f_locals|f_builtins|tb_frame|gi_frame|cr_frame|"
                          r"ag_frame|currentframe|getouterframes|getinnerframes)\b")),
    ("modules", re.compile(r"\bsys\s*\.\s*(?:modules|meta_path|path_hooks|"
                           r"path_importer_cache)\b")),
    ("grader_name", re.compile(r"\b(?:andrea_runtime|andrea_ref|andrea_gpu)\b|"
                               r"\bgraders\s*\.[A-Za-z_]|/(?:sandbox|autograder)\b|"
                               + _GRADER_VARS)),
    ("proc", _PROC),
    ("builtins", re.compile(r"\b__builtins__\b|\bbuiltins\s*\.\s*\w+\s*=(?!=)")),
    ("code", re.compile(r"\b(?:__code__|__globals__|__closure__|__subclasses__|__self__|"
                        r"getclosurevars|CodeType)\b")),
    # the process modules as code (imported, or an attribute used): "the gradient signal" or
    # "socket" in a docstring is English, not the module (fourth red-team round)
    ("process", re.compile(r"\bos\s*\.\s*(?:_exit|kill|killpg|fork|setsid|dup2|closerange|"
                           r"memfd_create)\b|\b(?:signal|atexit|subprocess|socket|"
                           r"multiprocessing|faulthandler)\s*\.[A-Za-z_]|"
                           r"^[ \t]*(?:import|from)[ \t][^\n]*\b(?:signal|atexit|subprocess|"
                           r"socket|multiprocessing|faulthandler)\b", re.M)),
    ("exec", re.compile(r"\b(?:exec|eval|compile|__import__|import_module|marshal|pickle)"
                        r"\s*\(\s*(?![rRbBuUfF]{0,2}['\"])")),
    ("compiled", re.compile(r"\b(?:SourcelessFileLoader|ExtensionFileLoader|zipimport(?:er)?|"
                            r"_bootstrap_external|read_code|create_dynamic|addsitedir|"
                            r"load_compiled|load_dynamic|marshal)\b|__pycache__|\.py[cod]\b")),
)


def scan_text(text: str, file: str) -> tuple[list[dict], bool]:
    """The places of `text` (one file's Python source) that reach into the grader, each
    {file, line, rule, code}; and whether it was parsed (False: read by the text scan)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # SyntaxWarning: not the staff's concern here
            tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return _text_scan(text, file), False
    try:
        return sorted(_Scan(file).run(tree), key=lambda p: p["line"]), True
    except RecursionError:         # a tree too deep to walk: read as text
        return _text_scan(text, file), False


def _text_scan(text: str, file: str) -> list[dict]:
    out = []
    for rule, pattern in _TEXT_RULES:
        for m in pattern.finditer(text):
            out.append({"file": file, "line": text.count("\n", 0, m.start()) + 1,
                        "rule": rule, "code": m.group(0).strip()[:60]})
            if len(out) > 4 * MAX_FINDINGS:
                break
    out.sort(key=lambda f: f["line"])
    return out


class _Scan(ast.NodeVisitor):
    def __init__(self, file: str):
        self.file = file
        self.pickle_budget = _PickleBudget()
        self.found: list[dict] = []
        self.modules: dict[str, str] = {}    # local name -> what it is ("ctypes", "sys.modules")
        self.decoded: set[str] = set()       # names assigned from a run-time decoding
        self.prose: set[int] = set()         # docstrings and other bare string statements
        self.marked: set[int] = set()        # expressions that decode (_mark_decodings)

    def run(self, tree) -> list[dict]:
        """Imports are bound first (their order in the file does not matter), then what
        decodes data at run time is found for every expression at once (_mark_decodings),
        then every node that may be a place is judged."""
        todo = []
        nodes = list(ast.walk(tree))     # breadth first: a node before its children
        for node in nodes:
            if isinstance(node, (ast.Attribute, ast.Name, ast.Call, ast.Constant, ast.ClassDef)):
                todo.append(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self._bind(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                self.prose.add(id(node.value))
        self._mark_decodings(nodes)
        for node in todo:
            self._visit(node)
        return self.found

    def _mark_decodings(self, nodes: list) -> None:
        """Which expressions decode data at run time (``zlib.decompress(...)``,
        ``x.decode()``), or use a name assigned from such an expression (``self.decoded``,
        through up to MAX_DECODE_ROUNDS assignments in a row), each judged once: children
        before parents (`nodes` in reverse breadth-first order), so the whole tree costs a
        few linear passes. (Walking each assignment's value again for each, as before,
        was quadratic in nested assignments: 25 s for 250 KB of nested ``(a := ...)``.)"""
        assigns = [n for n in nodes if isinstance(
            n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None]
        marked: set[int] = set()
        for n in reversed(nodes):
            if isinstance(n, ast.Call) and self._decoding_call(n):
                marked.add(id(n))
            elif any(id(c) in marked for c in ast.iter_child_nodes(n)):
                marked.add(id(n))
        for _ in range(MAX_DECODE_ROUNDS):
            names = set(self.decoded)
            for a in assigns:
                if id(a.value) in marked:
                    targets = a.targets if isinstance(a, ast.Assign) else [a.target]
                    for t in targets:
                        names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
            if names == self.decoded:
                break
            self.decoded = names
            for n in reversed(nodes):
                if id(n) not in marked and ((isinstance(n, ast.Name) and n.id in names) or any(
                        id(c) in marked for c in ast.iter_child_nodes(n))):
                    marked.add(id(n))
        self.marked = marked

    # ------------------------------------------------------------------ names
    def _bind(self, node) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".", 1)[0]
                self.modules[a.asname or top] = a.name if a.asname else top
                self._module_named(node, a.name)
        elif node.module and node.level == 0:
            for a in node.names:
                self.modules[a.asname or a.name] = f"{node.module}.{a.name}"
            self._module_named(node, node.module)
            for a in node.names:
                self._dotted(node, f"{node.module}.{a.name}")

    def _module_named(self, node, name: str) -> None:
        top = name.split(".", 1)[0]
        if top in NATIVE or _native_dotted(name):
            self._add(node, "native", f"import {name}")
        elif top in GRADER_PACKAGES:
            self._add(node, "grader_name", f"import {name}")
        elif top in PROCESS_MODULES:
            self._add(node, "process", f"import {name}")
        elif top in _COMPILED_MODULES or name in _COMPILED_DOTTED or \
                name.startswith(("importlib._bootstrap", "site.")):
            self._add(node, "compiled", f"import {name}")

    def _dotted_name(self, node) -> str | None:
        """`a.b.c` with `a` resolved through the imports (None if not a plain chain, or one of
        more than MAX_CHAIN attributes: every rule is about a module and its attribute, and the
        first links of a longer chain are judged as nodes of their own, so each node costs a
        bounded walk however long the chain: `a.b.b.b...` was quadratic)."""
        parts = []
        while isinstance(node, ast.Attribute):
            if len(parts) >= MAX_CHAIN:
                return None
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.modules.get(node.id, node.id))
        return ".".join(reversed(parts))

    def _dotted(self, node, name: str) -> None:
        """Judge a resolved dotted name (``sys._getframe``, ``gc.get_objects``)."""
        mod, _, attr = name.rpartition(".")
        top = name.split(".", 1)[0]
        if top in NATIVE or _native_dotted(name):
            self._add(node, "native", name)
        elif top in GRADER_PACKAGES:
            self._add(node, "grader_name", name)
        elif mod == "gc" and attr in _GC:
            self._add(node, "gc", name)
        elif (mod == "sys" and attr in _SYS_FRAMES) or (mod == "inspect"
                                                         and attr in _INSPECT_FRAMES) \
                or (mod == "threading" and attr in ("settrace", "setprofile")):
            self._add(node, "frames", name)
        elif mod == "sys" and attr in _SYS_IMPORT:
            self._add(node, "modules", name)
        elif mod == "resource" and attr in _RESOURCE_LIMITS:
            self._add(node, "process", name)
        elif mod == "os" and attr in _OS_PROCESS:
            self._add(node, "process", name)
        elif name in ("types.CodeType", "inspect.getclosurevars"):
            self._add(node, "code", name)
        elif top in _COMPILED_MODULES or attr in _COMPILED_NAMES or \
                name.startswith(tuple(_COMPILED_DOTTED)):
            self._add(node, "compiled", name)

    # ------------------------------------------------------------------ nodes
    def _visit(self, node) -> None:
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, (ast.Name, ast.Attribute)):
                name = self._dotted_name(node)
                if name is not None and "." in name:
                    self._dotted(node, name)
            if node.attr in _FRAME_ATTRS:
                self._add(node, "frames", "." + node.attr)
            elif node.attr in _CODE_ATTRS:
                self._add(node, "builtins" if node.attr == "__builtins__" else "code",
                          "." + node.attr)
            elif node.attr == "__code__" and isinstance(node.ctx, (ast.Store, ast.Del)):
                self._add(node, "code", ".__code__ =")
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                self._patch(node, node.value, node.attr)
        elif isinstance(node, ast.Name):
            if node.id == "__builtins__":
                self._add(node, "builtins", node.id)
            elif node.id in GRADER_PACKAGES and node.id not in self.modules:
                self._add(node, "grader_name", node.id)
            elif node.id in self.modules and isinstance(node.ctx, ast.Load):
                # a name imported from a module (`from sys import modules`)
                target = self.modules[node.id]
                if "." in target and not target.startswith(tuple(NATIVE)):
                    self._dotted(node, target)
        elif isinstance(node, ast.ClassDef):
            self._loader_class(node)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in self.prose):
            self._string(node, node.value)
            self._pickle_literal(node, node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes):
            kind = compiled_kind(node.value)
            if kind:
                self._add(node, "compiled", f"bytes literal: {kind}")
            self._pickle_literal(node, node.value)
        elif isinstance(node, ast.Call):
            self._call(node)

    def _loader_class(self, node: ast.ClassDef) -> None:
        """A class of the submission's own that derives from importlib's loaders or finders:
        whatever its get_data/get_source/source_to_code return is compiled and run, code that
        copy detection and this scan never read (tests/attacks/similarity/loader_data_copy.py:
        a SourceFileLoader whose get_data decoded a data file ran the reference unflagged)."""
        for base in node.bases[:20]:
            if isinstance(base, ast.Name):
                name = self.modules.get(base.id)
            elif isinstance(base, ast.Attribute):
                name = self._dotted_name(base)
            else:
                name = None
            if name and name.startswith("importlib.") and \
                    name.rsplit(".", 1)[-1].endswith(("Loader", "Finder")):
                self._add(node, "exec", f"class {node.name[:40]}({name})")
                return

    def _string(self, node, s: str) -> None:
        if len(s) > 100_000:       # a long data string: the plain words only (linear)
            s = s[:100_000]
        if _GRADER_STRING.search(s):
            self._add(node, "grader_name", repr(s[:60]))
        elif _PROC.search(s):
            self._add(node, "proc", repr(s[:60]))
        elif _COMPILED_STRING.search(s):
            self._add(node, "compiled", repr(s[:60]))
        elif len(s) >= 16 and max(s[:40]) < "\u0100" and \
                compiled_kind(s[:40].encode("latin-1")):
            self._add(node, "compiled", "string literal: bytecode")

    def _pickle_literal(self, node, value) -> None:
        """A literal that is a pickle (``pickle.loads(b"...")``, an ``io.BytesIO`` of one, a
        name bound to one) is judged as a data file is: flagged when it would call code."""
        if isinstance(value, str):
            if len(value) > MAX_PICKLE_BYTES or not value or max(value) >= "\u0100":
                return
            value = value.encode("latin-1")
        if len(value) < 4 or not (value[:1] == b"\x80" or value.rstrip()[-1:] == b"."):
            return                       # every pickle ends with STOP ('.')
        got = pickle_globals(value, self.pickle_budget, whole=True)
        if got and got[0]:
            calls = ", ".join(dict.fromkeys(got[0]))[:80]
            self._add(node, "exec", f"pickle literal that calls {calls}")

    def _patch(self, node, owner, attr: str) -> None:
        """An attribute assigned or deleted: of builtins, or of an imported module."""
        if not isinstance(owner, ast.Name) or owner.id not in self.modules:
            return
        target = self.modules[owner.id]
        if target.split(".", 1)[0] == "builtins":
            self._add(node, "builtins", f"{target}.{attr} =")
        elif target == "sys" and attr in _OWN_STREAMS:
            return     # its own output (print into a buffer, silenced): the worker answers
            #            on descriptors of its own, and captures what is printed by descriptor
        elif target == "numpy" and not _numpy_has(attr):
            return     # an alias NumPy removed (np.float = float, old code's shim): nothing
            #            the worker uses is replaced
        elif not target.split(".", 1)[0].startswith("__"):
            self._add(node, "patch", f"{target}.{attr} =")

    def _call(self, node: ast.Call) -> None:
        func = node.func
        name = (func.id if isinstance(func, ast.Name) and func.id not in self.modules
                else self._dotted_name(func))
        if name is None:
            return
        args = list(node.args) + [k.value for k in node.keywords]
        if name in _RELOAD:
            self._reload(node, args[0] if args else None)
            return
        if name in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2:
            attr = node.args[1]
            if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                if attr.value in _SENSITIVE_NAMES:
                    self._add(node, "code", f"{name}(..., {attr.value!r})")
                elif name in ("setattr", "delattr"):
                    self._patch(node, node.args[0], attr.value)
            elif name in ("setattr", "delattr"):
                self._patch(node, node.args[0], "<name>")
        if name in _FROM_FILE:          # the loader follows the path's suffix (.pyc, .so)
            kw = {k.arg: k.value for k in node.keywords}
            path = node.args[1] if len(node.args) > 1 else kw.get("location", kw.get("path"))
            if not _py_literal(path):
                self._add(node, "compiled", f"{name}(...)")
        elif name.startswith("runpy.") and node.args and _literal(node.args[0]) \
                and not _py_literal(node.args[0]):
            self._add(node, "compiled", f"{name}(...)")   # a .pyc, a zip, a module by name
        if name in _RUN_CODE or name in _RUN_CODE_DOTTED:
            first = node.args[0] if node.args else (args[0] if args else None)
            if name.split(".", 1)[0] in ("pickle", "_pickle"):
                self._unpickle(node, name, first)
                return
            if name in ("__import__", "importlib.import_module", "importlib.__import__") \
                    and _literal(first):
                self._module_named(node, first.value)
                return
            if first is None or not _literal(first):
                decoded = first is not None and self._decodes(first)
                self._add(node, "exec_decoded" if decoded else "exec", f"{name}(...)")

    def _unpickle(self, node, name: str, first) -> None:
        """``pickle.load(f)``/``loads(data)``: judged by the data, not the call. A data file
        of the submission and a literal are read for the code they would call (file_places,
        _pickle_literal); what the source cannot show is flagged: bytes decoded at run time
        (``exec_decoded``) or built there from pieces (``exec``)."""
        if first is None:
            return
        if self._decodes(first):
            self._add(node, "exec_decoded", f"{name}(...)")
            return
        while isinstance(first, ast.Call) and self._dotted_name(first.func) in (
                "io.BytesIO", "BytesIO") and first.args:
            first = first.args[0]     # a stream over bytes: the bytes
        built = isinstance(first, (ast.BinOp, ast.JoinedStr)) or (
            isinstance(first, ast.Call) and (
                (isinstance(first.func, ast.Name) and first.func.id in ("bytes", "bytearray"))
                or (isinstance(first.func, ast.Attribute)
                    and first.func.attr in ("encode", "join", "replace", "translate"))))
        if built:
            self._add(node, "exec", f"{name}(...) of bytes built at run time")

    def _reload(self, node, arg) -> None:
        """``importlib.reload(m)``: honest for a module of the submission's own (a helper beside
        the notebook, imported by the source); flagged for any other module (NumPy's, the
        standard library's, the grader's) or for what the source did not import itself."""
        target = self._dotted_name(arg) if arg is not None else None
        if target is not None:
            head = arg
            while isinstance(head, ast.Attribute):
                head = head.value
            own = (head.id in self.modules
                   and target.split(".", 1)[0] not in _NOT_OWN)
            if own:
                return
        self._add(node, "modules", f"importlib.reload({target or '...'})")

    def _decodes(self, expr) -> bool:
        """Whether `expr` decodes data at run time, or names what was assigned from that
        (judged for every expression at once by _mark_decodings)."""
        return id(expr) in self.marked

    def _decoding_call(self, n: ast.Call) -> bool:
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr in _DECODE_ATTRS:
            return True
        name = self._dotted_name(f)
        return bool(name and name.split(".", 1)[0] in _DECODERS)

    def _add(self, node, rule: str, code: str) -> None:
        self.found.append({"file": self.file, "line": getattr(node, "lineno", 0),
                           "rule": rule, "code": code})


_OWN_STREAMS = {"stdout", "stderr"}


def _numpy_has(attr: str) -> bool:
    """Whether the grader's NumPy has `attr` (a removed alias such as ``float`` it has not;
    the worker runs the same NumPy)."""
    try:
        import numpy
        return hasattr(numpy, attr)
    except Exception:  # noqa: BLE001 - a NumPy that fails to say: judge it as present
        return True


def _native_dotted(name: str) -> bool:
    return any(name == d or name.startswith(d + ".") for d in NATIVE_DOTTED)


def _py_literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) \
        and node.value.endswith(".py")


def _literal(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


# ----------------------------------------------------------------------------- a submission
def notebook_cells(data: bytes) -> list[tuple[int, str]]:
    """(cell number, source) of the code cells of a notebook that is not the one graded (a
    helper beside it), read as JSON (linear); [] if it is not one."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        return []
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    cells = nb.get("cells") if isinstance(nb, dict) else None
    out = []
    for number, cell in enumerate(cells if isinstance(cells, list) else [], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source")
        src = "".join(s for s in src if isinstance(s, str)) if isinstance(src, list) else src
        if isinstance(src, str):
            out.append((number, src))
    return out


def compiled_kind(data: bytes) -> str | None:
    """What compiled code `data` begins with (its first bytes only: constant time), else None:
    a .pyc of Python 3 (the magic number, ``\\r\\n``, the flags word, a code object), a
    marshalled code object (the type byte, small int fields, its code string), a native
    library (ELF, Mach-O, PE)."""
    head = bytes(data[:64])
    if len(head) >= 17 and head[2:4] == b"\r\n" and \
            3000 <= int.from_bytes(head[:2], "little") < 4096 and \
            head[4:8] in (b"\0\0\0\0", b"\1\0\0\0", b"\3\0\0\0") and head[16] in (0x63, 0xE3):
        return "compiled Python (.pyc)"
    if head[:1] in (b"c", b"\xe3"):
        for fields in (5, 6):            # Python 3.11+, 3.8-3.10: int fields before the code
            end = 1 + 4 * fields
            if len(head) > end and head[end] in (0x73, 0xF3) and all(   # counts, then flags
                    int.from_bytes(head[k:k + 4], "little") < (1 << 20 if k < end - 4 else 1 << 30)
                    for k in range(1, end, 4)):
                return "marshalled code object"
    if head.startswith(_NATIVE_MAGIC):
        return "native library"
    if head[:2] == b"MZ" and len(data) > 0x40:
        at = int.from_bytes(bytes(data[0x3C:0x40]), "little")
        if bytes(data[at:at + 4]) == b"PE\0\0":
            return "native library (PE)"
    return None


def _zip_modules(data: bytes) -> str | None:
    """The first module an archive holds (what zipimport would import), else None; the names
    of its central directory only (at most MAX_ZIP_ENTRIES), nothing decompressed."""
    import io
    import zipfile

    if b"PK\x05\x06" not in data[-(65536 + 22):]:
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for k, info in enumerate(z.infolist()):
                if k >= MAX_ZIP_ENTRIES:
                    break
                if info.filename.lower().endswith(_ZIP_MODULES):
                    return info.filename[:100]
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError,
            MemoryError, RecursionError):
        return None
    return None


def file_places(files: dict[str, bytes]) -> list[dict]:
    """The files of a submission that are code the grader cannot read as source (the
    ``compiled`` rule), each {file, line, rule, code, source}: a .pth names the first line
    that site would run (``import``)."""
    out = []
    for rel in sorted(files):
        data = files[rel]
        kind = compiled_kind(data)
        if kind is None:
            zipped = _zip_modules(data)
            if zipped is not None:
                kind = f"zip archive holding {zipped}"
        line, source = 1, ""
        if kind is None and rel.lower().endswith(".pth"):   # site runs its import lines
            text = data[:1 << 16].decode("utf-8", "replace")
            for k, row in enumerate(text.splitlines(), 1):
                if row.startswith(("import ", "import\t")):
                    kind, line, source = ".pth file", k, row.strip()[:MAX_SOURCE_CHARS]
                    break
        elif kind is None and rel.lower().endswith(_COMPILED_SUFFIXES):
            kind = f"{rel.rsplit('.', 1)[-1].lower()} file"
        if kind is None:
            continue
        out.append({"file": rel, "line": line, "rule": "compiled", "code": kind,
                    "source": source})
    return out


def submission_places(parts: list[tuple[str, str]], files: dict[str, bytes] | None = None,
                      notebook: tuple[str, str, list] | None = None) -> tuple[list[dict], int]:
    """Every place of a submission that reaches into the grader, in file order, and how many
    there are (each place once: file, line, rule).

    `parts`: its Python files, (file, text), as the copy flags read them
    (``similarity.python_parts``); `files`: all its files (the other notebooks' code cells are
    read too); `notebook`: (generated module, notebook name, line map) of a notebook submission,
    whose places are named by cell and line (its prelude, the grader's own, is not read)."""
    found: list[dict] = []
    parsed = 0
    gen, origin, line_map = notebook if notebook else (None, None, None)

    def scan(text: str, file: str) -> list[dict]:
        nonlocal parsed
        if parse_is_bounded(text) and parsed + len(text) <= MAX_AST_TOTAL:
            places, was_parsed = scan_text(text, file)
            parsed += len(text) if was_parsed else 0
            return places
        return _text_scan(text, file)

    for file, text in parts:
        lines = source_lines(text)      # where Python ends lines, as the tree numbers them
        for p in scan(text, file):
            line = p["line"]
            p["source"] = lines[line - 1].strip()[:MAX_SOURCE_CHARS] \
                if 1 <= line <= len(lines) else ""
            if file == gen and line_map is not None:
                at = cell_at(line_map, line)
                if at is None:
                    continue                 # the notebook's prelude: the grader's own lines
                p.update(file=origin, cell=at[0], line=at[1])
            found.append(p)
    for file in sorted(files or {}):
        if not file.endswith(".ipynb") or file == origin:
            continue
        for cell, src in notebook_cells(files[file]):
            lines = source_lines(src)
            for p in scan(src, file):
                line = p["line"]
                p["source"] = lines[line - 1].strip()[:MAX_SOURCE_CHARS] \
                    if 1 <= line <= len(lines) else ""
                p["cell"] = cell
                found.append(p)
    found += file_places(files or {})
    found += pickle_places(files or {}, skip={f for f, _ in parts})
    seen, out = set(), []
    for p in found:
        key = (p["file"], p.get("cell"), p["line"], p["rule"])
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out, len(out)


def tamper_flags(parts: list[tuple[str, str]], files: dict[str, bytes] | None = None,
                 notebook: tuple[str, str, list] | None = None) -> list[dict]:
    """[{kind: grader_tamper, places, count, rules, message}] when the submission's source
    reaches into the grader (see the module docstring), else []."""
    places, count = submission_places(parts, files, notebook)
    if not places:
        return []
    rules = sorted({p["rule"] for p in places}, key=RULES.index)
    listed = places[:MAX_FINDINGS]
    return [{"kind": KIND, "count": count, "rules": rules, "places": listed,
             "message": tamper_message(rules, listed, count)}]


def where(place: dict) -> str:
    """``hw.py, line 12`` or ``hw.ipynb, cell 3, line 4`` (the formats say it in the report's
    language: formats.tamper_place)."""
    cell = place.get("cell")
    return (f"{place['file']}, cell {cell}, line {place['line']}" if cell
            else f"{place['file']}, line {place['line']}")


def tamper_message(rules: list[str], places: list[dict], count: int) -> str:
    """The flag's message in English (the formats give it in the report's language)."""
    shown = "; ".join(f"{where(p)} {p['code']}" for p in places[:5])
    more = f" (and {count - 5} more)" if count > 5 else ""
    return (f"this submission's source reaches into the grader's machinery "
            f"({', '.join(rules)}): {shown}{more}; a submission that can tell it is being "
            "graded may behave differently then: read it before accepting the score")


# ----------------------------------------------------------------------------- pickled data
# Unpickling calls what a pickle names: `pickle.load`, `np.load(..., allow_pickle=True)`,
# `pandas.read_pickle`, `joblib.load` alike. Whether that runs code is a property of the data,
# not of the call (npy_pickle_copy.py ran the reference from a .npy with no flag, while an
# honest `pickle.load` of a cached vocabulary was flagged): every data file of a submission and
# every bytes or string literal that parses as a pickle stream is read opcode by opcode
# (`pickletools.genops`, linear, under MAX_PICKLE_OPS) and flagged (`exec`) when it would
# import anything beyond plain containers, NumPy arrays and dtypes (and a tensor's rebuilding).
MAX_PICKLE_BYTES = 16 << 20    # of one file or archive member read for pickle streams
MAX_PICKLE_OPS = 2_000_000     # opcodes read in one submission, in all
MAX_PICKLE_MEMBERS = 1_000     # members of one archive (.npz, .pt) read
MAX_TEXT_PICKLE_OPS = 100_000  # opcodes read in one file not named as a pickle (its own cap:
#                                text fails within a few bytes; a padding file cannot spend the
#                                budget of the pickles after it)
PICKLE_SUFFIXES = (".pkl", ".pickle", ".npy", ".npz", ".pt", ".pth", ".joblib", ".p", ".ckpt")
_PICKLE_ALLOWED = {
    "builtins": {"object", "set", "frozenset", "list", "dict", "tuple", "bytearray", "bytes", "complex",
                 "int", "float", "str", "bool", "slice", "range"},
    "__builtin__": {"object", "set", "frozenset", "list", "dict", "tuple", "bytearray", "bytes",
                    "complex", "int", "float", "str", "unicode", "bool", "slice", "xrange",
                    "long"},
    "_codecs": {"encode"},        # how protocol 2 spells bytes
    "collections": {"OrderedDict", "defaultdict", "Counter", "deque"},
    "numpy": {"ndarray", "dtype"},
    "numpy.core.multiarray": {"_reconstruct", "scalar"},
    "numpy._core.multiarray": {"_reconstruct", "scalar"},
    "numpy.core.numeric": {"_frombuffer"},
    "numpy._core.numeric": {"_frombuffer"},
    "numpy.ma": {"MaskedArray"},
    "numpy.ma.core": {"_mareconstruct", "MaskedArray"},
    # a generator's state (np.random.default_rng(0) pickled): constructors by name
    "numpy.random._pickle": {"__generator_ctor", "__bit_generator_ctor",
                             "__randomstate_ctor"},
    "numpy.random.bit_generator": {"SeedSequence", "__pyx_unpickle_SeedSequence"},
    "numpy.random._pcg64": {"PCG64", "PCG64DXSM"},
    "numpy.random._mt19937": {"MT19937"},
    "numpy.random._philox": {"Philox"},
    "numpy.random._sfc64": {"SFC64"},
    "numpy.random.mtrand": {"RandomState"},
    # protocols 0-1 (and dok_matrix) rebuild an object as cls.__new__ + base.__init__: both
    # are globals of the pickle, judged here too
    "copyreg": {"_reconstructor"},
    "copy_reg": {"_reconstructor"},
    "torch._utils": {"_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_parameter"},
    "torch": {"Size", "device", "float32", "float64", "float16", "bfloat16", "int64", "int32",
              "int16", "int8", "uint8", "bool", "FloatStorage", "DoubleStorage",
              "HalfStorage", "BFloat16Storage", "LongStorage", "IntStorage", "ShortStorage",
              "CharStorage", "ByteStorage", "BoolStorage"},
}
_PICKLE_STRINGS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING",
                   "BINSTRING", "SHORT_BINSTRING"}
_PICKLE_NO_PUSH = {"MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT", "FRAME", "PROTO"}


_SPARSE = {"csr", "csc", "coo", "lil", "dok", "bsr", "dia"}


def _numpy_dtype_class(module: str, name: str) -> bool:
    """NumPy 2's dtype classes (numpy.dtypes.Float64DType), how some dtypes pickle; SciPy's
    sparse matrices and arrays (``scipy.sparse._csr.csr_matrix``: a table a student caches)."""
    if module == "numpy.dtypes":
        return name.endswith("DType") and name.isidentifier()
    head, _, kind = module.rpartition(".")
    return head == "scipy.sparse" and kind.lstrip("_") in _SPARSE and \
        name in (f"{kind.lstrip('_')}_matrix", f"{kind.lstrip('_')}_array")


class _PickleBudget:
    def __init__(self, ops: int = MAX_PICKLE_OPS):
        self.ops = ops


def pickle_globals(data: bytes, budget: _PickleBudget | None = None,
                   whole: bool = True) -> tuple[list[str], bool] | None:
    """What the pickle streams at the start of `data` would import beyond the allowlist
    (``module.name``; ``?`` when a STACK_GLOBAL's names cannot be told, or an extension code,
    or the streams are longer than the budget: fail closed), and whether the whole of `data`
    was pickle streams. None when `data` does not begin with a pickle stream (or, `whole`,
    when it is not pickle streams through to its end)."""
    import io
    import pickletools

    budget = budget or _PickleBudget()
    found: list[str] = []
    pos, streams = 0, 0
    buf = io.BytesIO(data)
    while pos < len(data):
        memo: dict = {}
        last: list = [None, None]     # the last two values pushed (None: not a string)
        stream_found: list[str] = []
        try:
            for op, arg, _at in pickletools.genops(buf):
                budget.ops -= 1
                if budget.ops < 0:      # valid opcodes all along: fail closed
                    return found + stream_found + ["? (a pickle longer than the scan "
                                                   "reads)"], False
                name = op.name
                if name in _PICKLE_STRINGS:
                    value = arg if isinstance(arg, str) else None
                    last = [last[1], value]
                elif name in ("GLOBAL", "INST"):
                    module, _, attr = (arg or "").partition(" ")
                    if attr not in _PICKLE_ALLOWED.get(module, ()) and \
                            not _numpy_dtype_class(module, attr):
                        stream_found.append(f"{module}.{attr}"[:80])
                    last = [last[1], None]
                elif name == "STACK_GLOBAL":
                    module, attr = last
                    if module is None or attr is None:
                        stream_found.append("?")
                    elif attr not in _PICKLE_ALLOWED.get(module, ()) and \
                            not _numpy_dtype_class(module, attr):
                        stream_found.append(f"{module}.{attr}"[:80])
                    last = [None, None]
                elif name in ("EXT1", "EXT2", "EXT4"):
                    stream_found.append("? (copyreg extension code)")
                    last = [last[1], None]
                elif name == "MEMOIZE":
                    memo[len(memo)] = last[1]
                elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                    memo[arg] = last[1]
                elif name in ("GET", "BINGET", "LONG_BINGET"):
                    last = [last[1], memo.get(arg)]
                elif name not in _PICKLE_NO_PUSH:
                    last = [last[1], None]
        except (ValueError, KeyError, TypeError, IndexError, OverflowError, EOFError,
                UnicodeDecodeError, MemoryError, RecursionError):
            if streams == 0:
                return None
            break                     # trailing bytes that are not a pickle
        streams += 1
        found += stream_found
        pos = buf.tell()
    # a file that is not named as a pickle is one when it parses through to its end, or when
    # it declares a protocol (pickle.load reads one stream and leaves what follows)
    if streams == 0 or (whole and pos < len(data) and data[:1] != b"\x80"):
        return None
    return found, pos >= len(data)


def _npy_pickle(data: bytes) -> bytes | None:
    """The pickle of a .npy file of objects (what follows its header), else None."""
    if not data.startswith(b"\x93NUMPY") or len(data) < 10:
        return None
    major = data[6]
    if major == 1:
        size, start = int.from_bytes(data[8:10], "little"), 10
    elif major in (2, 3) and len(data) >= 12:
        size, start = int.from_bytes(data[8:12], "little"), 12
    else:
        return None
    header = data[start:start + size]
    if b"'O'" not in header and b'"O"' not in header and b"|O" not in header:
        return None                   # plain numbers: no pickle
    return data[start + size:]


def _pickle_streams(rel: str, data: bytes, depth: int = 0):
    """(name, bytes) of each pickle candidate of a file: a .npy's object payload, each member
    of a zip archive (.npz, a torch .pt), the file itself."""
    data = bytes(data[:MAX_PICKLE_BYTES])
    if data.startswith(b"\x93NUMPY"):
        npy = _npy_pickle(data)
        if npy is not None:           # an array of objects: its pickle
            yield rel, npy, False
        return                        # numbers: no pickle
    if depth == 0 and b"PK\x05\x06" in data[-(65536 + 22):]:
        import zipfile
        try:
            unpacked = 0
            with zipfile.ZipFile(io_bytes(data)) as z:
                for k, info in enumerate(z.infolist()):
                    if k >= MAX_PICKLE_MEMBERS:
                        break
                    if info.is_dir():
                        continue
                    with z.open(info) as member:
                        body = member.read(1 << 12)
                        if body.startswith(b"\x93NUMPY") and _npy_pickle(body) is None \
                                and b"\n" in body:
                            continue          # an array of numbers: its header says so
                        unpacked += info.file_size     # what zipfile will read, at most
                        if info.file_size > MAX_PICKLE_BYTES or unpacked > 4 * MAX_PICKLE_BYTES:
                            yield f"{rel}:{info.filename[:100]}", b"", None   # a bomb: fail
                            return                                            # closed
                        body += member.read(MAX_PICKLE_BYTES)
                    for item in _pickle_streams(f"{rel}:{info.filename[:100]}", body, 1):
                        yield item
            return
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError,
                MemoryError, RecursionError, RuntimeError):
            pass
    yield rel, data, not rel.lower().endswith(PICKLE_SUFFIXES)


def io_bytes(data: bytes):
    import io
    return io.BytesIO(data)


def pickle_places(files: dict[str, bytes], skip: set | None = None) -> list[dict]:
    """The data files of a submission whose pickles would run code when loaded (rule ``exec``),
    each {file, line, rule, code, source}."""
    budget = _PickleBudget()
    text_budget = _PickleBudget()    # files not named as pickles, in all
    out = []
    for rel in sorted(files):
        if skip and rel in skip:
            continue
        for name, data, must_be_whole in _pickle_streams(rel, files[rel]):
            if must_be_whole is None:
                out.append({"file": rel, "line": 1, "rule": "exec", "source": name,
                            "code": "archive member larger than the scan reads"})
                break
            own = must_be_whole and data[:1] != b"\x80"
            if own:
                if text_budget.ops <= 0:     # padding spent it: fail closed, once
                    out.append({"file": rel, "line": 1, "rule": "exec", "source": "",
                                "code": "pickle data past what the scan reads"})
                    return out
                sub = _PickleBudget(min(MAX_TEXT_PICKLE_OPS, text_budget.ops))
                got = pickle_globals(data, sub, whole=True)
                text_budget.ops -= min(MAX_TEXT_PICKLE_OPS, text_budget.ops) - max(sub.ops, 0)
            else:
                got = pickle_globals(data, budget, whole=must_be_whole)
            if got and got[0]:
                calls = ", ".join(dict.fromkeys(got[0]))[:MAX_SOURCE_CHARS]
                out.append({"file": rel, "line": 1, "rule": "exec",
                            "code": f"pickle that calls {calls}",
                            "source": name if name != rel else ""})
                break
    return out
