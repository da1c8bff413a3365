"""Run the registered checks against one implementation and collect what happened.

    impl = load_impl("andrea_ref")              # a module name, or a path to a .py file
    results = run_checks(impl, load_spec())     # one CheckResult per check

Each result carries a typed outcome (``status`` and ``cause``, see outcome.py). A failed check
carries the message of its smallest failing input (Hypothesis shrinks before it reports) as a
template with fields, that input as the call with the contract's parameter names, a Python
snippet that reproduces the last call, and a hint when the symptom matches a common bug.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.abc
import importlib.util
import os
import posixpath
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from andrea_runtime.cells import run_cells
from andrea_runtime.snapshot import differs, private
from spec import Spec

from . import replay, results
from .assertions import call_repr, mutation, seed_of
from .faults import ImplementationFault
from .hints import KERNEL_HOST_CODE, host_code_in_log
from .outcome import Cause, FaultKind, Status
from .profiles import DEFAULT_PROFILE, use_profile
from .notes import exception_message, raised_cell
from .sources import (PYTHON_SUFFIXES, SOURCE_SUFFIXES, Source, SourceError, forbidden_imports,
                      source_of)
from .submission import Submission, SubmissionError, printable_name, read_submission
from .registry import Check, ConformanceError, all_checks, select as select_checks
from .messages import (MSG_CHECK_BUG, MSG_ELSEWHERE, MSG_FAULT, MSG_FAULT_NO_FUNCTION, MSG_FLAKY,
                       MSG_KIT_NAME, MSG_MISSING, MSG_NO_MODULE, MSG_NOT_A_NOTEBOOK, MSG_OPTIONAL,
                       MSG_RAISED, MSG_REPRODUCE_OR)

PASSED, FAILED, ERROR, SKIPPED, NOT_RUN = (Status.PASSED, Status.FAILED, Status.ERROR,
                                          Status.SKIPPED, Status.NOT_RUN)


class ImplementationLoadError(Exception):
    """The target could not be imported; the message says which target and why.

    For a submission that raised while it was imported, `msgid` and `fields` give the reason
    as the grader words it (a msgid of the catalogs: the type, the line or cell and line, the
    message) and `text` the source line that raised."""

    def __init__(self, message: str, *, target: str = "", msgid: str | None = None,
                 fields: dict | None = None, text: str = ""):
        super().__init__(message)
        self.target, self.msgid, self.fields, self.text = target, msgid, dict(fields or {}), text

    def translated(self, t) -> str:
        """The message in `t`'s language (a reason the grader also gives: its sentence)."""
        if self.msgid is None:
            return str(self)
        from .i18n import exception_name, python_message

        f = dict(self.fields)
        words = t if getattr(t, "lang", "en") != "en" else None
        f["msg"] = python_message(f["type"], f["msg"], words)
        f["type"] = exception_name(f["type"], words)
        out = f"{self.target}: {t(self.msgid, **f)}"
        return out + (f"\n    {self.text}" if self.text else "")


# The grader's sentences for an import error (graders/grade/messages.py: the same msgids).
MSG_IMPORT_ERROR_AT = "{type} at line {line}: {msg}"
MSG_IMPORT_ERROR_AT_CELL = "{type} in cell {cell}, line {line}: {msg}"
MSG_IMPORT_ERROR = "{type}: {msg}"


def _import_failed(target, exc: BaseException, source: Source | None,
                   path: Path) -> ImplementationLoadError:
    """The import error as the grader reports it: the type, where (line, or cell and line, of
    the submission's own code that raised) and the message, then that line of source."""
    import traceback

    typ = type(exc).__name__
    try:
        msg = str(exc.msg if isinstance(exc, SyntaxError) else exc)[:4000]
    except Exception:  # noqa: BLE001 - an odd __str__
        msg = ""
    line, text = None, ""
    if isinstance(exc, SyntaxError):
        line, text = exc.lineno, (exc.text or "")
    else:
        folder = str(path.resolve().parent)
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if str(Path(f.filename).resolve()).startswith(folder)]
        if frames:
            line, text = frames[-1].lineno, frames[-1].line or ""
    if line and source is not None and source.notebook:
        lines = source.text.splitlines()
        text = lines[line - 1] if 0 < line <= len(lines) else text
    text = text.strip()[:300]
    loc = source.locate(line) if source is not None else None
    if loc:
        msgid, fields = MSG_IMPORT_ERROR_AT_CELL, {"cell": loc[0], "line": loc[1]}
    elif line and not (source is not None and source.notebook):
        msgid, fields = MSG_IMPORT_ERROR_AT, {"line": line}
    else:
        msgid, fields = MSG_IMPORT_ERROR, {}
    fields.update(type=typ, msg=msg)
    english = msgid.format(**fields) + (f"\n    {text}" if text else "")
    return ImplementationLoadError(f"{target}: {english}", target=str(target), msgid=msgid,
                                   fields=fields, text=text)


