"""The import rule, applied while a submission runs (standard library only).

A submission may import Python's standard library, its own modules (files in its folder when
the rule is made, before its code runs: one written there at run time is not one of them) and
the packages of ONE list, ``graders/conformance/imports.yaml`` (``sources.ALLOWED_PACKAGES``);
anything else raises ``ModuleNotFoundError``, as it would where the package is not installed,
whatever else is installed where it runs. The same class is installed by ``andrea-conform``
(the students' self-check, in its own process) and by andrea-grade's worker (this package is
copied whole into its sandbox; it gets the list on its command line), so both give the same
verdict on the same submission.

Only imports the submission's own code asks for are judged: an ``import`` statement (through
``builtins.__import__``, also for a module already loaded), ``importlib.import_module`` (also
wrapped while the rule is installed) or any other way through the import system (a meta path
finder, for modules not loaded yet) in a frame of a file in the submission's folder. The libraries it may use
import what they need themselves (matplotlib imports PIL). The kit's own packages are refused
by another guard (the grader's worker, ``sources.forbidden_imports``).

Code that is not source is refused while the rule is installed: the grader reads a
submission's source (copy detection, the tamper scan), so compiled code cannot be compared and
must not run in its place. Compiled Python (a .pyc, through an import statement or importlib's
``SourcelessFileLoader``), a native extension module (``ExtensionFileLoader``,
``_imp.create_dynamic``), modules in a zip archive (``zipimport``) and the ``import`` lines of
a .pth file (``site.addsitedir``, which runs them with ``exec``), bytecode read by
``pkgutil.read_code`` (``runpy.run_path`` of a .pyc) load only from the
interpreter's own folders and those of its installed packages (the ``sys.path`` entries
outside the submission's folder when the rule is installed: ``_code_roots``), never from
the submission's folder or anywhere it can write; the bytecode cache (``__pycache__``) of a
file outside those folders is never read, so a submission's modules run from their source. A
refusal is an ``ImportError`` with ``MSG_COMPILED`` (in the student's language through the
catalogs, ``i18n.PYTHON_MESSAGES``).
"""

from __future__ import annotations

import builtins
import os
import sys
from importlib import _bootstrap_external, machinery

MSG_NOT_ALLOWED = ("No module named {module!r}: a submission may import only Python's standard "
                   "library, its own modules and {allowed}")
MSG_COMPILED = ("{file}: code that is not Python source (compiled bytecode, a native library or "
                "a zip archive) cannot be loaded: a submission's code must be its .py files")


