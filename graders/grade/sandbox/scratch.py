"""The scratch folder of one submission: the worker's runtime, the submission's copy.

runtime/ holds ``andrea_runtime`` copied whole but for validate.py, which only a kernel's
worker gets (with andrea_gpu by exclusion and the contract as JSON), read-only for everyone;
submission/ a read-only copy of the files; in rlimits mode site/ links to the allowed
packages and a fresh work-N/ folder per worker start.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SandboxError
from .mounts import _site_entries

#: The worker's runtime: this package, copied whole into the sandbox (runtime/andrea_runtime).
RUNTIME_PACKAGE = "andrea_runtime"
WORKER = f"{RUNTIME_PACKAGE}/worker.py"
_WORK_DIRS = itertools.count()
#: What a kernel submission's worker gets of andrea_gpu: the package less what computes or
#: holds the reference (its kernels, ops.py, and submission.py, which reads the spec and uses
#: andrea_ref), with an __init__.py of its own (andrea_gpu's imports andrea_ref). Everything
#: else of the package goes, whatever is added to it later; bytecode never does.
KERNEL_RUNTIME_EXCLUDED = ("kernels", "ops.py", "submission.py", "__init__.py")
KERNEL_CONTRACT_FILE = "contract.json"
#: The module of that copy the worker loads a kernel with (its --kernel-loader): the runtime
#: names nothing of andrea_gpu itself.
KERNEL_LOADER = "andrea_gpu.worker_loader"
#: Files of andrea_runtime only a kernel's worker gets: validate.py, the contract's argument
#: checks (the reference's, which its kernel runtime calls before a launch). A Python
#: worker's runtime is the students' kit's andrea_runtime (SELFCHECK_LEFT_OUT): a submission
#: read validate.py from the folder on its own command line and passed every error check
#: with functions that checked nothing (sixth red-team round).
KERNEL_ONLY_RUNTIME = ("validate.py",)
#: Never copied from a package folder into a worker's runtime.
_NEVER_COPIED = ("__pycache__", "*.pyc", "*.pyo")


def package_folder(name: str) -> Path:
    """The folder of the installed package `name` (found without importing it)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError(f"the package {name} is not installed with the grader")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def _copy_package(src: Path, dest: Path, excluded=()) -> None:
    """`src` copied whole to `dest` (files only, no links followed), less `excluded` names at
    its top and bytecode everywhere."""
    shutil.copytree(src, dest, symlinks=False,
                    ignore=lambda d, names: [n for n in names if (
                        Path(d) == src and n in excluded)] + list(
                        shutil.ignore_patterns(*_NEVER_COPIED)(d, names)))


def _kernel_runtime(dest: Path, contract: dict | None) -> None:
    """Write the kernel runtime (andrea_gpu less KERNEL_RUNTIME_EXCLUDED) and the contract
    (JSON) into `dest` (runtime/kernel)."""
    import json

    _copy_package(package_folder("andrea_gpu"), dest / "andrea_gpu", KERNEL_RUNTIME_EXCLUDED)
    (dest / "andrea_gpu" / "__init__.py").write_text(
        '"""The kernel runtime of a grading worker (copied by the grader)."""\n')
    (dest / KERNEL_CONTRACT_FILE).write_text(json.dumps(contract or {}))


@dataclass
class Scratch:
    """The scratch folder of one submission, owned by the grader and never writable by a
    worker: runtime/ (the worker's two files), submission/ (a copy), site/ (in rlimits mode,
    links to the whitelisted packages) and, in rlimits mode only, one fresh work-N/ per worker start."""

    root: Path
    module_rel: str               # the module file, relative to submission/
    kernel: bool = False
    uid: int | None = None        # the uid the worker drops to (root only)
    dirs: dict = field(default_factory=dict)
    cells: str = ""               # a notebook: its cells' line ranges in the module (2-5,7-9)

    def cleanup(self) -> None:
        # rmtree works through directory descriptors: a symlink a worker left is removed,
        # never followed
        shutil.rmtree(self.root, ignore_errors=True)

#: The notebook's cell ranges (sources.format_ranges), in the worker's runtime folder.
CELLS_FILE = "cells.txt"


#: Free space /dev/shm needs to hold scratch folders (a container's is often 64 MiB).
SHM_MIN_FREE = 512 << 20


