"""Hostile (copy detection): code run from a .pth file's import line.

The test hands in a folder: this file as `submission.py` and `setup.pth`, whose one line starts
with `import` (site runs such lines with `exec`): `import zlib, base64; exec(...)` of the
reference, compressed. This file only makes its folder a site folder (`site.addsitedir`);
there is no `exec` in any .py file, and a .pth is neither .py nor Python source under another
name, so copy detection never reads it.

Expected: flagged for the staff (rule ``compiled``): `site.addsitedir` here and `setup.pth` with
the line of its `import` (site runs it; the import rule cannot tell that line from Python's own
start-up, so the worker does not refuse it: the flag is what shows it).
"""
import site
from pathlib import Path

site.addsitedir(str(Path(__file__).resolve().parent))
