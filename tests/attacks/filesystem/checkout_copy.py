"""Hostile (the reference's equal): a correct solution from the grader's own source tree.

Where the grader runs from a checkout of the project with an editable install (a course's
container image built from the repository, as PrairieLearn's external graders often are), the
container mode made the kit's packages root-only, but not the rest of the tree: the worker,
which has no mount namespace there, finds the grader's interpreter on its command line in
/proc (`<checkout>/.venv/bin/python ...`), walks up to the folder with the project's
pyproject.toml and reads examples/submissions/correct_student.py (or any file of
tests/corpus/correct/, or the history in .git): a whole correct solution, run here as its own.
Found in the sixth red-team round: vector_norm passed in container mode and failed under
bubblewrap. Its own norm() is wrong (always 0).

Expected: the source tree is one of the grader's files in container mode (every top-level
entry of the checkout but the interpreter's folders is root-only, checked as a worker's uid):
nothing is read, the norm check fails as under bubblewrap (where the tree is not in the
sandbox at all).
"""
import json
import os

found = {"checkout": None, "read": None}


def _checkouts():
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return
    for pid in pids[:4096]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read(65536).split(b"\0")
        except OSError:
            continue
        for a in args[:2]:
            path = a.decode("utf-8", "replace")
            while path.startswith("/") and path != "/":
                path = os.path.dirname(path)
                if os.path.exists(os.path.join(path, "pyproject.toml")):
                    yield path
                    break


for checkout in dict.fromkeys(_checkouts()):
    found["checkout"] = checkout
    try:
        with open(os.path.join(checkout, "examples", "submissions", "correct_student.py"),
                  encoding="utf-8") as f:
            solution = f.read()
    except OSError as exc:
        found["read"] = exc.strerror
        continue
    found["read"] = len(solution)
    exec(compile(solution, "solution", "exec"), globals())
    break
print("CHECKOUT-REPORT " + json.dumps(found))

if not isinstance(found["read"], int):
    def norm(v):
        return 0.0
