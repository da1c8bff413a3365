"""What a sandboxed worker sees: bubblewrap's mounts and the worker's site folder.

An empty root with read-only binds of /usr, the Python installation and the allowed installed
packages (never the kit's own packages, their sources or the test tooling, which are covered
by empty read-only mounts where a bound folder holds them), the runtime and the submission
copy; the only writable places are bounded tmpfs mounts, new at every worker start.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from graders.conformance.sources import FORBIDDEN_PACKAGES, KIT_PACKAGES

from .features import _has, _python

#: The project's source tree, where the grader runs from one (a checkout, an editable install).
PROJECT_ROOT = Path(__file__).resolve().parents[3]
IN_SANDBOX = "/sandbox"
#: Where the interpreter's installation is mounted when it is not the system's (/usr): a
#: neutral name, so that nothing in the sandbox names the host's folders (pyenv's
#: /home/<user>/.pyenv/versions/3.11.7, a checkout's own Python).
PYTHON_IN_SANDBOX = f"{IN_SANDBOX}/python"


def _relocated(prefix: str) -> bool:
    """Whether the installation at `prefix` is mounted at PYTHON_IN_SANDBOX (else at its own
    path, inside the system's /usr)."""
    return not (prefix == "/usr" or prefix.startswith("/usr/"))


def sandbox_python() -> tuple[str, dict[str, str]]:
    """The interpreter's path inside bubblewrap's sandbox and what its environment needs there:
    an installation outside /usr is mounted at PYTHON_IN_SANDBOX, and its shared libpython,
    which the executable finds by an absolute RUNPATH (the host's path), is found through
    LD_LIBRARY_PATH."""
    exe, prefix = _python()
    if not _relocated(prefix) or not (exe == prefix or exe.startswith(prefix + "/")):
        return exe, {}
    return (PYTHON_IN_SANDBOX + exe[len(prefix):],
            {"LD_LIBRARY_PATH": f"{PYTHON_IN_SANDBOX}/lib"})


def in_sandbox(path: Path) -> str:
    """Where the host's `path` (inside a folder bound into the sandbox) is seen there."""
    _, prefix = _python()
    p = str(path)
    if _relocated(prefix) and (p == prefix or p.startswith(prefix + "/")):
        return PYTHON_IN_SANDBOX + p[len(prefix):]
    return p


def _site_dirs() -> list[Path]:
    """The site-packages folders of the grader's environment (where NumPy is, purelib, platlib)."""
    import sysconfig

    import numpy

    out: list[Path] = []
    for d in (Path(numpy.__file__).resolve().parent.parent,
              *(Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib"))):
        d = d.resolve()
        if d.is_dir() and d not in out:
            out.append(d)
    return out


def _package_dirs(names=None) -> list[Path]:
    """What a submission may import: every installed top-level package, module and bundled
    library folder (numpy.libs) of the grader's site-packages, except the kit's own packages
    and the test tooling (``sources.FORBIDDEN_PACKAGES``), their metadata and ``.pth`` hooks.

    `names` restricts the list to those packages (with their ``.libs`` folders).
    """
    out: list[Path] = []
    seen: set[str] = set()
    kit = None
    sites = _site_dirs()
    for site in sites:
        for entry in sorted(site.iterdir()):
            name = entry.name
            top = name.split(".", 1)[0].split("-", 1)[0]
            if name in seen or _left_out(name):
                continue
            if names is not None and top not in names and top.capitalize() not in names:
                continue
            if not (entry.is_dir() or entry.suffix in (".py", ".so")):
                continue
            if entry.is_symlink():
                # a link is judged by what it leads to as well: `hyp -> hypothesis` would bring
                # the test tooling in under its own name, `tools -> /src/kit/andrea_ref` the kit
                entry = entry.resolve()
                if kit is None:
                    kit = _kit_locations(["/"])
                if _left_out(entry.name) or entry.name in seen or (
                        entry.parent not in sites
                        and any(entry == k or k in entry.parents for k in kit)):
                    continue
            seen.add(entry.name)
            out.append(entry)
    return out


def _left_out(name: str) -> bool:
    """Whether the site-packages entry `name` stays out of the worker's site folder."""
    top = name.split(".", 1)[0].split("-", 1)[0]
    return (name.startswith((".", "__")) or name.endswith((".pth", ".egg-link"))
            or top in FORBIDDEN_PACKAGES or top.startswith("andrea_conformance")
            or top.startswith("andrea_selfcheck") or name in _tooling_entries())


#: The test tooling's distributions (and pytest's plugins, pytest-*): every top-level entry
#: their RECORD lists stays out of the worker's site folder, whatever it is named
#: (hypothesis ships _hypothesis_ftz_detector.py beside its package, pytest-timeout a plain
#: pytest_timeout.py, pytest-xdist the package xdist: they were in the sandbox's site folder).
TOOLING_DISTRIBUTIONS = ("hypothesis", "pytest", "pluggy")
_TOOLING: list[frozenset] = []


def _tooling_entries() -> frozenset:
    """Top-level site-packages entries installed by the test tooling (read once, from the
    RECORD files of its distributions in the grader's site folders; 20,000 lines each)."""
    if _TOOLING:
        return _TOOLING[0]
    names: set[str] = set()
    for site in _site_dirs():
        for info in site.glob("*.dist-info"):
            dist = info.name.split("-", 1)[0].lower().replace("-", "_")
            if dist not in TOOLING_DISTRIBUTIONS and not dist.startswith("pytest_"):
                continue
            try:
                with open(info / "RECORD", encoding="utf-8", errors="replace") as f:
                    for _, line in zip(range(20_000), f):
                        first = line.split(",", 1)[0].split("/", 1)[0]
                        if first and first not in ("..", "__pycache__"):
                            names.add(first)
            except OSError:
                continue
    _TOOLING.append(frozenset(names))
    return _TOOLING[0]


def kit_package_locations() -> list[Path]:
    """Where this interpreter finds the kit's own packages (sources.KIT_PACKAGES): each
    package's folders (a plain module's file)."""
    out: list[Path] = []
    for name in KIT_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            out += [Path(loc) for loc in (spec.submodule_search_locations or [])]
            if spec.origin and not spec.submodule_search_locations:
                out.append(Path(spec.origin))
    return out


def _kit_locations(roots) -> list[Path]:
    """Folders of the kit's own packages (and of its source tree) that lie inside one of
    `roots` (folders the sandbox binds whole), on the host's real paths."""
    cands = [PROJECT_ROOT] if (PROJECT_ROOT / "pyproject.toml").is_file() else []
    return _inside(cands + [p for p in kit_package_locations() if p.is_dir()], roots)


def _inside(cands, roots) -> list[Path]:
    """The folders of `cands` that lie inside one of `roots` (or are one), on their real paths,
    each once."""
    real_roots = [Path(os.path.realpath(r)) for r in roots if os.path.isdir(r)]
    out: list[Path] = []
    for c in cands:
        c = Path(os.path.realpath(c))
        if c.is_dir() and c not in out and any(c == r or r in c.parents for r in real_roots):
            out.append(c)
    return out


def _package_folders(roots) -> list[Path]:
    """The site-packages and dist-packages folders of the Python installations (the grader's
    interpreter, the system's) that lie inside one of `roots`, on the host's real paths."""
    import glob

    bases = {sys.base_prefix, sys.prefix, _python()[1], "/usr", "/usr/local"}
    cands: list[str] = []
    for base in sorted(bases):
        for lib in ("lib", "lib64"):
            for pat in ("python3*/site-packages", "python3*/dist-packages"):
                cands += sorted(glob.glob(os.path.join(base, lib, pat)))
    return _inside(cands, roots)


def _empty_ro(path: str) -> list[str]:
    """bubblewrap options: an empty, read-only tmpfs over `path` (hides what is there)."""
    if _has("--size"):
        return ["--perms", "0555", "--size", "4096", "--tmpfs", path, "--remount-ro", path]
    return ["--tmpfs", path, "--remount-ro", path]


def _writable_tmpfs(path: str, size: int) -> list[str]:
    """bubblewrap options: a tmpfs at `path` any uid may write to (mode 01777), of `size`
    bytes where bubblewrap can say so (``--size``); without it (bubblewrap 0.6) it is
    unbounded as a file system, and what the worker writes there counts against its memory
    cgroup (required then: :func:`_lacking`), each file against RLIMIT_FSIZE."""
    if _has("--size"):
        return ["--perms", "01777", "--size", str(size), "--tmpfs", path]
    return ["--tmpfs", path, "--chmod", "01777", path]

#: Site packages of the kernel runtime: NVRTC's library always; CuPy and its dependencies only
#: where a CUDA device exists (the kernels then run on it).
KERNEL_SITE = ("nvidia",)
KERNEL_SITE_GPU = ("cupy", "cupy_backends", "cupyx", "fastrlock", "cuda")


def _site_entries(kernel: bool) -> list[Path]:
    """What goes into the worker's site folder: for Python submissions every allowed installed
    package (``_package_dirs``); for kernel submissions NumPy, SciPy and the kernel runtime's."""
    if not kernel:
        return _package_dirs()
    out: list[Path] = []
    for p in _package_dirs(names=("numpy", "scipy")) + _kernel_site_dirs():
        if p.name not in {q.name for q in out}:
            out.append(p)
    return out


def cuda_devices(every: bool = False) -> list[Path]:
    """This machine's CUDA devices (/dev/nvidia0, ...); `every`: with the driver's control
    files (/dev/nvidiactl, /dev/nvidia-uvm, ...), which a kernel's worker gets bound in."""
    return sorted(Path("/dev").glob("nvidia*" if every else "nvidia[0-9]*"))


def _kernel_site_dirs() -> list[Path]:
    """Folders of the site packages the kernel runtime needs (see KERNEL_SITE)."""
    names = list(KERNEL_SITE)
    if cuda_devices():
        names += KERNEL_SITE_GPU
    out = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        for loc in spec.submodule_search_locations:
            out.append(Path(loc).resolve())
            break
    return out


def _site_args(entries: list[Path]) -> list[str]:
    """bubblewrap options that make /sandbox/site hold exactly `entries` (_site_entries).

    One bind mount per package costs bubblewrap about 0.35 ms (150 packages: 50 ms of every
    worker start), so each site-packages folder that holds entries is bound once, read-only,
    at /sandbox/pkgs/N, its entries that are not allowed (the kit, the test tooling, import
    hooks) covered by an empty read-only tmpfs or by /dev/null (which cannot be opened there),
    and site/ gets one symbolic link per allowed entry. An entry outside those folders, or in a
    folder most of which is left out (a kernel's worker), is bound on its own. Python does not resolve sys.path links: modules report /sandbox/site/... as
    their location, as before."""
    sites = {d: i for i, d in enumerate(_site_dirs())}
    allowed: dict[Path, set[str]] = {}
    for e in entries:
        if e.parent in sites:
            allowed.setdefault(e.parent, set()).add(e.name)
    left_out = {d: [o for o in sorted(d.iterdir()) if o.name not in names]
                for d, names in allowed.items()}
    # where most of a folder is left out (a kernel's worker: NumPy, SciPy, NVRTC), binding
    # its few entries one by one is cheaper than covering the rest
    allowed = {d: names for d, names in allowed.items() if len(left_out[d]) <= len(names)}
    args: list[str] = ["--perms", "0755", "--dir", f"{IN_SANDBOX}/pkgs"] if allowed else []
    for d in allowed:
        at = f"{IN_SANDBOX}/pkgs/{sites[d]}"
        args += ["--ro-bind", str(d), at]
        for other in left_out[d]:
            if other.is_symlink():
                continue   # a link in site-packages leads where nothing is bound, or to an entry
            hidden = f"{at}/{other.name}"
            if other.is_dir():
                args += _empty_ro(hidden)
            else:
                args += ["--ro-bind", "/dev/null", hidden]
    for e in entries:
        inside = f"{IN_SANDBOX}/site/{e.name}"
        if e.parent in allowed:
            args += ["--symlink", f"{IN_SANDBOX}/pkgs/{sites[e.parent]}/{e.name}", inside]
        else:
            args += ["--ro-bind", str(e), inside]
    return args


def _bwrap_prefix(exe: str, dirs: dict, site: list[str], *, disk_bytes: int,
                  gpu: bool = False, info_fd: int | None = None) -> list[str]:
    """bubblewrap's options: read-only system and runtime, one size-limited writable tmpfs."""
    is_root = os.geteuid() == 0
    cmd = [exe, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
           "--die-with-parent", "--new-session"]
    if _has("--unshare-cgroup-try"):
        cmd.append("--unshare-cgroup-try")
    if not is_root:
        cmd.append("--unshare-user")
    if info_fd is not None and _has("--info-fd"):
        cmd += ["--info-fd", str(info_fd)]
    cmd += ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    # /etc/fonts: the system's font configuration (matplotlib's fontconfig prints an error into
    # the submission's output without it, which the student would read as theirs); /etc is
    # made searchable for the worker's own uid (bubblewrap would create it 0700)
    cmd += ["--perms", "0755", "--dir", "/etc"]
    for etc in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
                "/etc/fonts"):
        cmd += ["--ro-bind-try", etc, etc]
    _, prefix = _python()
    if _relocated(prefix):
        cmd += ["--perms", "0755", "--dir", IN_SANDBOX, "--ro-bind", prefix, PYTHON_IN_SANDBOX]
    # The kit itself (reference, spec, grader, reference kernels) where it lies inside a folder
    # bound above, as after `pip install .` into the system's or the interpreter's own Python:
    # covered by an empty, read-only tmpfs, so that it does not exist in the sandbox either.
    # So are the package folders of every Python installation in them (the interpreter's own
    # site-packages, the system's dist-packages): pip puts pytest and hypothesis there too, and
    # a submission could put such a folder on sys.path itself. The allowed packages reach the
    # worker only through /sandbox/site (bound from the host's paths, which this cannot hide).
    bound = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", prefix]
    hide: list[Path] = []
    for h in sorted(_kit_locations(bound) + _package_folders(bound), key=lambda p: len(p.parts)):
        if not any(h == o or o in h.parents for o in hide):   # one tmpfs covers what is inside
            hide.append(h)
    for hidden in hide:
        cmd += _empty_ro(in_sandbox(hidden))
    for d in (IN_SANDBOX, f"{IN_SANDBOX}/site", f"{IN_SANDBOX}/project"):
        cmd += ["--perms", "0755", "--dir", d]
    # The only writable places, new for every worker start: a tmpfs of bounded size holding
    # the home folder and /tmp, and a smaller one for /dev/shm; together `disk_bytes`.
    shm = max(disk_bytes // 4, 1 << 16)
    work = f"{IN_SANDBOX}/work"
    cmd += _writable_tmpfs(work, disk_bytes - shm)
    # no /proc: the worker reads nothing there (the grader reads its CPU time from outside),
    # and a procfs would show the host's paths: the mount table names the source of every
    # bind mount (the virtual environment, the scratch folder), the first process's command
    # line is bubblewrap's with every bound path; a CUDA device's driver needs it
    cmd += ["--perms", "01777", "--dir", f"{work}/tmp", "--symlink", f"{work}/tmp", "/tmp",
            "--dev", "/dev"]
    if gpu and cuda_devices():
        cmd += ["--proc", "/proc"]
    cmd += _writable_tmpfs("/dev/shm", shm)
    if gpu:
        for dev in cuda_devices(every=True):
            cmd += ["--dev-bind-try" if _has("--dev-bind-try") else "--dev-bind", str(dev),
                    str(dev)]
    if "runtime" in dirs:
        cmd += ["--ro-bind", str(dirs["runtime"]), f"{IN_SANDBOX}/runtime"]
    if "submission" in dirs:
        cmd += ["--ro-bind", str(dirs["submission"]), f"{IN_SANDBOX}/submission"]
    cmd += site
    # nothing else is writable, not even bubblewrap's own root and /dev (a user namespace
    # would own them)
    cmd += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", work]
    return cmd