@dataclass
class CheckResult:
    """What one check found. `status` and `cause` are the typed outcome (outcome.py).

    `message` is the English text; `template` (a gettext msgid) and `fields` give it again for
    translation. `example` is the failing call with the contract's parameter names. `details`
    holds structured facts of the cause: ``function`` (missing, raised, faulted), ``fault`` (a
    FaultKind), ``exception`` (the type raised), ``line`` (of an import error).
    """

    check_id: str
    clauses: tuple[str, ...]
    status: Status
    message: str = ""
    example: str | None = None
    reproducer: str | None = None
    hint: str | None = None
    duration_s: float = 0.0
    cause: Cause | None = None
    template: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self.status = Status(self.status)
        if self.cause is not None:
            self.cause = Cause(self.cause)
        if self.template is None and self.message:
            self.template = self.message.replace("{", "{{").replace("}", "}}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["clauses"] = list(self.clauses)
        d["status"], d["cause"] = str(self.status), self.cause and str(self.cause)
        d["fields"] = {k: _plain(v) for k, v in self.fields.items()}
        return d

    def set_message(self, template: str, **fields: Any) -> None:
        self.template, self.fields = template, fields
        self.message = template.format(**fields)


def _plain(value):
    """A field value as JSON data (tuples become lists, NumPy scalars Python numbers)."""
    if isinstance(value, (np.generic,)):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def not_run(check: Check, cause: Cause, template: str, *, status: Status = NOT_RUN,
            **fields: Any) -> CheckResult:
    """The result of a check that never started (import failure, time budget used up)."""
    result = CheckResult(check.id, check.clauses, status, cause=cause)
    result.set_message(template, **fields)
    return result


# ----------------------------------------------------------------------------- loading
def load_impl(target: str | Path, *, submission_rules: bool = False):
    """Import an implementation: a module name (``andrea_ref``), or a path to what a student
    hands in (a .py file, a Jupyter notebook, a .cu kernel, a package, or a folder holding
    one of them).

    A path is read by :func:`graders.conformance.submission.read_submission`, as the grader
    reads it (the same walk, caps, entry and problem), and its entry is imported where it
    lies. With ``submission_rules`` (``andrea-conform``), the grader's import rule holds too:
    a file that imports the kit's own packages (the reference, the graders, the spec) or the
    test tooling is refused, and so is a helper named like one of them, because the grader
    would refuse it. (The project's own tests load variants of the reference, which import
    it, without it.)
    """
    text = str(target)
    path = Path(text)
    if path.suffix in SOURCE_SUFFIXES or path.exists():
        try:
            sub = read_submission(text)
        except SubmissionError as exc:
            raise ImplementationLoadError(str(exc)) from None
        impl = _load_submission(sub, target, submission_rules)
        try:
            impl.__andrea_submission__ = sub    # what andrea-conform read (its kind)
        except (AttributeError, TypeError):
            pass
        return impl
    try:
        return importlib.import_module(text)
    except ModuleNotFoundError as exc:
        raise ImplementationLoadError(f"{target}: cannot import ({exc})") from None
    except SyntaxError as exc:
        raise ImplementationLoadError(
            f"{target}: syntax error at {_where(exc.lineno)}: {exc.msg}") from None
    except Exception as exc:  # noqa: BLE001 - any import-time failure is reported, not raised
        raise ImplementationLoadError(
            f"{target}: importing it raised {type(exc).__name__}: {exc}") from None


def _load_submission(sub: Submission, target, submission_rules: bool):
    """Import the entry of a submission read from disk, where it lies (helper modules beside
    it import as in the grader's worker), or say, as the grader would, why there is none."""
    if sub.kind == "kernel":
        return _load_kernel(Path(sub.entry_path), target)
    if sub.entry is None:
        raise ImplementationLoadError(
            f"{target}: no Python module or notebook in this folder"
            if sub.problem == MSG_NO_MODULE else
            f"{target}: several candidates ({(sub.problem_fields or {}).get('names', '')}); "
            "keep one or name it submission.py")
    if sub.problem == MSG_KIT_NAME and submission_rules:
        f = sub.problem_fields or {}
        raise ImplementationLoadError(
            f"{target}: {f.get('names', '')} has the name of one of the grader's own packages "
            f"({f.get('package', '')}); rename it, and its imports")
    if sub.problem == MSG_NOT_A_NOTEBOOK:
        raise ImplementationLoadError(sub.problem_detail or f"{target}: not a Jupyter notebook")
    path = Path(sub.entry_path)
    try:
        source = sub.notebook_source() or source_of(sub.files[sub.entry], sub.entry, path)
    except SourceError as exc:
        raise ImplementationLoadError(str(exc)) from None
    refused = forbidden_imports(source.text)
    if submission_rules and refused and path.suffix in PYTHON_SUFFIXES and path.name != "__init__.py":
        raise ImplementationLoadError(
            f"{target}: imports {refused[0]}, which the grader refuses (a submission "
            "may not use the reference, the graders, the spec or the test tools)")
    if submission_rules:      # as in the grader's worker
        os.environ["MPLBACKEND"] = "Agg"     # plots are drawn nowhere, never shown
        install_import_rule(path.parent, own=sub.own_modules())
    written = (sub.source or {}).get("written") or {}
    if written:     # the modules its %%writefile cells write, from the notebook (not the disk)
        install_written_modules(path.parent, written)
    try:
        return _exec_source(source, path, _working_copy(sub) if submission_rules else None)
    except ImplementationLoadError:
        raise
    except (Exception, SyntaxError) as exc:  # noqa: BLE001 - reported as the grader does
        if submission_rules:
            raise _import_failed(target, exc, source, path) from None
        if isinstance(exc, ModuleNotFoundError):
            raise ImplementationLoadError(f"{target}: cannot import ({exc})") from None
        if isinstance(exc, SyntaxError):
            raise ImplementationLoadError(
                f"{target}: syntax error at {_where(exc.lineno)}: {exc.msg}") from None
        raise ImplementationLoadError(
            f"{target}: importing it raised {type(exc).__name__}: {exc}") from None


_CURRENT_SOURCE: list = []
_IMPORT_RULES: list = []


def install_import_rule(folder: Path, own=None):
    """The import rule (import_rule.py, the grader's: the standard library, the submission's
    own modules and sources.ALLOWED_PACKAGES) for the code of the submission in `folder`,
    until :func:`remove_import_rules`. `own`: the names of its own modules (those handed in,
    ``Submission.own_modules``); by default every module in `folder`."""
    from andrea_runtime.import_rule import ImportRule
    from .sources import ALLOWED_PACKAGES, KIT_PACKAGES

    # the kit's own packages are refused before (forbidden_imports), as in the grader
    rule = ImportRule(ALLOWED_PACKAGES, str(folder), leave=KIT_PACKAGES, own=own).install()
    _IMPORT_RULES.append(rule)
    return rule


def remove_import_rules() -> None:
    while _IMPORT_RULES:
        _IMPORT_RULES.pop().remove()


class _WrittenModules:
    """A finder of the modules a notebook's ``%%writefile NAME.py`` cells write, served from
    the notebook's text (``Source.written``) as if they lay beside it: what the grader's worker
    imports from its copy of the files, whatever the student's folder holds (no copy if the
    notebook never ran there, a stale one if the cell changed since)."""

    def __init__(self, folder: Path, written: dict):
        self.folder = str(Path(folder).resolve())
        self.modules = {name[:-3]: text for name, text in written.items()}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.modules:
            return None

        origin = os.path.join(self.folder, fullname + ".py")
        return importlib.util.spec_from_file_location(
            fullname, origin, loader=_WrittenLoader(fullname, origin, self.modules[fullname]))

    def remove(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)


class _WrittenLoader(importlib.abc.SourceLoader):
    def __init__(self, name: str, origin: str, text: str):
        self.name, self.origin, self.text = name, origin, text

    def get_filename(self, fullname):
        return self.origin

    def get_data(self, path):
        if path != self.origin:
            raise OSError(path)
        return self.text.encode("utf-8")


def install_written_modules(folder: Path, written: dict) -> _WrittenModules:
    """Serve the notebook's written modules, after the import rule (which judges them as the
    submission's own modules) and before the file system, until remove_import_rules."""
    finder = _WrittenModules(folder, written)
    for name in finder.modules:          # a fresh kernel's import, not an earlier run's module
        sys.modules.pop(name, None)
    rules = [i for i, f in enumerate(sys.meta_path) if f in _IMPORT_RULES]
    sys.meta_path.insert(rules[-1] + 1 if rules else 0, finder)
    _IMPORT_RULES.append(finder)
    return finder


KERNEL_LOG_LIMIT = 4000     # andrea_gpu.worker_loader.LOG_LIMIT: what the grader keeps of a log


def _load_kernel(path: Path, target):
    """A CUDA kernel submission behind the contract's functions (andrea_gpu.submission: on
    the GPU where there is one, else in the CPU executor), as the grader runs it."""
    try:
        from andrea_gpu.submission import SubmissionError, load_kernel_submission
    except ImportError as exc:
        raise ImplementationLoadError(
            f"{target}: checking a kernel needs the GPU part of the kit ({exc.name or exc})"
            ) from None
    try:
        return load_kernel_submission(path, compile_first=True)   # NVRTC first, as the grader
    except SubmissionError as exc:
        log = getattr(exc, "compile_log", None)
        if log is not None:      # the grader's words (KERNEL_COMPILE_FAILED), its log's length
            raise ImplementationLoadError(
                f"{target}: Your kernel file does not compile; the compiler says:\n"
                f"{log[:KERNEL_LOG_LIMIT].rstrip()}"
                + (f"\nhint: {KERNEL_HOST_CODE}" if host_code_in_log(log) else "")) from None
        raise ImplementationLoadError(f"{target}: {exc}") from None
    except (OSError, RuntimeError) as exc:
        raise ImplementationLoadError(
            f"{target}: the kernel could not be built or loaded ({type(exc).__name__}: {exc})"
            ) from None


def _where(line) -> str:
    src = _CURRENT_SOURCE[-1] if _CURRENT_SOURCE else None
    loc = src.locate(line) if src is not None else None
    return f"cell {loc[0]}, line {loc[1]}" if loc else f"line {line}"


@contextlib.contextmanager
def in_folder(folder: str | None):
    """The working folder is `folder` while the block runs (then back where it was): the
    submission's code runs in its entry's folder, as in the grader's worker (which runs in a
    copy of the submission's files), in Jupyter and under ``python hw.py``, whatever folder
    andrea-conform was started from."""
    before = None
    if folder is not None:
        try:
            before = os.getcwd()
            os.chdir(folder)
        except OSError:
            before = None
    try:
        yield
    finally:
        if before is not None:
            try:
                os.chdir(before)
            except OSError:
                pass


_WORKING_COPIES: list = []


def _working_copy(sub: Submission) -> str | None:
    """A folder holding what was read as the submission (its files, as the grader's worker's
    writable copy holds them), where its code runs (andrea-conform): a file checked alone
    reads no data file that lies beside it but is not handed in with it (the kit read
    scale.txt beside hw.py and conformed; the grader, given hw.py, has no scale.txt: 0/100),
    and what it writes goes there. Removed when the process ends. None where it cannot be made
    (the code then runs in its entry's folder)."""
    import atexit
    import shutil
    import tempfile

    entry_dir = posixpath.dirname(sub.entry or "")
    try:
        root = tempfile.mkdtemp(prefix="andrea-conform-")
        for rel, data in sub.files.items():
            target = os.path.join(root, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
    except (OSError, ValueError):
        return None
    if not _WORKING_COPIES:
        atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in _WORKING_COPIES])
    _WORKING_COPIES.append(root)
    work = os.path.join(root, *entry_dir.split("/")) if entry_dir else root
    return work if os.path.isdir(work) else root


