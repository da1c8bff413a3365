"""The submission worker: imports one submission and answers calls over a pipe.

Runs as ``python -s -S -P andrea_runtime/worker.py ...`` (clean environment), inside
bubblewrap unless the grader was told the code is trusted. It imports only the standard
library, NumPy and its own package (``andrea_runtime``, which the grader copies whole into the
sandbox's runtime folder), never anything else of the project, which is not on its
``sys.path``: only the standard library, the installed packages except the kit's own and the
test tooling, the runtime folder and the submission's own folder are.

Requests and replies are frames of ``andrea_runtime.protocol``. The first reply, after the import, is
``{"ready": [names of the contract functions the module defines]}`` or ``{"import_error": ...}``.
Then every ``{"op": "call", "fn": name, "args": [...], "kwargs": [[k, v], ...]}`` gets one of

    {"ok": value, "mutated": [index or name, ...], "rngs": [[index, state], ...]}
    {"exc": {"type": "IndexError", "bases": ["IndexError", "LookupError", ...], "msg": "..."}}
    {"fault": "forbidden" | "memory" | "crash" | "result", "msg": "..."}
    {"big": {"values": n, "bytes": n}}

A request may carry ``"limit": {"values": n, "bytes": n}``, how large a result the contract
allows for its arguments (``graders/conformance/results.py``): a result holding more values,
or whose reply would be longer, is answered ``big`` with its size alone, and the grader never
reads a longer reply.

Large argument arrays the grader marks ``keep`` are kept (read-only, private) between calls and
later stand for ``ndref`` keys; every call gets its own fresh copy (protocol.py). With
``--arena-fd`` they are read from the grader's sealed shared memory, mapped read-only here.
With ``--region-fd`` a call's argument arrays are views of the grader's call region, which the
grader itself compares with its own arrays after the reply (``mutated`` then only tells what
the grader cannot see).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import weakref

if __package__ in (None, ""):   # run as a script: its package is found beside it
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from andrea_runtime import cells as C  # noqa: E402 - standard library only

MSG_LIMIT = 4000
MAX_CELL_ERRORS = 50


def _load_runtime(kernel: bool):
    """The runtime modules that need NumPy (importable once the site folder is on sys.path),
    loaded before the import guard exists: it refuses the kit's packages, this one among
    them, to the submission. A kernel's worker also loads what its kernel runtime uses."""
    from andrea_runtime import import_rule, protocol, snapshot  # noqa: F401 - import_rule:
    if kernel:                                                 # installed by _isolate_imports
        from andrea_runtime import kernel_contract, validate  # noqa: F401
    return protocol, snapshot


class _Refuse:
    """Refuses the grader's and the reference's packages, and remembers who asked (a meta path
    finder: the import system needs only `find_spec`; importlib.abc would cost every worker
    start about 10 ms of imports)."""

    def __init__(self, names):
        self.names = tuple(names)
        self.attempts: list[str] = []

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split(".", 1)[0]
        if top in self.names:
            self.attempts.append(fullname)
            raise ImportError(f"importing {fullname} is not allowed in a submission",
                              name=fullname)
        return None


def _safe_str(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        text = "<message unavailable>"
    return text[:MSG_LIMIT]


def _exc_info(exc: BaseException) -> dict:
    bases = []
    for cls in type(exc).__mro__:
        if getattr(cls, "__module__", None) == "builtins":
            bases.append(cls.__name__)
    info = {"type": str(type(exc).__name__)[:100], "bases": bases[:20], "msg": _safe_str(exc)}
    said = _said(exc)
    if said is not None:   # a kernel executor's finding, as a template and its values
        info["said"] = said
    return info


# A kernel's worker: its loader's said(exc), an exception's finding as plain data (None for a
# Python submission, whose exceptions carry none).
_SAID = None


def _said(exc: BaseException):
    """The finding of `exc` as the kernel loader reads it (a template and its values), or
    None; the grader checks it again against its catalog of executor sentences."""
    if _SAID is None:
        return None
    try:
        return _SAID(exc)
    except BaseException:  # noqa: BLE001 - a hostile or odd exception: no finding
        return None


def _import_error(exc: BaseException, module_path: str) -> dict:
    info = _exc_info(exc)     # a kernel's compile refusal: its sentences (said)
    if isinstance(exc, SyntaxError):
        info["line"] = exc.lineno
        info["text"] = (exc.text or "").rstrip()[:300]
        info["msg"] = str(exc.msg)[:MSG_LIMIT]
    else:
        import traceback

        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if f.filename.startswith(os.path.dirname(module_path))]
        if frames:
            info["line"] = frames[-1].lineno
            info["text"] = (frames[-1].line or "")[:300]
    return info


