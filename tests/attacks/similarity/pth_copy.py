"""Hostile (copy detection): code run from a .pth file's import line.

The test hands in a folder: this file as `submission.py` and `setup.pth`, whose one line starts
with `import` (site runs such lines with `exec`): `import builtins, zlib, base64; exec(...)` of
the reference, compressed, into the builtins. This file only makes its folder a site folder
(`site.addsitedir`) and names what appeared; there is no `exec` in any .py file, and a .pth is
neither .py nor Python source under another name, so copy detection never reads it (nor did the
import rule judge the line's imports: its frame is `<string>`, no file of the submission).

Expected: the worker refuses a .pth outside the interpreter's and the installed packages'
folders (the import rule wraps `site.addpackage`): an ImportError the student reads in their
language; the staff see `setup.pth` with the line of its `import` and `site.addsitedir` flagged
(rule ``compiled``).
"""
import site
from pathlib import Path

site.addsitedir(str(Path(__file__).resolve().parent))

lookup, embed, embed_backward = lookup, embed, embed_backward  # noqa: F821 - from the .pth
init_table, dot, norm, cosine_similarity = init_table, dot, norm, cosine_similarity  # noqa: F821
