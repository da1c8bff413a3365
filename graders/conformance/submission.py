"""What a submission is: ``read_submission(path) -> Submission``, the one reading of a file or
folder a student hands in, behind the grader (``graders.grade.grading.load_submission``) and
the self-check (``runner.load_impl``), so that both find the same files, the same entry and
the same problem.

    sub = read_submission("alice/")     # a .py, .ipynb or .cu file, or a folder
    sub.entry, sub.module, sub.kind     # "hw.ipynb", "notebook_submission.py", "python"
    sub.problem, sub.problem_fields     # why there is nothing to import (a msgid), or None

The rules (the submission contract of the README):

* a file is a module (``.py``), a notebook (``.ipynb``: its code cells become the module
  ``NOTEBOOK_MODULE``, with the Source's line map, dropped lines and cells in ``source``) or
  a CUDA kernel (``.cu``); any other file is refused;
* a folder is read in one walk, under one set of caps: at most MAX_FOLDER_ENTRIES files and
  folders (counted before anything is read), MAX_SUBMISSION_BYTES in all; links are never
  followed (a linked file is left out, so it cannot bring in what it points to), hidden
  folders and files and ``__pycache__`` are skipped, a path longer than MAX_PATH_CHARS is
  left out; file names become printable text (``printable_name``);
* a folder whose top level holds no source and exactly one subfolder that does (a zipped
  ``hw3/``, with or without ``__MACOSX``) is read from that subfolder
  (``sources.submission_root``); a folder of kernels and no Python is a kernel submission;
  otherwise ``sources.choose_entry`` picks the module, the package face or the notebook, and
  a helper named like a package of the kit that the submission imports is the problem
  (``sources.kit_names_taken``);
* the digest hashes the content, never the file or folder name.

What cannot be read at all (no such path, not a source file, over a cap, unreadable) raises
:class:`SubmissionError`, which names the path and what is wrong. What can be read but has
nothing to import (no module, several, a notebook that is not one, a kit name taken) is a
Submission with ``module`` None and ``problem`` set: the grader scores it 0 with that reason,
the self-check says it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from andrea_runtime.cells import format_ranges

from .inert import inert
from .messages import MSG_KIT_NAME, MSG_MANY_MODULES, MSG_NO_MODULE, MSG_NOT_A_NOTEBOOK
from .sources import (KERNEL_SUFFIX, MODULE_SUFFIX, NOTEBOOK_SUFFIX, SOURCE_SUFFIXES, Source,
                      SourceError, choose_entry, kit_names_taken, notebook_source,
                      submission_root)

NOTEBOOK_MODULE = "notebook_submission.py"   # a notebook's code cells, as the worker imports them
MAX_SUBMISSION_BYTES = 5 * 1024 * 1024
# Files deeper than this are ignored: in the grader's scratch folder (a longer base than, e.g.,
# /autograder/submission) their path could pass PATH_MAX and stop the grader.
MAX_PATH_CHARS = 1024
MAX_FOLDER_ENTRIES = 2000       # files and folders of a submission folder (hidden ones aside)
KINDS = ("python", "kernel")    # a notebook is "python" with a `source`


class SubmissionError(Exception):
    """A path that cannot be read as a submission: ``str()`` is "PATH: what is wrong"."""

    def __init__(self, path, what: str):
        super().__init__(f"{path}: {what}")
        self.path, self.what = str(path), what


@dataclass
class Submission:
    name: str                   # the student's file or folder name (printable_name)
    files: dict[str, bytes]     # relative path (printable_name) -> content
    module: str | None          # the file to import (relative), None if none could be chosen
    kind: str = "python"        # "python" (a module, package or notebook) or "kernel"
    problem: str | None = None  # why no module could be chosen (a msgid), with `problem_fields`
    problem_fields: dict | None = None
    source: dict | None = None  # a notebook's origin, line map, dropped lines and cells
    digest: str | None = None   # the content hash (set by read_submission)
    # The student's own file chosen (the notebook, not its conversion; set where one was
    # chosen, also when a problem stops it), and where it lies on this machine (its real
    # name), for the self-check, which imports it where it is. Not sent to the grader's
    # worker: a Submission built from data has neither.
    entry: str | None = None
    entry_path: str | None = None
    problem_detail: str | None = None   # the reader's own words on `problem` (English)

    @property
    def sha256(self) -> str:
        """Hash of the content (never of the student's file or folder name)."""
        return self.digest or files_digest(self.files)

    @property
    def target(self) -> str:
        """The name a student knows the graded file by (the notebook, not its conversion)."""
        return (self.source or {}).get("origin") or self.module or self.name

    def own_modules(self) -> frozenset:
        """The names its own code may import: the modules (``name.py``) and folders at the top
        of what is handed in, as the grader's worker finds them in its copy of the files. A
        file checked where it lies is the file alone: a helper module beside it (one that
        ``%%writefile`` wrote when the notebook ran in Jupyter) is not handed in with it, so
        its import fails in the self-check as it fails in the grader."""
        names = set()
        for rel in self.files:
            head, sep, _ = rel.partition("/")
            if sep:
                names.add(head)
            elif rel.endswith(".py"):
                names.add(rel[:-3])
        return frozenset(names)

    def notebook_source(self) -> Source | None:
        """A notebook's Source (its module text, line map, dropped lines); None for a module."""
        if not self.source or self.module not in self.files:
            return None
        return Source.from_dict(self.source, self.files[self.module].decode("utf-8"))


def files_digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    return h.hexdigest()


def read_submission(path: str | Path) -> Submission:
    """Read a submission: a .py, .ipynb or .cu file, or a folder (see the module docstring).
    Raises SubmissionError when `path` cannot be read as one."""
    p = Path(path)
    if not p.exists():
        raise SubmissionError(path, "no such file or folder")
    if p.is_file():
        return _one_file(p, path)
    files: dict[str, bytes] = {}
    where: dict[str, Path] = {}     # a file's name in `files` -> the file on disk
    total = 0
    for f in _walk(p, path):
        rel = f.relative_to(p)
        if not f.is_file():
            continue
        if f.is_symlink() or len(rel.as_posix()) > MAX_PATH_CHARS:
            continue  # a link is never followed; a path this long is no helper module
        total += f.stat().st_size
        _check_size(path, total)
        data = _read(f)
        _check_size(path, total - f.stat().st_size + len(data))
        key = printable_name(rel.as_posix())
        files[key], where[key] = data, f
    digest = files_digest(files)
    prefix = submission_root(list(files))   # a folder zipped inside the folder: hw3/...
    if prefix:
        files = {r[len(prefix):]: data for r, data in files.items() if r.startswith(prefix)}
    name = printable_name(p.name)

    def at(entry: str) -> str:
        return str(where[prefix + entry])

    top = [r for r in files if "/" not in r]
    cu = [r for r in top if r.endswith(KERNEL_SUFFIX)]
    if cu and not any(r.endswith((MODULE_SUFFIX, NOTEBOOK_SUFFIX)) for r in top):
        return Submission(name, files, cu[0], "kernel", digest=digest, entry=cu[0],
                          entry_path=at(cu[0]))
    init = files.get("__init__.py")
    entry, why, names = choose_entry(
        list(files), None if init is None else init.decode("utf-8", "replace"))
    if entry is None:
        if why == "none":
            return Submission(name, files, None, problem=MSG_NO_MODULE, digest=digest)
        return Submission(name, files, None, problem=MSG_MANY_MODULES,
                          problem_fields={"names": ", ".join(names)}, digest=digest)
    taken = kit_names_taken(list(files), entry, [
        data.decode("utf-8", "replace") for r, data in files.items() if r.endswith(".py")])
    if taken:
        return Submission(name, files, None, problem=MSG_KIT_NAME, digest=digest,
                          problem_fields={"names": ", ".join(f for f, _ in taken),
                                          "package": ", ".join(p for _, p in taken)},
                          entry=entry, entry_path=at(entry))
    if entry.endswith(NOTEBOOK_SUFFIX):
        return _notebook(name, files, entry, files[entry], digest, at(entry))
    return Submission(name, files, entry, digest=digest, entry=entry, entry_path=at(entry))


def _one_file(p: Path, path) -> Submission:
    if p.suffix not in SOURCE_SUFFIXES:
        raise SubmissionError(path, "not a .py, .ipynb or .cu file")
    _check_size(path, p.stat().st_size)
    data = _read(p)
    _check_size(path, len(data))
    digest = hashlib.sha256(p.suffix.encode() + b"\0" + data).hexdigest()
    name = printable_name(p.name)
    if p.suffix == NOTEBOOK_SUFFIX:
        return _notebook(name, {}, name, data, digest, str(p))
    return Submission(name, {name: data}, name,
                      "kernel" if p.suffix == KERNEL_SUFFIX else "python", digest=digest,
                      entry=name, entry_path=str(p))


def _walk(p: Path, path) -> list[Path]:
    """The entries of a submission folder that may be its files, sorted: hidden folders
    (``.git``) and ``__pycache__`` are not entered, links not followed, and a folder of more
    than MAX_FOLDER_ENTRIES entries is refused before it costs anything (50,000 empty files,
    which the size cap does not see, took half a minute to read and copy).

    The walk keeps its own stack (``os.walk`` recurses in Python 3.10 and 3.11: a chain of
    1,500 nested folders stopped the grader with a RecursionError, and a batch with it), and
    a folder whose path is already longer than MAX_PATH_CHARS is not entered (nothing in it
    could be kept)."""
    seen, out = 0, []
    todo = [(p, "")]
    while todo:
        top, rel = todo.pop()
        try:
            it = os.scandir(top)
        except OSError:
            continue        # unreadable: as os.walk with onerror=None
        with it:
            for e in it:    # counted as read: a folder of a million entries stops at once
                hidden = e.name.startswith((".", "__pycache__"))
                folder = _is_dir(e)
                if hidden and folder:
                    continue
                seen += 1
                if seen > MAX_FOLDER_ENTRIES:
                    raise SubmissionError(path, f"the submission holds more than "
                                          f"{MAX_FOLDER_ENTRIES} files and folders, the most "
                                          "the grader accepts")
                if hidden:
                    continue
                if not folder:
                    out.append(Path(top, e.name))
                elif len(rel) + len(e.name) < MAX_PATH_CHARS:
                    todo.append((Path(top, e.name), f"{rel}{e.name}/"))
    return sorted(out)


def _is_dir(e: os.DirEntry) -> bool:
    try:
        return e.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _notebook(name, files, entry, data, digest, entry_path) -> Submission:
    try:
        src = notebook_source(data, entry)
    except SourceError as exc:
        return Submission(name, dict(files), None, problem=MSG_NOT_A_NOTEBOOK,
                          problem_fields={"name": entry}, digest=digest, entry=entry,
                          entry_path=entry_path, problem_detail=str(exc))
    files = dict(files)
    # the modules its %%writefile cells write, as Jupyter leaves them after the last cell (over
    # a stale copy handed in beside it): a later cell imports them. They count against the
    # caps of what is handed in (a notebook of 45,000 such cells made 45,000 files, past the
    # 2,000 a folder may hold, each written to the worker's scratch folder)
    written = {name: text.encode("utf-8") for name, text in src.written.items()}
    if len(set(files) | set(written)) + 1 > MAX_FOLDER_ENTRIES:
        raise SubmissionError(entry_path, f"its %%writefile cells and the files beside it make "
                              f"more than {MAX_FOLDER_ENTRIES} files, the most the grader "
                              "accepts")
    _check_size(entry_path, sum(len(v) for k, v in files.items() if k not in written)
                + sum(map(len, written.values())))
    files.update(written)
    files[NOTEBOOK_MODULE] = src.text.encode("utf-8")
    source = src.to_dict()
    source["cells"] = format_ranges(src.cell_ranges())   # the worker runs them one by one
    return Submission(name, files, NOTEBOOK_MODULE, source=source, digest=digest, entry=entry,
                      entry_path=entry_path)


def _check_size(path, size: int) -> None:
    if size > MAX_SUBMISSION_BYTES:
        raise SubmissionError(path, f"the submission is larger than "
                              f"{MAX_SUBMISSION_BYTES >> 20} MiB, the most the grader accepts")


def _read(f: Path) -> bytes:
    try:
        return f.read_bytes()
    except OSError as exc:
        raise SubmissionError(f, f"cannot read ({exc.strerror})") from None


def printable_name(name: str) -> str:
    """A file name as text that can be written anywhere (UTF-8, gradebook, CSV): bytes that are
    not UTF-8 (which Python keeps as lone surrogates) shown as \\xff escapes."""
    name = name.replace("\\", "\\\\")  # so that no two names look the same (a\xff, a\\xff)
    try:
        name = os.fsencode(name).decode("utf-8", "backslashreplace")
    except UnicodeError:
        name = name.encode("utf-8", "backslashreplace").decode("utf-8")
    # control characters, bidi and zero-width marks as escapes (inert), and a space or other
    # white space at either end as \x20-style escapes: " bob.py" never reads "bob.py" (a line
    # break or tab too: a name is one line of any report, never two)
    name = inert(name).replace("\n", "\\x0a").replace("\t", "\\x09")
    core = name.strip()
    if core != name:
        start = name.index(core[0]) if core else len(name)
        end = start + len(core)
        name = "".join(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
                       for c in name[:start]) + core + "".join(
            f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in name[end:])
    return name