class _Args:
    """The worker's options, as the grader passes them (sandbox.plan, proxy.Worker)."""

    def __init__(self):
        self.runtime = self.module = self.forbid = None     # required
        self.req_fd = self.resp_fd = None                   # required
        self.site: list[str] = []                           # repeatable
        self.functions = ""
        self.drop_uid = self.arena_fd = self.region_fd = None
        self.arena_size = self.region_size = 0
        self.kernel = False                                 # the submission is CUDA source
        self.cells = ""     # a notebook: its cells' line ranges in the module ("2-5,7-9")
        self.cells_file = None  # ... or the file that holds them (the grader's way)
        # the seccomp filter (confine): "required" (bubblewrap: the worker stops without it),
        # "best" (--sandbox none: installed where libseccomp is), "" (none)
        self.confine = ""
        # PR_SET_DUMPABLE 0 before the submission runs (--sandbox none: the other workers of a
        # batch run as the same uid; see _undumpable)
        self.undumpable = False
        # the import rule (andrea_runtime/import_rule.py): the packages a
        # submission may import besides the standard library and its own modules
        self.allow = None
        # the submission's folder (read-only): copied into the working folder, where its
        # entry runs (_enter_files)
        self.files = None


_INT_OPTIONS = {"--req-fd", "--resp-fd", "--drop-uid", "--arena-fd", "--arena-size",
                "--region-fd", "--region-size"}
_TEXT_OPTIONS = {"--runtime", "--module", "--functions", "--forbid", "--cells",
                 "--cells-file", "--allow", "--kernel-loader", "--files"}
#: The copy of the submission's files in the worker's working folder (_enter_files).
FILES_COPY = "submission"


def _parse(argv) -> _Args:
    """Options of the form ``--name value`` (``--site`` repeatable, ``--kernel`` a flag): a
    plain loop, not argparse (whose import costs every worker start about 12 ms)."""
    args, argv, i = _Args(), list(sys.argv[1:] if argv is None else argv), 0
    while i < len(argv):
        opt = argv[i]
        if opt == "--kernel":
            args.kernel, i = True, i + 1
            continue
        if opt in ("--confine", "--no-userns"):   # --no-userns: its name before issue 19
            args.confine, i = "required", i + 1
            continue
        if opt == "--confine-if-possible":
            args.confine, i = args.confine or "best", i + 1
            continue
        if opt == "--undumpable":
            args.undumpable, i = True, i + 1
            continue
        if opt not in _INT_OPTIONS and opt not in _TEXT_OPTIONS and opt != "--site":
            raise SystemExit(f"worker: unknown option {opt[:40]!r}")
        if i + 1 >= len(argv):
            raise SystemExit(f"worker: {opt} needs a value")
        value, i = argv[i + 1], i + 2
        attr = opt[2:].replace("-", "_")
        if opt == "--site":
            args.site.append(value)
        elif opt in _INT_OPTIONS:
            try:
                setattr(args, attr, int(value))
            except ValueError:
                raise SystemExit(f"worker: {opt} needs a number, not {value[:40]!r}") from None
        else:
            setattr(args, attr, value)
    for opt in ("runtime", "module", "forbid", "req_fd", "resp_fd"):
        if getattr(args, opt) is None:
            raise SystemExit(f"worker: --{opt.replace('_', '-')} is required")
    if args.cells_file is not None:
        try:
            with open(args.cells_file, encoding="ascii") as f:
                args.cells = f.read()
        except (OSError, ValueError) as exc:
            raise SystemExit(f"worker: cannot read --cells-file ({type(exc).__name__})") from None
    return args


def _unbuffer_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True, write_through=True)
        except (AttributeError, ValueError):
            pass