def _exec_source(source: Source, path: Path, work: str | None = None):
    # (a file name that is not UTF-8 is bytes as os.fsencode gives them, and printable text)
    digest = hashlib.sha1(os.fsencode(path.resolve())).hexdigest()[:8]
    name = f"andrea_impl_{printable_name(path.stem)}_{digest}"
    # Helper modules beside the submission import as in the grader's worker, whose path starts
    # with the submission's folder (kept: a function may import its helper when called).
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    folder = work or folder      # where it runs: a copy of what was handed in (andrea-conform)
    if not source.notebook:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        module.__andrea_folder__ = folder    # the checks' calls run there too (_Recorder)
        sys.modules[name] = module
        with in_folder(folder):
            spec.loader.exec_module(module)
        return module
    import types

    module = types.ModuleType(name)
    module.__file__ = str(path)
    module.__andrea_source__ = source
    module.__andrea_folder__ = folder
    sys.modules[name] = module
    _CURRENT_SOURCE.append(source)
    try:
        try:
            with in_folder(folder):
                failed = run_cells(source.text, str(path), source.cell_ranges(),
                                   module.__dict__)
        except SyntaxError as exc:
            raise ImplementationLoadError(
                f"{path}: syntax error at {_where(exc.lineno)}: {exc.msg}") from None
        except Exception as exc:  # noqa: BLE001 - MemoryError: run_cells records the others
            raise ImplementationLoadError(
                f"{path}: running the notebook raised {type(exc).__name__}: {exc}") from None
        # a cell that raised: recorded (the cells after it ran) as the grader's report records
        # it; andrea-conform says it (notes.notebook_notes)
        raised = (raised_cell(source.locate, first, line, type(exc).__name__,
                              exception_message(exc)) for first, exc, line in failed)
        module.__andrea_cells_raised__ = [c for c in raised if c]
    finally:
        _CURRENT_SOURCE.pop()
    return module


