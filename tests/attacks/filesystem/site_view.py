"""Hostile (looks around the site folder): the worker's packages are links in /sandbox/site
into site-packages folders bound whole at /sandbox/pkgs/N, with everything a submission may not
have covered. This file prints what it finds: the site folder's names, what `import` makes of
the test tooling (a library's `try: import pytest` probe must fail as if it were not installed),
and what is left of the covered entries when reached by their path.

Expected: site/ holds exactly the allowed packages; pytest, _pytest, hypothesis, pluggy and
_hypothesis_globals raise ModuleNotFoundError (importing the kit is a fault of its own, tested
elsewhere); a covered folder is empty and a covered file cannot be read.
"""
import hashlib
import os

SITE = "/sandbox/site"
PKGS = "/sandbox/pkgs"
_names = sorted(os.listdir(SITE))
print("SITE", len(_names), hashlib.sha256("\n".join(_names).encode()).hexdigest()[:16])
for name in ("pytest", "_pytest", "hypothesis", "pluggy", "_hypothesis_globals"):
    try:
        __import__(name)
        print("IMPORT", name, "ok")
    except ImportError as exc:
        print("IMPORT", name, type(exc).__name__)
covered = 0
for root in sorted(os.listdir(PKGS)):
    for entry in sorted(os.listdir(f"{PKGS}/{root}")):
        if entry in _names:
            continue
        covered += 1
        path = f"{PKGS}/{root}/{entry}"
        if os.path.islink(path):
            continue
        if os.path.isdir(path):
            if os.listdir(path):
                print("LEAK", entry, os.listdir(path)[:3])
            continue
        try:
            with open(path, "rb") as f:
                if f.read(64):
                    print("LEAK", entry)
        except OSError:
            pass
print("COVERED", covered)


def norm(v):
    return float(sum(float(x) * float(x) for x in v)) ** 0.5