class ImportRule:
    """Refuses, in the submission's frames, imports of modules outside the rule."""

    def __init__(self, allowed, folder: str, leave=(), own=None):
        # `leave`: packages another guard judges (the kit's own: refused as forbidden there);
        # `own`: the names of the modules and packages handed in, where the folder holds more
        # than was handed in (the self-check runs a file where it lies: a helper beside it
        # that the student did not hand in is not theirs to import, as in the grader)
        self.allowed = frozenset(allowed) | frozenset(leave)
        self.listed = tuple(sorted(allowed))
        self.folders = tuple({os.path.join(os.path.abspath(folder), ""),
                              os.path.join(os.path.realpath(folder), "")})
        self.refused: list[str] = []
        self.active = False
        self._import = None
        importlib_dir = os.path.dirname(getattr(sys.modules.get("importlib"), "__file__", "")
                                        or os.devnull)
        self._machinery = (os.path.join(importlib_dir, ""),) if importlib_dir else ()
        # the submission's own modules are the files it handed in: those in its folder when the
        # rule is made (before any of its code runs); a module written there at run time is
        # not one of them (fifth red-team round, tests/attacks/filesystem/written_module.py)
        self._own = _own_names(self.folders) if own is None else frozenset(own)
        self._envs = _environments(self.folders)
        self._roots = _code_roots(self.folders, self._envs)
        self._saved: dict = {}

    # ------------------------------------------------------------------ the rule
    def allows(self, name: str) -> bool:
        top = name.split(".", 1)[0]
        if top in self.allowed or top in sys.builtin_module_names or _stdlib(top):
            return True
        return top in self._own

    def message(self, name: str) -> str:
        return MSG_NOT_ALLOWED.format(module=name.split(".", 1)[0],
                                      allowed=", ".join(self.listed) or "nothing else")

    def _asked_by_submission(self, frame) -> bool:
        """Whether the first frame outside the import machinery runs the submission's code."""
        while frame is not None:
            name = frame.f_code.co_filename
            if not (name.startswith("<frozen importlib") or name.startswith(self._machinery)
                    or frame.f_code is ImportRule.find_spec.__code__
                    or frame.f_code is ImportRule._guarded_import.__code__
                    or frame.f_code is ImportRule._guarded_import_module.__code__
                    or frame.f_code in _WRAPPER_CODES):
                if not os.path.isabs(name) and not name.startswith("<"):
                    name = os.path.abspath(name)     # code compiled with a relative path
                return name.startswith(self.folders) and not name.startswith(self._envs)
            frame = frame.f_back
        return False

    def _refuse(self, name: str) -> ModuleNotFoundError:
        if len(self.refused) < 50:
            self.refused.append(name)
        return ModuleNotFoundError(self.message(name), name=name)

    def trusts_code_at(self, path) -> bool:
        """Whether compiled code at `path` may load: under the interpreter's own folders or an
        installed package's, and not in the submission's folder (unless under such a folder
        inside it: a virtual environment kept in a student's project folder)."""
        try:
            given = os.fspath(path)
            forms = {os.path.join(os.path.abspath(given), ""),
                     os.path.join(os.path.realpath(given), "")}
        except (TypeError, ValueError, OSError):
            return False
        if any(f.startswith(self.folders) and not f.startswith(self._envs) for f in forms):
            return False
        # the path as named (a package folder of links, as the sandbox's site folder is) or
        # as it resolves, under a trusted folder
        return any(f.startswith(self._roots) for f in forms)

    def _refuse_code(self, path) -> ImportError:
        try:
            name = os.path.basename(os.fspath(path)) or str(path)
        except (TypeError, ValueError):
            name = "?"
        if len(self.refused) < 50:
            self.refused.append(name)
        return ImportError(MSG_COMPILED.format(file=name[:200]), path=str(path)[:1000])

    def _hook_code_loaders(self) -> None:
        """Refuse compiled code from outside the trusted folders (see the module docstring)."""
        import _imp
        import pkgutil
        import runpy
        import site
        import zipimport

        rule = self
        saved = self._saved = {
            "sourceless": machinery.SourcelessFileLoader.get_code,
            "dynamic": _imp.create_dynamic,
            "zip_init": zipimport.zipimporter.__init__,
            "cache": _bootstrap_external.cache_from_source,
            "pth": site.addpackage,
            "read_code": pkgutil.read_code,
            "runpy_read_code": getattr(runpy, "read_code", None),   # bound there in 3.10
        }

        def get_code(loader, fullname):
            path = loader.get_filename(fullname)
            if rule.active and not rule.trusts_code_at(path):
                raise rule._refuse_code(path)
            return saved["sourceless"](loader, fullname)

        def create_dynamic(spec, *args):
            origin = getattr(spec, "origin", None)
            if rule.active and not rule.trusts_code_at(origin or ""):
                raise rule._refuse_code(origin or "?")
            return saved["dynamic"](spec, *args)

        def zip_init(importer, path, *args, **kwargs):
            if rule.active and not rule.trusts_code_at(path):
                raise rule._refuse_code(path)     # an ImportError: a path hook passes it
            return saved["zip_init"](importer, path, *args, **kwargs)

        def cache_from_source(path, *args, **kwargs):
            if rule.active and not rule.trusts_code_at(path):
                raise NotImplementedError("the submission's modules run from their source")
            return saved["cache"](path, *args, **kwargs)

        def addpackage(sitedir, name, *args, **kwargs):
            path = os.path.join(str(sitedir), str(name))
            if rule.active and not rule.trusts_code_at(path):
                raise rule._refuse_code(path)     # a .pth's import lines run with exec
            return saved["pth"](sitedir, name, *args, **kwargs)

        def read_code(stream):           # runpy.run_path of a .pyc: no loader, marshal itself
            path = getattr(stream, "name", "")
            if rule.active and not rule.trusts_code_at(path if isinstance(path, str) else ""):
                raise rule._refuse_code(path if isinstance(path, str) else "?")
            return saved["read_code"](stream)

        machinery.SourcelessFileLoader.get_code = get_code
        _imp.create_dynamic = create_dynamic
        zipimport.zipimporter.__init__ = zip_init
        _bootstrap_external.cache_from_source = cache_from_source
        site.addpackage = addpackage
        pkgutil.read_code = read_code
        if saved["runpy_read_code"] is not None:
            runpy.read_code = read_code
        self._hooks = (get_code, create_dynamic, zip_init, cache_from_source, addpackage,
                       read_code)

    def _unhook_code_loaders(self) -> None:
        import _imp
        import pkgutil
        import runpy
        import site
        import zipimport

        if not self._saved:
            return
        get_code, create_dynamic, zip_init, cache_from_source, addpackage, read_code = self._hooks
        if machinery.SourcelessFileLoader.get_code is get_code:
            machinery.SourcelessFileLoader.get_code = self._saved["sourceless"]
        if _imp.create_dynamic is create_dynamic:
            _imp.create_dynamic = self._saved["dynamic"]
        if zipimport.zipimporter.__init__ is zip_init:
            zipimport.zipimporter.__init__ = self._saved["zip_init"]
        if _bootstrap_external.cache_from_source is cache_from_source:
            _bootstrap_external.cache_from_source = self._saved["cache"]
        if site.addpackage is addpackage:
            site.addpackage = self._saved["pth"]
        if pkgutil.read_code is read_code:
            pkgutil.read_code = self._saved["read_code"]
        if getattr(runpy, "read_code", None) is read_code:
            runpy.read_code = self._saved["runpy_read_code"]
        self._saved = {}

    # ------------------------------------------------------------------ hooks
    def find_spec(self, fullname, path=None, target=None):
        if self.active and not self.allows(fullname) and not self._inside(path) and \
                self._asked_by_submission(sys._getframe(1)):
            raise self._refuse(fullname)
        return None

    def _inside(self, path) -> bool:
        """Whether a submodule's search path is the submission's own (a package handed in:
        its modules import each other as ``submission.layer``)."""
        try:
            return any(os.path.join(os.path.abspath(str(p)), "").startswith(self.folders)
                       for p in (path or ()))
        except (TypeError, ValueError):
            return False

    def _guarded_import_module(self, name, package=None):
        if self.active and isinstance(name, str) and not name.startswith(".") and \
                not self.allows(name) and self._asked_by_submission(sys._getframe(1)):
            raise self._refuse(name)
        return self._import_module(name, package)

    def _guarded_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if self.active and level == 0 and isinstance(name, str) and not self.allows(name) and \
                self._asked_by_submission(sys._getframe(1)):
            raise self._refuse(name)
        return self._import(name, globals, locals, fromlist, level)

    def install(self) -> "ImportRule":
        if not self.active:
            self.active = True
            self._import = builtins.__import__
            # plain functions, not bound methods: `builtins.__import__.__self__.remove()`
            # switched the rule off in one line that named nothing the tamper scan looks for
            # (fourth red-team round, tests/attacks/similarity/rule_switched_off.py)
            self._wrappers = _wrappers(self)
            builtins.__import__ = self._wrappers[0]
            import importlib   # an import_module of a module loaded already asks no finder
            self._import_module = importlib.import_module
            importlib.import_module = self._wrappers[1]
            sys.meta_path.insert(0, self)
            self._hook_code_loaders()
        return self

    def remove(self) -> None:
        if not self.active:
            return
        self.active = False       # a later hook that wrapped this one passes through it
        if builtins.__import__ is self._wrappers[0]:
            builtins.__import__ = self._import
        import importlib
        if importlib.import_module is self._wrappers[1]:
            importlib.import_module = self._import_module
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self._unhook_code_loaders()