# ----------------------------------------------------------------------------- reproducers
class _Recorder:
    """Wraps an implementation and remembers the arguments of its last call.

    The implementation gets private copies of array and list arguments, so a check's
    expectations are computed from values it never touched; a call that changed its copies
    fails (EMB-PURE-01, BWD-PURE-01: no function mutates its inputs). An implementation whose calls already
    cross as copies (the grader's proxy: ``passes_copies``) gets the check's own values.
    """

    passes_copies = True   # every call gets copies (made here, or by the proxy)

    def __init__(self, impl, observed: list | None = None, strict: bool = True,
                 limits=None):
        self._impl = impl
        # a submission read from disk: its calls run in its folder, as its import did
        folder = (getattr(impl, "__andrea_folder__", None)
                  if isinstance(impl, type(sys)) else None)
        self._folder = folder if isinstance(folder, str) else None
        self._limits = limits            # CallLimits: charge time as the grader does (or None)
        self._check_start = time.perf_counter()
        self.last: tuple[str, tuple, dict] | None = None
        self.last_of: dict[str, tuple[str, tuple, dict]] = {}   # the last call of each function
        # A call that changed its arguments: raised in the purity check (`strict`), otherwise
        # kept in `observed` for it, and the calling check goes on with the returned value.
        self.observed = observed if observed is not None else []
        self.strict = strict

    def __getattr__(self, name):
        fn = getattr(self._impl, name)
        if not callable(fn):
            return fn

        # the type is asked, not the object: a submitted module cannot claim it
        copies = getattr(type(self._impl), "passes_copies", False) is not True

        def call(*args, **kwargs):
            replay.note_call()
            self.last = self.last_of[name] = (name, tuple(_snapshot(a) for a in args),
                                              {k: _snapshot(v) for k, v in kwargs.items()})
            given = (tuple(private(a) for a in args),
                     {k: private(v) for k, v in kwargs.items()}) if copies else (args, kwargs)
            try:
                with in_folder(self._folder):
                    if copies and self._limits is not None:
                        result = self._timed(name, fn, given)
                    else:
                        result = fn(*given[0], **given[1])
            except ConformanceError as exc:
                if not hasattr(exc, "returned"):
                    raise
                # reported by the grader's proxy; the violation does not keep the result
                return self._mutated(exc, vars(exc).pop("returned"))
            except Exception as exc:
                exc._andrea_raised_by_impl = name  # the implementation's, not the check's
                raise
            if copies:
                # the grader's proxy judged the size before reading the reply; here it is
                # judged before any check looks at the result (results.py)
                want = results.expected_values(name, args, kwargs)
                allowed = results.allowed_values(want)
                if allowed is not None:
                    got = results.count_values(result, stop=max(8 * allowed, 1 << 24))
                    if got > allowed:
                        del result, given
                        raise results.too_large(name, got, want)
                changed = [i for i, (a, b) in enumerate(zip(args, given[0])) if differs(a, b)]
                changed += [k for k, v in kwargs.items() if differs(v, given[1][k])]
                if changed:
                    return self._mutated(mutation(name, changed), result)
            return result

        return call


    def _timed(self, name: str, fn, given):
        """The call under the grader's time limits (limits.py): a call that runs past them is
        a timeout of the check (interrupted where Python code runs; judged when it returns
        where it does not), and a function that timed out too often is not called again."""
        from .faults import CallTimeout
        from .limits import MSG_BUDGET, MSG_CALL_TIMEOUT, MSG_CHECK_TIME, MSG_TIMED_OUT_BEFORE

        lim, what = self._limits, f"{name}()"
        budget = lim.total - (time.perf_counter() - lim.start)
        if budget <= 0:
            lim.budget_refused = True
            raise CallTimeout.said(MSG_BUDGET, what=what, function=name,
                                   seconds=f"{lim.total:g}")
        left = min(lim.check - (time.perf_counter() - self._check_start), budget)
        if left <= 0:
            raise CallTimeout.said(MSG_CHECK_TIME, what=what, function=name,
                                   seconds=f"{lim.check:g}")
        if lim.timeouts.get(name, 0) >= lim.max_timeouts:
            raise CallTimeout.said(MSG_TIMED_OUT_BEFORE, what=what, function=name,
                                   n=lim.timeouts[name])
        timeout = min(lim.call, left)
        start = time.perf_counter()
        late = False
        try:
            with _alarm(timeout):
                result = fn(*given[0], **given[1])
        except _Interrupted:
            late = True
        late = late or time.perf_counter() - start > timeout
        if late:
            lim.timeouts[name] = lim.timeouts.get(name, 0) + 1
            raise CallTimeout.said(MSG_CALL_TIMEOUT, what=what, function=name,
                                   seconds=f"{timeout:g}")
        return result

    def _mutated(self, violation: ConformanceError, result):
        violation.call = violation.call or _last_call(self)
        if self.strict:
            raise violation
        self.observed.append(violation)
        return result