def _plain_warnings() -> None:
    """A warning that a contract function raises for its caller (``warnings.warn(...,
    stacklevel=2)``) points at this file's call into the submission; it is shown as
    "RuntimeWarning: message", without a path and line of the grader that mean nothing to a
    student. Warnings located in the submission keep their file and line."""
    import warnings

    here = os.path.abspath(__file__)
    plain = warnings.formatwarning

    def formatwarning(message, category, filename, lineno, line=None):
        if filename and os.path.abspath(filename) == here:
            return f"{category.__name__}: {message}\n"
        return plain(message, category, filename, lineno, line)

    warnings.formatwarning = formatwarning


def _drop_privileges(uid) -> None:
    """Root in the sandbox becomes the worker's own uid, for good (no setuid way back)."""
    if uid is None or os.getuid() != 0:
        return
    try:
        import ctypes

        ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    except (OSError, AttributeError):
        pass
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("the worker could not drop its privileges")


def _undumpable() -> None:
    """This process becomes non-dumpable (PR_SET_DUMPABLE 0): its /proc entries (fd, mem,
    environ, maps) belong to root, so another process of the same uid (another student's
    worker in a ``--sandbox none`` batch) cannot open its call region through /proc/<pid>/fd
    or read or write its memory. The grader still reads its CPU time (/proc/<pid>/stat is
    readable by all). Inherited by the processes it forks (not by one that runs a program:
    that one has no call region). Stops the worker where the kernel refuses it."""
    import ctypes

    try:
        ok = ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0   # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        ok = False
    if not ok:
        raise SystemExit("the worker could not make itself non-dumpable")


# The worker's seccomp filter. The container sandbox mode (issue 20) installs the same one:
# `confine()` is self-contained (ctypes and libseccomp only), so it can be called from any
# process that is about to run a submission.
#   EPERM: what the worker never needs and a submission could use to leave its bounds.
CONFINE_DENIED = (
    # sockets: the worker talks to the grader through inherited pipes only; a socket's buffers
    # (loopback TCP, unix socket queues) are not charged to its memory cgroup
    "socket", "socketpair",
    # namespaces (a user namespace makes it root there: a tmpfs of any size), mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig",
    "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    # tracing and reading or writing other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel interfaces no homework needs, each a way around the rules above (io_uring opens
    # sockets by itself)
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
    "userfaultfd", "keyctl", "add_key", "request_key",
    # System V IPC and POSIX message queues: objects of the IPC namespace, not of a process,
    # so they outlive the worker (its kill, its memory cgroup) wherever it has no IPC
    # namespace of its own (--sandbox container, --sandbox none): shared memory segments
    # written and detached held 128 MiB of the host's memory after grading, one more
    # --memory-mb per worker start; attaching one of the machine's world-readable segments
    # would read another program's memory
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
)
# clone with one of these flags: EPERM (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID,
# NEWNET); clone3, whose flags sit in memory a filter cannot read: ENOSYS, on which the C
# library falls back to clone.
#: mmap's and memfd_create's flag for pages of the huge page pool (refused: see confine).
MAP_HUGETLB, MFD_HUGETLB = 0x40000, 0x4
CLONE_NEW_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                   0x40000000)


