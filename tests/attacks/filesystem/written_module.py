"""Hostile (copy detection, tamper scan; the writable copy of ee1426c): the submission writes
a module into its own folder at run time and imports it with a plain ``import``.

The test hands in this file as `submission.py` beside `vocab.bin`, the reference module
XOR-ed with one byte. Since ee1426c the worker runs the submission from a writable copy of its
files, whose folder is sys.path[0] and the import rule's "own modules" folder: a `fastpath.py`
written there at run time is one of the submission's own modules. No exec, eval, compile,
loader or decoding module is named; copy detection reads this file only.

Expected: a module that was not handed in does not import (or is flagged for the staff).
Happened (main at edebcec, bubblewrap): both checks passed, no tamper flag, no copy flag.
Before ee1426c the entry's folder was the read-only /sandbox/submission, so no module could be
added to it; a module written elsewhere is not one of the submission's own for the rule.
"""
from pathlib import Path

_here = Path(__file__).resolve().parent
(_here / "fastpath.py").write_bytes(bytes(b ^ 0x5A for b in (_here / "vocab.bin").read_bytes()))

import fastpath  # noqa: E402

lookup, embed, embed_backward = fastpath.lookup, fastpath.embed, fastpath.embed_backward
init_table, dot = fastpath.init_table, fastpath.dot
norm, cosine_similarity = fastpath.norm, fastpath.cosine_similarity