class _Interrupted(BaseException):
    """A call ran past its time (raised in the submission's code by the alarm)."""


class _alarm:
    """SIGALRM after `seconds` raises _Interrupted in the running code (the main thread of a
    POSIX process only; elsewhere the call's time is judged when it returns)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.old = None

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            def ring(signum, frame):
                raise _Interrupted()

            self.old = signal.signal(signal.SIGALRM, ring)
            signal.setitimer(signal.ITIMER_REAL, max(self.seconds, 0.001))
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


def _snapshot(value):
    if isinstance(value, np.ndarray):
        if value.size <= 4096:
            return value.copy()
        from .strategies import origin

        recipe = origin(value)   # a table the strategies built from a seed: built again
        if recipe is not None and recipe[0] == "table":
            return ("table", recipe)
        return ("large", value.dtype, value.shape)
    if isinstance(value, np.random.Generator):
        seed = seed_of(value)
        if seed is not None:
            return ("seeded", seed)
        return ("generator", value.bit_generator.state)
    return value


def _literal(value) -> str:
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype=np.{value.dtype.name})"
    if isinstance(value, tuple) and value and value[0] == "table":
        # strategies.table(seed, rows, d_model, dtype), written out: the same values
        _, seed, rows, d_model, dtype = value[1]
        return (f"(np.random.default_rng({seed}).random(({rows}, {d_model}), dtype=np.float32)"
                f" * 2 - 1).astype(np.{np.dtype(dtype).name})")
    if isinstance(value, tuple) and value and value[0] == "large":
        _, dtype, shape = value
        return f"np.zeros({shape!r}, dtype=np.{dtype.name})"
    if isinstance(value, tuple) and value and value[0] == "seeded":
        return f"np.random.default_rng({value[1]})"
    if isinstance(value, tuple) and value and value[0] == "generator":
        return f"_generator({value[1]!r})"
    return repr(value)


def reproducer(target: str, recorder: _Recorder, spec: Spec, check: Check,
               example: str | None = None) -> str | None:
    """A snippet that makes the failing call again: the last call of the function the failure
    names (`example`, the call shown to the reader), else the check's last call (a check may
    ask other functions after the one that failed, e.g. the cosine check the norm)."""
    last = recorder.last
    named = example.split("(", 1)[0] if example and "(" in example else None
    if named in recorder.last_of:
        last = recorder.last_of[named]
    if last is None:
        return None
    fn, args, kwargs = last
    parts = [_literal(a) for a in args] + [f"{k}={_literal(v)}" for k, v in kwargs.items()]
    lines = ["import numpy as np",
             "from graders.conformance.runner import load_impl"]
    if any(isinstance(a, tuple) and a and a[0] == "generator" for a in args):
        lines += ["", "def _generator(state):",
                  "    g = np.random.Generator(getattr(np.random, state['bit_generator'])())",
                  "    g.bit_generator.state = state",
                  "    return g"]
    lines += ["", f"impl = load_impl({target!r})",
              f"print(impl.{fn}({', '.join(parts)}))",
              "# " + MSG_REPRODUCE_OR.format(
                  command=f"andrea-conform {target} --spec {_spec_arg(spec)} --select {check.id}")]
    return "\n".join(lines)


def _spec_arg(spec: Spec) -> str:
    from spec import SPEC_DIR

    return spec.name if spec.path.parent == SPEC_DIR else str(spec.path)


def _find(exc: BaseException, want) -> BaseException | None:
    """`exc` or, in an exception group (Hypothesis's flaky failures), the first that matches."""
    if want(exc):
        return exc
    for inner in getattr(exc, "exceptions", ()) or ():
        found = _find(inner, want)
        if found is not None:
            return found
    return None


def _raised_by_impl(exc: BaseException) -> bool:
    return getattr(exc, "_andrea_raised_by_impl", None) is not None


def _is_flaky(exc: BaseException) -> bool:
    try:
        from hypothesis.errors import Flaky
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, Flaky)