def _scratch_parent() -> str | None:
    """Where scratch folders go: a tmpfs at /dev/shm with room, else the temporary folder.

    The worker's /proc/self/mountinfo shows where each of its binds comes from, as a path in
    that file system: on /dev/shm's own tmpfs a scratch folder reads ``/k2j4x9ab/submission``
    (a random name, nothing of the host's folders), in /tmp ``/tmp/k2j4x9ab/submission``."""
    try:
        st = os.statvfs("/dev/shm")
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            shm_tmpfs = any(line.split()[1:3] == ["/dev/shm", "tmpfs"] for line in f)
        if shm_tmpfs and st.f_bavail * st.f_frsize >= SHM_MIN_FREE \
                and os.access("/dev/shm", os.W_OK | os.X_OK):
            return "/dev/shm"
    except (OSError, IndexError):
        pass
    return None


def prepare(files: dict[str, bytes], module_rel: str, *, kernel: bool = False,
            kernel_contract: dict | None = None, cells: str = "") -> Scratch:
    """Write a submission's files into a fresh scratch folder (read-only for the worker).

    kernel=True: also the kernel runtime and `kernel_contract` (the spec's ``kernels:``
    mapping) into runtime/kernel (its site packages, NVRTC's among them, are made visible at
    each worker start: _site_args, _link_site). cells: a notebook's cell
    ranges (sources.format_ranges), which the worker runs one by one.
    """
    root = Path(tempfile.mkdtemp(prefix="", dir=_scratch_parent()))
    os.chmod(root, 0o755)
    dirs = {name: root / name for name in ("runtime", "submission", "site")}
    for d in dirs.values():
        d.mkdir()
        os.chmod(d, 0o755)
    _copy_package(package_folder(RUNTIME_PACKAGE), dirs["runtime"] / RUNTIME_PACKAGE,
                  () if kernel else KERNEL_ONLY_RUNTIME)
    base = dirs["submission"].resolve()
    for rel, data in files.items():
        target = (base / rel).resolve()
        if base not in target.parents:
            continue  # a path that would leave the folder
        for parent in reversed(target.relative_to(base).parents):
            d = base / parent
            if not d.is_dir():
                d.mkdir(mode=0o755)
                os.chmod(d, 0o755)
        target.write_bytes(data)
        os.chmod(target, 0o444)
    if kernel:
        _kernel_runtime(dirs["runtime"] / "kernel", kernel_contract)
    if cells:   # a file, not an argument: a notebook of 20,000 cells is more than argv takes
        (dirs["runtime"] / CELLS_FILE).write_text(cells, encoding="ascii")
    for d in dirs["runtime"].rglob("*"):   # read-only for everyone, the grader included
        os.chmod(d, 0o555 if d.is_dir() else 0o444)
    os.chmod(dirs["runtime"], 0o555)
    return Scratch(root=root, module_rel=module_rel, kernel=kernel, dirs=dirs, cells=cells)


def _link_site(scratch: Scratch) -> None:
    """rlimits mode: site/ as links to the allowed packages (made at the first worker start;
    under bubblewrap site/ is made inside the sandbox, see _site_args)."""
    site = scratch.dirs["site"]
    if any(site.iterdir()):
        return
    for pkg in _site_entries(scratch.kernel):
        (site / pkg.name).symlink_to(pkg)


def _fresh_work_dir(scratch: Scratch, uid: int | None) -> Path:
    """rlimits mode: a new work folder (with tmp/) for one worker start, created through a
    directory descriptor and handed to the worker's uid before the worker exists."""
    name = f"work-{next(_WORK_DIRS)}"
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    root_fd = os.open(scratch.root, flags)
    try:
        os.mkdir(name, 0o700, dir_fd=root_fd)
        work_fd = os.open(name, flags, dir_fd=root_fd)
        try:
            os.mkdir("tmp", 0o700, dir_fd=work_fd)
            if uid is not None:
                os.chown("tmp", uid, uid, dir_fd=work_fd, follow_symlinks=False)
                os.fchown(work_fd, uid, uid)
        finally:
            os.close(work_fd)
    finally:
        os.close(root_fd)
    return scratch.root / name


def _traversable(path: str) -> bool:
    """Every folder from / down to `path` is searchable by others (o+x)."""
    p = Path(path)
    for anc in [p, *p.parents]:
        try:
            if not os.stat(anc).st_mode & 0o001:
                return False
        except OSError:
            return False
    return True