def confine() -> None:
    """Install the worker's seccomp filter (libseccomp, which apt itself depends on) on every
    thread of this process and everything it starts: the calls of `CONFINE_DENIED` fail with
    EPERM, clone with a namespace flag with EPERM, clone3 with ENOSYS, mmap and memfd_create
    of huge pages (MAP_HUGETLB, MFD_HUGETLB) with EPERM. Calls of another
    architecture (i386's int 0x80, x32) kill the process (libseccomp's default for an
    architecture the filter was not built for). Raises SystemExit when the filter cannot be
    installed: then the submission must not run.

    Why each: in a user namespace of its own an unprivileged process is root (a tmpfs of any
    size beyond the sandbox's bounded mounts, none of it in any limit); a socket's buffers are
    kernel memory outside the worker's memory cgroup (loopback TCP held 776 MB under
    --memory-mb 256); a System V shared memory segment outlives the worker where it has no
    IPC namespace of its own."""
    import ctypes
    import errno

    class Cmp(ctypes.Structure):   # struct scmp_arg_cmp
        _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                    ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]

    masked_eq, allow = 7, 0x7FFF0000

    def errno_action(err: int) -> int:
        return 0x00050000 | err

    try:
        lib = ctypes.CDLL("libseccomp.so.2")   # its soname since 2012
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                               ctypes.c_uint, ctypes.POINTER(Cmp)]
        lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
        lib.seccomp_load.argtypes = lib.seccomp_release.argtypes = [ctypes.c_void_p]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        ctx = lib.seccomp_init(allow)
        if not ctx:
            raise OSError("seccomp_init failed")
        try:
            def rule(name: str, err: int, cmp=None) -> None:
                nr = lib.seccomp_syscall_resolve_name(name.encode())
                if nr < 0:   # not a call of this architecture (or libseccomp too old for it)
                    if name in ("socket", "socketpair", "unshare", "clone", "ptrace", "mount"):
                        raise OSError(f"no rule for {name}")
                    return
                if lib.seccomp_rule_add_array(ctx, errno_action(err), nr, 1 if cmp else 0,
                                              ctypes.byref(cmp) if cmp else None):
                    raise OSError(f"no rule for {name}")

            for name in CONFINE_DENIED:
                rule(name, errno.EPERM)
            for flag in CLONE_NEW_FLAGS:   # rules of one call are or-ed
                rule("clone", errno.EPERM, Cmp(0, masked_eq, flag, flag))
            rule("clone3", errno.ENOSYS)
            # huge pages of the machine's reserved pool (an anonymous MAP_HUGETLB mapping, a
            # MFD_HUGETLB memfd, which keeps them while its descriptor is open): charged to
            # the hugetlb controller, never to the worker's memory cgroup
            rule("mmap", errno.EPERM, Cmp(3, masked_eq, MAP_HUGETLB, MAP_HUGETLB))
            rule("memfd_create", errno.EPERM, Cmp(1, masked_eq, MFD_HUGETLB, MFD_HUGETLB))
            lib.seccomp_attr_set(ctx, 4, 1)   # SCMP_FLTATR_CTL_TSYNC: every thread
            if lib.seccomp_load(ctx):
                raise OSError("seccomp_load failed")
        finally:
            lib.seccomp_release(ctx)
    except (OSError, AttributeError) as exc:
        raise SystemExit(f"the worker could not install its seccomp filter ({exc})") from None


def _isolate_imports(args) -> tuple:
    """sys.path: the standard library, the whitelisted packages, the runtime, the submission's
    folder; the runtime's modules loaded (_load_runtime); then an import guard that refuses the
    grader's and the reference's packages. Returns (guard, protocol, snapshot)."""
    here = os.path.dirname(os.path.abspath(__file__))   # on sys.path where -P is not (3.10)
    sys.path[:] = [p for p in sys.path if (p and os.path.isdir(p) or p.endswith(".zip"))
                   and os.path.abspath(p) != here]
    sys.path.extend(args.site)
    P, S = _load_runtime(args.kernel)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.module)))
    refuse = _Refuse([n for n in args.forbid.split(",") if n])
    sys.meta_path.insert(0, refuse)
    if args.allow is not None and not args.kernel:
        from andrea_runtime.import_rule import ImportRule   # loaded by _load_runtime

        ImportRule([n for n in args.allow.split(",") if n],
                   os.path.dirname(os.path.abspath(args.module)),
                   leave=refuse.names).install()     # those: refused as forbidden
    return refuse, P, S


class _Channel:
    """Frames in from the request pipe, frames out to the reply pipe."""

    def __init__(self, P, req_fd: int, resp_fd: int):
        self.P = P
        # buffered: a small request is one read (its length and body together)
        self.req = os.fdopen(req_fd, "rb", buffering=1 << 16)
        self.resp_fd = resp_fd

    def send(self, header: dict, blobs=(), limit: int | None = None, values: int = 0) -> None:
        """One frame, written with one writev where the pipe takes it all; a reply longer than
        `limit` bytes is sent as its size alone (``big``, with the `values` it held)."""
        packed = self.P.pack(header, list(blobs))
        if limit is not None and self.P.frame_size(packed) > limit:
            packed = self.P.pack({"big": {"values": values,
                                          "bytes": self.P.frame_size(packed)}}, [])
        parts = [memoryview(p).cast("B") for p in packed if len(p)]
        try:
            while parts:
                self.P.drop_written(parts, os.writev(self.resp_fd, parts[:512]))
        except OSError:
            _channel_lost()

    def recv(self):
        try:
            head = _read_into(self.req, bytearray(8))
            if head is None:
                return None
            body = _read_into(self.req, bytearray(self.P.frame_length(head)))
        except OSError:
            _channel_lost()
        if body is None:
            return None
        return self.P.unpack(body)