# ----------------------------------------------------------------------------- running
def run_check(check: Check, impl, spec: Spec, *, target: str = "impl",
              mutations: list | None = None, limits=None) -> CheckResult:
    """Run one check; never raises for anything the implementation does.

    `mutations` collects the in-place changes of arguments seen in the calls of a run's
    checks: a check goes on with the returned value, and the purity check
    (``judges_mutation``) fails with the first one (a bug costs points once).
    """
    result = CheckResult(check.id, check.clauses, PASSED)
    missing = [f for f in check.requires if not callable(getattr(impl, f, None))]
    # another group's function (if_present) is judged only when defined: its absence costs
    # points in its own group, not here; with none of its functions defined the check is
    # skipped (it earns its points: the group it scores in is not the one left out)
    needed = [f for f in missing if f not in check.if_present]
    if needed or (missing and len(missing) == len(check.requires)):
        required = [f for f in needed if f not in spec.contract.optional]
        if required:
            result.status, result.cause = FAILED, Cause.MISSING_FUNCTION
            result.set_message(MSG_MISSING, function=", ".join(required))
        elif needed:
            result.status, result.cause = SKIPPED, Cause.OPTIONAL_ABSENT
            result.set_message(MSG_OPTIONAL, function=", ".join(needed))
        else:
            result.status, result.cause = SKIPPED, Cause.MISSING_ELSEWHERE
            result.set_message(MSG_ELSEWHERE, function=", ".join(missing))
        result.details["function"] = (required or needed or missing)[0]
        return result
    observed = mutations if mutations is not None else []
    recorder = _Recorder(impl, observed, strict=check.judges_mutation, limits=limits)
    start = time.perf_counter()
    try:
        with replay.check_scope(check.id, spec):
            check(recorder, spec)
        mine = [v for v in observed if v.fields.get("function") in check.requires]
        if check.judges_mutation and mine:    # of its own functions (each group has its own)
            raise mine[0]
    except ImplementationFault as exc:
        _fault(result, exc)
        result.example = _last_call(recorder)   # the call that hung, crashed, ...
        replay.forget_locals(exc)
    except Exception as exc:  # noqa: BLE001 - sorted into the causes below
        _classify(result, exc, recorder)
        if result.status == FAILED:
            result.reproducer = reproducer(target, recorder, spec, check, result.example)
        replay.forget_locals(exc)   # the result keeps text: no value outlives its check
    finally:
        result.duration_s = time.perf_counter() - start
    return result


