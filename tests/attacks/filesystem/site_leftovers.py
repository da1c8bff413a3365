"""Hostile (left-out packages): reach the test tooling or the kit through another path.

The worker's site folder leaves out the kit (andrea_ref, andrea_gpu, graders, spec), the test
tooling (pytest, hypothesis, pluggy) and the import hooks (.pth, __editable__ finders), but the
interpreter's own installation is bound whole (its standard library is needed), and with it
whatever pip installed into that interpreter's site-packages, and /usr holds the system's
dist-packages. The submission looks everywhere a package could be: every site-packages or
dist-packages folder under sys.base_prefix, /usr and /usr/local, and every folder bound at
/sandbox/pkgs/N (including the covered entries, .pth files, __pycache__ and dist-info RECORD
files that list where the kit is). For each folder it tries to import pytest, _pytest,
hypothesis, pluggy and the kit's packages with that folder first on sys.path, and it reports
what imported (with code: an empty covered folder imports as an empty namespace package,
which holds nothing) and which left-out entries showed content. norm() is correct.

Expected: nothing imports, every left-out entry is empty (an empty read-only tmpfs, or /dev/null),
no RECORD or .pth names a path that exists in the sandbox, and the norm check passes.
"""
import glob
import importlib
import json
import os
import sys

import numpy as np

_TOOLING = ("pytest", "_pytest", "hypothesis", "pluggy")
_WANTED = _TOOLING + ("andrea_ref", "andrea_gpu", "graders",
           "spec")


def _folders():
    pats = [os.path.join(sys.base_prefix, "lib", "python3*", "*-packages"),
            os.path.join(sys.prefix, "lib", "python3*", "*-packages"),
            "/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages",
            "/usr/lib/python3/dist-packages", "/sandbox/pkgs/*", "/sandbox/site"]
    out = []
    for p in pats:
        for d in sorted(glob.glob(p)):
            if os.path.isdir(d) and d not in out:
                out.append(d)
    return out


def _try_imports(folder):
    got = []
    for name in _TOOLING:   # (importing the kit is refused by name: see _leftover_content)
        saved = list(sys.path)
        sys.path.insert(0, folder)
        try:
            for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                del sys.modules[mod]
            importlib.invalidate_caches()
            mod = importlib.import_module(name)
            where = getattr(mod, "__file__", None)   # None: an empty namespace package
            if where and folder in where:
                got.append(f"{name} from {where}")
        except BaseException:  # noqa: BLE001 - refused, missing, or broken: all fine
            pass
        finally:
            sys.path[:] = saved
    return got


def _leftover_content(folder):
    """Entries left out of the site folder that still show something."""
    shown = []
    for entry in sorted(os.listdir(folder)):
        top = entry.split(".", 1)[0].split("-", 1)[0]
        path = os.path.join(folder, entry)
        if top in _WANTED or entry.endswith(".pth") or entry.startswith("__") \
                or top.startswith("andrea_conformance"):
            try:
                if os.path.isdir(path):
                    if os.listdir(path):
                        shown.append(path)
                elif os.path.getsize(path) or open(path, "rb").read(1):
                    shown.append(path)
            except OSError:
                pass
    return shown


def _records():
    """dist-info RECORD files naming kit paths that exist here."""
    found = []
    for rec in glob.glob("/sandbox/pkgs/*/*.dist-info/RECORD") + \
            glob.glob("/sandbox/site/*.dist-info/RECORD"):
        try:
            text = open(rec, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        base = os.path.dirname(os.path.dirname(rec))
        for line in text.splitlines():
            rel = line.split(",", 1)[0]
            if rel.split("/", 1)[0] in _WANTED or rel.endswith(".pth"):
                path = os.path.normpath(os.path.join(base, rel))
                if os.path.isfile(path) and os.path.getsize(path):
                    found.append(path)
    return found


_report = {"imported": [], "shown": [], "records": []}
for _f in _folders():
    _report["imported"] += _try_imports(_f)
    if _f.startswith("/sandbox/pkgs/") or "-packages" in _f:
        _report["shown"] += _leftover_content(_f)
_report["records"] = _records()
print("SITE-REPORT " + json.dumps(_report), flush=True)


def norm(v):
    return float(np.linalg.norm(np.asarray(v, dtype=np.float64)))