def _import_submission(args, refuse, send):
    """Import the submission; returns (the module, the notebook cells that raised), or an
    exit status after reporting why not."""
    failed: list = []
    ranges = _cell_ranges(args.cells) if args.cells else None
    try:
        if args.kernel:
            module = _load_kernel(args.module, args.runtime, args.kernel_loader)
        else:
            spec = importlib.util.spec_from_file_location("submission", args.module)
            module = importlib.util.module_from_spec(spec)
            sys.modules["submission"] = module
            if ranges:
                failed = _run_cells(args.module, ranges, module.__dict__)
            else:
                spec.loader.exec_module(module)
    except MemoryError:
        send({"fault": "memory", "event": "memory_import", "msg": "ran out of memory while importing"})
        return 3
    except SystemExit as exc:
        send({"fault": "crash", "event": "exit_import", "code": _safe_str(exc)[:100],
              "msg": f"called sys.exit({_safe_str(exc)}) while importing"})
        return 4
    except BaseException as exc:  # noqa: BLE001 - everything the import does is reported
        if refuse.attempts:
            send({"fault": "forbidden", "msg": refuse.attempts[0]})
            return 5
        send({"import_error": _import_error(exc, args.module)})
        return 0
    if refuse.attempts:
        send({"fault": "forbidden", "msg": refuse.attempts[0]})
        return 5
    return module, failed


def _cell_ranges(text: str) -> list:
    try:
        return C.parse_ranges(text)
    except ValueError as exc:
        raise SystemExit(f"worker: --cells: {exc}") from None