def _fault(result: CheckResult, exc: ImplementationFault) -> None:
    result.status, result.cause = ERROR, Cause.FAULT
    fn = getattr(exc, "function", None)
    result.details.update(fault=str(FaultKind.of(exc.kind)), function=fn)
    if fn:
        result.set_message(MSG_FAULT, function=fn, detail=str(exc))
    else:
        result.set_message(MSG_FAULT_NO_FUNCTION, detail=str(exc))
    said = exc.translatable() if hasattr(exc, "translatable") else None
    if said:   # the detail again as a msgid and its values, for feedback in other languages
        result.fields["detail_msg"] = said


def _classify(result: CheckResult, exc: BaseException, recorder: "_Recorder") -> None:
    """Sort an exception out of a check into failed (and why) or a bug of the check."""
    raised = _find(exc, _raised_by_impl)
    violation = _find(exc, lambda e: isinstance(e, AssertionError) and not _raised_by_impl(e))
    if raised is not None and (violation is None or raised is exc):
        fn = raised._andrea_raised_by_impl
        result.status, result.cause = FAILED, Cause.RAISED
        result.set_message(MSG_RAISED, function=fn, exception=type(raised).__name__,
                           error=str(raised)[:300])
        from .assertions import said_of
        said = said_of(raised)
        if said is not None:   # a kernel executor's finding: translatable (see said_of)
            result.fields["error_said"] = said
        result.details.update(function=fn, exception=type(raised).__name__)
        result.example = _last_call(recorder)
        from . import hints
        result.hint = hints.RAISED
    elif violation is not None:
        result.status = FAILED
        if isinstance(violation, ConformanceError):
            result.cause = Cause(violation.cause)
            result.template, result.fields = violation.template, violation.fields
            result.message, result.hint = str(violation), violation.hint
            result.example = violation.call or _last_call(recorder)
        else:  # a bare assert in a check
            result.cause = Cause.WRONG_VALUE
            result.message = str(violation) or "assertion failed"
            result.template = result.message.replace("{", "{{").replace("}", "}}")
            result.example = _last_call(recorder)
    elif _is_flaky(exc) and recorder.last is not None:
        result.status, result.cause = FAILED, Cause.WRONG_VALUE
        result.set_message(MSG_FLAKY, function=recorder.last[0])
        result.example = _last_call(recorder)
    else:  # a bug in the check itself: never blame the implementation for it
        result.status, result.cause = ERROR, Cause.CHECK_BUG
        result.set_message(MSG_CHECK_BUG, check=result.check_id,
                           exception=type(exc).__name__, error=str(exc)[:300])