def _wrappers(rule: ImportRule) -> tuple:
    """`builtins.__import__` and `importlib.import_module` as the rule installs them: closures
    over its guarded methods, with no ``__self__`` that hands the rule to the submission (its
    closure cells are reached only through what the tamper scan flags: ``__closure__``, gc)."""
    guarded_import, guarded_module = rule._guarded_import, rule._guarded_import_module

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        return guarded_import(name, globals, locals, fromlist, level)

    def import_module(name, package=None):
        return guarded_module(name, package)

    return __import__, import_module


# the wrappers' frames belong to the import machinery (ImportRule._asked_by_submission)
_WRAPPER_CODES = frozenset(f.__code__ for f in _wrappers(
    type("_Codes", (), {"_guarded_import": None, "_guarded_import_module": None})()))


def _own_names(folders: tuple) -> frozenset:
    """The names the submission's own modules and packages have now: a ``name.py`` file or a
    ``name`` folder in its folder (none where the folder cannot be read)."""
    names = set()
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir():
                            names.add(entry.name)
                        elif entry.name.endswith(".py") and entry.is_file():
                            names.add(entry.name[:-3])
                    except OSError:
                        continue
        except OSError:
            continue
    return frozenset(names)


def _environments(folders: tuple) -> tuple:
    """Installed packages kept inside the submission's folder, else (): the virtual environment
    this Python runs in (a student's project folder), and a package folder on ``sys.path``
    (named site-packages or dist-packages: the user site of ``pip install --user`` lies in the
    home folder, where a student may keep a notebook; a PYTHONPATH entry). Their code is the
    libraries', not the submission's: their own imports are not judged, their extension modules
    load. The submission's own folder never counts, whatever its name."""
    envs = set()
    installed = [p for p in sys.path if isinstance(p, str) and os.path.isabs(p)
                 and os.path.basename(os.path.normpath(p)) in ("site-packages", "dist-packages")]
    for p in (sys.prefix, sys.exec_prefix, *installed):
        for r in (os.path.join(os.path.abspath(p), ""), os.path.join(os.path.realpath(p), "")):
            if r.startswith(folders) and r not in folders:
                envs.add(r)
    return tuple(sorted(envs))


def _code_roots(folders: tuple, envs: tuple) -> tuple:
    """The folders compiled code may load from: the sys.path entries (the standard library's,
    lib-dynload, the installed packages', the worker's) that are not the current folder, the
    submission's folder or one holding it; one inside the submission's folder only in a virtual
    environment kept there (`envs`). Each as named and as it resolves, ending in a separator."""
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = None
    roots = set()
    for entry in sys.path:
        if not isinstance(entry, str) or not entry or not os.path.isabs(entry):
            continue                         # '' and relative entries: the current folder
        forms = {os.path.join(os.path.abspath(entry), ""),
                 os.path.join(os.path.realpath(entry), "")}
        if any(f.rstrip(os.sep) == cwd or any(d.startswith(f) for d in folders)
               for f in forms):
            continue                         # the current folder, the submission's or above
        if any(f.startswith(folders) and not f.startswith(envs) for f in forms):
            continue                         # inside the submission's folder
        roots |= forms
    return tuple(sorted(roots))


def _stdlib(top: str) -> bool:
    names = getattr(sys, "stdlib_module_names", None)    # Python 3.10+
    return top in names if names is not None else False