def _run_cells(path: str, ranges: list, namespace: dict) -> list:
    """A notebook's cells, run by the one cell loop (``andrea_runtime.cells.run_cells``).
    Returns [{"first": first line of the cell, "line": line that raised, "type", "bases",
    "msg"}] (at most MAX_CELL_ERRORS)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    failed = []
    for first, exc, line in C.run_cells(text, path, ranges, namespace, keep=MAX_CELL_ERRORS):
        info = _exc_info(exc)
        info["first"], info["line"] = first, line
        if isinstance(exc, SyntaxError):
            info["msg"] = str(exc.msg)[:MSG_LIMIT]     # without the module's file name
        failed.append(info)
    return failed


def _enter_files(args) -> None:
    """Run the submission where its entry lies among its own files, as Jupyter runs a notebook
    in its folder and ``python hw.py`` finds ``hw.py``'s neighbours. The grader's copy
    (`args.files`) is read-only, so the files are copied into the worker's writable home first
    (inside its disk quota) and the entry's folder of that copy is the working folder: reading
    ``open('scale.txt')`` and writing ``plt.savefig('fig.png')`` both work. The entry and its
    modules are still imported from the read-only folder (sys.path[0] and the import rule's
    folder, _isolate_imports): a submission's own modules are the files it handed in, byte for
    byte, and a module written into the working folder at run time is not one of them (fifth
    red-team round, tests/attacks/filesystem/written_module.py). Where the copy cannot be made
    (no room), the working folder is the read-only folder itself."""
    entry = os.path.abspath(args.module)
    work = os.path.dirname(entry)
    if args.files is not None:
        import shutil

        src = os.path.abspath(args.files)
        dest = os.path.join(os.getcwd(), FILES_COPY)
        try:
            shutil.copytree(src, dest, symlinks=True, copy_function=shutil.copyfile)
            work = os.path.dirname(os.path.join(dest, os.path.relpath(entry, src)))
        except (OSError, shutil.Error):
            shutil.rmtree(dest, ignore_errors=True)
    args.module = entry
    try:
        os.chdir(work)
    except OSError:
        pass


def _site_builtins() -> None:
    """help, exit, quit, copyright, credits and license, as `site` adds them to the builtins
    of every Python the student runs (andrea-conform's too). The worker runs with -S, so no
    package folder of the host's is searched; without these a module that calls
    ``help(np.dot)`` at import conformed in the self-check and scored 0 in the grader
    (NameError). Importing `site` under -S runs none of its path set-up."""
    import site

    site.setquit()
    site.setcopyright()
    site.sethelper()


def main(argv=None) -> int:
    args = _parse(argv)
    _unbuffer_output()
    _plain_warnings()
    _drop_privileges(args.drop_uid)
    if args.undumpable:
        _undumpable()
    if args.confine:
        try:
            confine()
        except SystemExit:
            if args.confine == "required":
                raise
    _site_builtins()
    if not args.kernel:
        _enter_files(args)
    # NumPy (with the protocol) is imported before the submission can patch anything
    refuse, P, S = _isolate_imports(args)
    chan = _Channel(P, args.req_fd, args.resp_fd)

    arena = _map_arena(chan.P, args)
    region = (chan.P.RegionView(args.region_fd, args.region_size)
              if args.region_fd is not None else None)
    module = _import_submission(args, refuse, chan.send)
    if isinstance(module, int):
        return module
    module, failed = module
    functions = [f for f in args.functions.split(",") if f]
    ready = {"ready": [f for f in functions if _has(module, f)]}
    if failed:
        ready["cells"] = failed
    chan.send(ready)
    kept: dict = {}   # argument arrays kept between calls, by the grader's key
    while True:
        msg = chan.recv()
        if msg is None:
            return 0
        header, blobs = msg
        if header.get("op") == "call":
            _serve_call(chan.P, module, header, blobs, chan.send, refuse, kept, arena, S,
                        region)


def _map_arena(P, args):
    """The grader's arena (None without one): read-only, and copy-on-write per call."""
    if args.arena_fd is None:
        return None
    return P.map_arena(args.arena_fd, args.arena_size)


def _has(module, name) -> bool:
    try:
        return name in vars(module) or hasattr(module, name)
    except BaseException:  # noqa: BLE001
        return False


def _serve_call(P, module, header, blobs, send, refuse, kept=None, arena=None, S=None,
                region=None) -> None:
    """Make one call and send its reply.

    Before the reply goes out (after it, the grader may reuse arena regions), every
    copy-on-write argument the submission still holds (itself, a view, its buffer) gets
    private pages (protocol.detach); the others are unmapped by then. Arrays in the grader's
    call region are the grader's bytes themselves: the call gets them as they are, and a map
    of it the submission still holds is made private (RegionView.release)."""
    fn_name = header.get("fn")
    kept = {} if kept is None else kept
    pristine: dict = {}   # id of a kept array's fresh copy -> the kept array
    cow: list = []
    shared = None
    try:
        used = header.get("region")
        if region is not None and type(used) is int and used > 0:
            shared = region.map(used)
        args = P.decode(header.get("args"), blobs, kept=kept, arena=arena, pristine=pristine,
                        cow=cow, region=shared)
        kwargs = dict(P.decode(header.get("kwargs"), blobs, kept=kept, arena=arena,
                               pristine=pristine, cow=cow, region=shared))
        for key in header.get("forget") or []:   # after decoding: this request may still use it
            kept.pop(key, None)
        reply = None
    except Exception as exc:  # noqa: BLE001
        reply = ({"fault": "protocol", "msg": f"bad request: {exc}"}, ())
    maps = [weakref.ref(m) for m in cow]
    del cow
    shared_ref = weakref.ref(shared) if shared is not None else None
    del shared
    limit = _limit(header.get("limit"))
    sized = {}
    if reply is None:
        reply = _call(P, S, module, fn_name, args, kwargs, pristine, send, refuse, limit[0],
                      sized)
        del args, kwargs
    del pristine
    held = shared_ref() if shared_ref is not None else None
    if held is not None:          # the submission keeps an argument: private pages, same bytes
        try:
            region.release(held)
        except (OSError, ValueError, TypeError, AttributeError):
            os._exit(CHANNEL_LOST)
    del held
    for ref in maps:
        private = ref()
        if private is not None:
            P.detach(private)
        del private
    if "ok" in reply[0]:
        send(*reply, limit=limit[1], values=sized.get("values", 0))
    else:
        send(*reply)


def _limit(said) -> tuple:
    """(values, bytes) a result may take, from the request's ``limit`` (None: no bound)."""
    said = said if isinstance(said, dict) else {}
    return tuple(said.get(k) if type(said.get(k)) is int and said.get(k) >= 0 else None
                 for k in ("values", "bytes"))


def _call(P, S, module, fn_name, args, kwargs, pristine, send, refuse, max_values=None,
          sized=None) -> tuple:
    """Call the submission; the reply (header, blobs) to send. `send` is used only just
    before the worker exits (sys.exit, KeyboardInterrupt). `S`: andrea_runtime.snapshot.
    A result of more than `max_values` values is answered with its size alone (``big``),
    before it is encoded; `sized` gets the values counted."""
    import numpy as np

    # A kept array's copy is compared with the kept array itself after the call (no copy
    # needed), an array in the grader's call region with itself (the grader compares it);
    # everything else with a private copy taken now.
    before = {key: pristine[id(a)] if type(a) is np.ndarray and id(a) in pristine
              else S.private(a) for key, a in list(enumerate(args)) + list(kwargs.items())}
    seen = len(refuse.attempts)
    try:
        fn = getattr(module, fn_name)
        result = fn(*args, **kwargs)
    except MemoryError:
        return {"fault": "memory", "event": "memory_call", "msg": f"ran out of memory in {fn_name}()"}, ()
    except SystemExit as exc:
        send({"fault": "crash", "event": "exit_call", "code": _safe_str(exc)[:100],
              "msg": f"called sys.exit({_safe_str(exc)}) in {fn_name}()"})
        os._exit(4)
    except KeyboardInterrupt:
        send({"fault": "crash", "event": "interrupt_call", "msg": f"raised KeyboardInterrupt in {fn_name}()"})
        os._exit(4)
    except BaseException as exc:  # noqa: BLE001 - reported as the submission's exception
        if len(refuse.attempts) > seen:
            return {"fault": "forbidden", "msg": refuse.attempts[seen]}, ()
        return {"exc": _exc_info(exc)}, ()
    if len(refuse.attempts) > seen:
        return {"fault": "forbidden", "msg": refuse.attempts[seen]}, ()
    out_blobs: list = []
    try:
        if max_values is not None:
            n = P.values_in(result, stop=max(8 * max_values, 1 << 24))
            if sized is not None:
                sized["values"] = n
            if n > max_values:
                return {"big": {"values": n}}, ()
        value = P.encode(result, out_blobs, objects=False)
        mutated, rngs = [], []
        for key, a in list(enumerate(args)) + list(kwargs.items()):
            if isinstance(a, np.random.Generator):
                rngs.append([key, P.encode(a.bit_generator.state, out_blobs)])
            elif S.differs(before[key], a):
                mutated.append(key)
    except MemoryError:
        return {"fault": "memory", "event": "memory_result",
                "msg": f"ran out of memory sending the result of {fn_name}()"}, ()
    except Exception as exc:  # noqa: BLE001 - e.g. a result of a type that cannot cross
        return {"fault": "result", "msg": f"{fn_name}() returned {_safe_str(exc)}"}, ()
    return {"ok": value, "mutated": mutated, "rngs": rngs}, out_blobs


def _load_kernel(path: str, runtime_dir: str, loader_name: str):
    """A .cu submission: the contract functions, from the kernel loader the grader named
    (``--kernel-loader``: a module of the kernel runtime it put in runtime/kernel, whose
    ``load(path, kernel_dir)`` compiles the file and ``said(exc)`` reads a finding). This
    package imports none of it by name: it stays standard library and NumPy only."""
    global _SAID
    kdir = os.path.join(runtime_dir, "kernel")
    sys.path.insert(0, kdir)
    try:
        loader = importlib.import_module(loader_name)
        load, _SAID = loader.load, loader.said
    except (ImportError, AttributeError) as exc:
        raise RuntimeError(f"kernel grading unavailable: {exc}") from None
    return load(path, kdir)


CHANNEL_LOST = 9


def _channel_lost():
    """The pipes to the grader are gone (the submission closed or replaced them): end at once,
    without a traceback of this module (the grader reports the exit; the student reads only
    what concerns their code)."""
    os._exit(CHANNEL_LOST)


def _read_into(f, buf: bytearray):
    view, got = memoryview(buf), 0
    while got < len(buf):
        n = f.readinto(view[got:])
        if not n:
            return None
        got += n
    return buf


if __name__ == "__main__":
    sys.exit(main())