def _last_call(recorder: "_Recorder") -> str | None:
    if recorder.last is None:
        return None
    fn, args, kwargs = recorder.last
    shown = [_shown(a) for a in args]
    return call_repr(fn, *shown, **{k: _shown(v) for k, v in kwargs.items()})


def _shown(value):
    from .assertions import Shown

    if isinstance(value, tuple) and value and value[0] == "large":
        return Shown(f"<{value[1].name} array of shape {tuple(value[2])}>")
    if isinstance(value, tuple) and value and value[0] == "seeded":
        return Shown(f"np.random.default_rng({value[1]})")
    if isinstance(value, tuple) and value and value[0] == "generator":
        return Shown("np.random.Generator(...)")
    return value


def run_checks(impl, spec: Spec, *, profile: str = DEFAULT_PROFILE,
               select: Iterable[str] | None = None, target: str = "impl",
               on_start: Callable[[Check], None] | None = None,
               on_result: Callable[[CheckResult], None] | None = None,
               limits=None) -> list[CheckResult]:
    """Run every registered check (or the selected ones) under a Hypothesis profile.

    `on_start(check)` and `on_result(result)` are called around each check (progress, timers).
    `limits` (limits.CallLimits): charge the calls of an implementation that runs in this
    process with the grader's time limits (andrea-conform does; the grader's own proxy has
    them already).
    """
    chosen = select_checks(all_checks(spec), list(select) if select else None)
    order = {c.id: i for i, c in enumerate(chosen)}
    results, mutations = [], []
    with use_profile(profile):
        for chk in in_run_order(chosen, spec):
            if on_start is not None:
                on_start(chk)
            if limits is not None:
                limits.budget_refused = False
            res = run_check(chk, impl, spec, target=target, mutations=mutations,
                            limits=limits)
            if limits is not None and limits.budget_refused and res.status == ERROR:
                from .limits import MSG_NOT_RUN_BUDGET   # as the grader reports it

                res = not_run(chk, Cause.BUDGET, MSG_NOT_RUN_BUDGET,
                              seconds=f"{limits.total:g}")
            results.append(res)
            if on_result is not None:
                on_result(res)
    return sorted(results, key=lambda r: order[r.check_id])


#: How late students see a check's result: at once, after the due date (or publication), never.
VISIBILITY_RANK = {"visible": 0, "after_due_date": 1, "after_published": 1, "hidden": 2}


def visibility_rank(check: Check, spec: Spec | None) -> int:
    """When students see `check`'s result (VISIBILITY_RANK; the most restrictive of its clauses'
    groups); 0 without a spec."""
    if spec is None:
        return 0
    group_of = {c.id: c.group for c in spec.clauses}
    return max((VISIBILITY_RANK.get(str(spec.groups.get(group_of.get(c), {})
                                        .get("visibility", "visible")), 2)
                for c in check.clauses), default=0)


def calls_shown_later(checks: list[Check], spec: Spec) -> list[tuple[Check, str]]:
    """(check, function) where `check` calls a contract function (``if_present``) of a group
    students see later than the check's own: its verdict would then tell about that group
    before it is shown. A function's group is that of the checks that require it without
    ``if_present``. None in the bundled specs (each group judges its own functions' purity and
    errors); the grader refuses a spec that has any."""
    home: dict[str, int] = {}
    for c in checks:
        for f in set(c.requires) - set(c.if_present):
            home[f] = min(home.get(f, 2), visibility_rank(c, spec))
    return [(c, f) for c in checks for f in c.requires
            if home.get(f, 0) > visibility_rank(c, spec)]


def in_run_order(checks: list[Check], spec: Spec | None = None) -> list[Check]:
    """The order checks run in: by visibility (with a spec), the visible checks first, then
    those shown after the due date, then the hidden ones, so that nothing a student sees sooner
    can depend on a check shown later (its calls, output, restarts, time used, the worker's
    state); within each, the purity check last, so that it sees the arguments changed in every
    check before it (never those of a later, less visible one). Results are reported in the
    registry's order whatever the run order."""
    rank = {c.id: visibility_rank(c, spec) for c in checks}
    return sorted(checks, key=lambda c: (rank[c.id], c.judges_mutation))
