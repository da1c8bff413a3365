"""The import rule, applied while a submission runs (standard library only).

A submission may import Python's standard library, its own modules (files in its folder) and
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
"""

from __future__ import annotations

import builtins
import os
import sys

MSG_NOT_ALLOWED = ("No module named {module!r}: a submission may import only Python's standard "
                   "library, its own modules and {allowed}")


class ImportRule:
    """Refuses, in the submission's frames, imports of modules outside the rule."""

    def __init__(self, allowed, folder: str, leave=()):
        # `leave`: packages another guard judges (the kit's own: refused as forbidden there)
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
        self._own: dict[str, bool] = {}

    # ------------------------------------------------------------------ the rule
    def allows(self, name: str) -> bool:
        top = name.split(".", 1)[0]
        if top in self.allowed or top in sys.builtin_module_names or _stdlib(top):
            return True
        own = self._own.get(top)
        if own is None:
            own = self._own[top] = any(
                os.path.isfile(os.path.join(f, top + ".py")) or os.path.isdir(os.path.join(f, top))
                for f in self.folders)
        return own

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
                    or frame.f_code is ImportRule._guarded_import_module.__code__):
                if not os.path.isabs(name) and not name.startswith("<"):
                    name = os.path.abspath(name)     # code compiled with a relative path
                return name.startswith(self.folders)
            frame = frame.f_back
        return False

    def _refuse(self, name: str) -> ModuleNotFoundError:
        if len(self.refused) < 50:
            self.refused.append(name)
        return ModuleNotFoundError(self.message(name), name=name)

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
            builtins.__import__ = self._guarded_import
            import importlib   # an import_module of a module loaded already asks no finder
            self._import_module = importlib.import_module
            importlib.import_module = self._guarded_import_module
            sys.meta_path.insert(0, self)
        return self

    def remove(self) -> None:
        if not self.active:
            return
        self.active = False       # a later hook that wrapped this one passes through it
        if builtins.__import__ == self._guarded_import:
            builtins.__import__ = self._import
        import importlib
        if importlib.import_module == self._guarded_import_module:
            importlib.import_module = self._import_module
        if self in sys.meta_path:
            sys.meta_path.remove(self)


def _stdlib(top: str) -> bool:
    names = getattr(sys, "stdlib_module_names", None)    # Python 3.10+
    return top in names if names is not None else False
