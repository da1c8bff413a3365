"""Hostile (copy detection): a reference copy kept in a file that copy detection did not read
as Python, run by a one-line module.

The test builds each folder from the disguised reference (tests/workflow/disguise.py):

* `notes.txt` holding the copy saved as UTF-7 with a PEP 263 coding line, run with
  ``exec(compile(open("notes.txt", "rb").read(), "notes", "exec"))`` (compile honours the
  coding line): a file under another name was read as UTF-8, not as Python reads it (the
  UTF-7 text still parsed and was flagged, by luck: its `+AF8-` runs read as arithmetic);
* `work.ipynb`, a notebook beside the graded module holding the copy in its code cells, run
  with ``exec`` of its cells read as JSON: only the graded notebook's cells were compared,
  and this copy was not flagged.

Both run the reference and score as it does. The `exec` is flagged for the staff
(grader_tamper); copy detection must say what the code is too.

Expected: both flagged reference_copy.
"""
import json

RUN_NOTES = 'exec(compile(open("notes.txt", "rb").read(), "notes", "exec"))\n'
RUN_NOTEBOOK = ('import json\n'
                'for _c in json.load(open("work.ipynb"))["cells"]:\n'
                '    exec("".join(_c["source"]), globals())\n')


def notes_utf7(copy: str) -> bytes:
    """The copy as UTF-7 text with its coding line."""
    return b"# -*- coding: utf-7 -*-\n" + copy.encode("utf-7")


def notebook(copy: str) -> str:
    """A notebook of one code cell holding the copy."""
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                                  "outputs": [], "source": copy.splitlines(keepends=True)}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
