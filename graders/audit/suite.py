"""andrea-audit suite: how strong is the conformance suite? Mutation analysis tied to clauses.

    result = audit_suite(load_spec(), "andrea_ref", jobs=2)
    print(render_text(result))            # graders/audit/suite_report.py

1. The target's source (the bundled reference, the bundled kernels, or a .py / .cu / package
   given by path) gets first-order mutants: graders/audit/mutate.py (Python: ast finds the
   sites, libcst writes the mutant) and graders/audit/mutate_cu.py (CUDA: a tokenizer).
   Only functions that a contract function reaches are mutated (a module-aware call graph
   from the package's ``__init__`` re-exports); each mutant knows which contract functions
   reach the code it changed.
2. Each mutant runs the checks that call those functions (graders/conformance/runner.py's
   ``run_check``), under a fast profile, those of the clauses its operator's bug violates first,
   and stops at the first check that fails: the mutant is *killed* by that check's clauses.
   The bundled reference's mutants run in this process or in pool processes (``jobs``) or on a
   Dask cluster (``scheduler``), with graders/grade/batch.py's executors; a target given by
   path is untrusted code: each mutant is graded in the grader's sandbox
   (graders/grade/grading.py), never imported here.
3. A mutant no check kills is run against the original on the checks' own drawn inputs
   (:class:`Differential`: both get the same arguments, every result, exception and change to
   an argument is compared bit for bit). If no input tells them apart (or only by roundoff
   the spec allows), it is *likely equivalent*; otherwise it *survived*, and the report shows
   its diff, the smallest input that tells it apart and the clauses that should have caught it.
   Where the audit can watch the mutant run (targets that run in this process), a mutant whose
   changed line no drawn input ever executes is *unreached* instead of equivalent: the checks'
   inputs never go there (the reference's multi-threaded path for outputs over 4 MB, say).

Score = killed / (killed + survived + unreached): likely-equivalent mutants do not count.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib
import math
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from graders.conformance.submission import SubmissionError, read_submission

from . import mutate as MU

FAST_PROFILE = "dev"          # mutants: 10 examples per check (a bug shows in the first few)
EQUIVALENCE_PROFILE = "grading"  # the differential run of a survivor: 40 examples per check
MUTANT_TIMEOUT_S = 120        # CPU seconds for one mutant (the reference's take 0.1-11 s)
ROUNDOFF_RTOL = 1e-5          # differences this small are the roundoff the spec allows
BUNDLED = {"andrea_ref": "python", "andrea_gpu": "kernel"}


class SuiteAuditError(Exception):
    """The audit cannot run (unknown target, bad option, isolation missing): one line."""


# ----------------------------------------------------------------------------- targets
@dataclass
class Target:
    name: str                       # as the user gave it
    kind: str                       # "python" or "kernel"
    trusted: bool                   # the bundled reference / kernels: runs in this process
    files: dict[str, str]           # relative path -> text, every file the target consists of
    entry: str                      # the file to import (a package's __init__.py) or the .cu
    package: str | None = None      # the package folder's name when the target is a package
    mutable: tuple[str, ...] = ()   # the files whose functions are mutated
    # Top-level packages whose modules are part of the target although it imports them by
    # absolute name (the reference's argument checks, andrea_runtime/validate.py): their files
    # sit under that name in `files`, and a mutant's copy imports them relatively.
    vendored: tuple[str, ...] = ()


def resolve_target(arg: str, *, sandbox: str = "auto") -> Target:
    """The target named by `arg`: ``andrea_ref``, ``andrea_gpu``, or a path (.py, .cu, or a
    package folder with ``__init__.py``); a path is untrusted unless ``sandbox == "none"``."""
    if arg in BUNDLED:
        return _bundled(arg)
    p = Path(arg)
    if not p.exists():
        raise SuiteAuditError(f"--target {arg}: no such file or folder (give andrea_ref, "
                              "andrea_gpu, or the path of a .py file, a .cu file or a package)")
    trusted = sandbox == "none"
    if p.is_file():
        if p.suffix not in (".py", ".cu"):
            raise SuiteAuditError(f"--target {arg}: not a .py or .cu file")
        text = _read(p)
        return Target(arg, "kernel" if p.suffix == ".cu" else "python", trusted,
                      {p.name: text}, p.name, None, (p.name,))
    init = p / "__init__.py"
    if not init.is_file() or init.is_symlink():
        raise SuiteAuditError(f"--target {arg}: a folder without __init__.py (give the "
                              "module file itself, or a package)")
    # the folder as the grader reads a submission's (graders/conformance/submission.py): one
    # walk, its caps, links never followed, hidden folders and __pycache__ left out
    try:
        read = read_submission(p)
    except SubmissionError as exc:
        raise SuiteAuditError(f"--target {arg}: {exc.what}") from None
    files = {}
    for rel, data in sorted(read.files.items()):
        if rel.endswith(".py"):
            try:
                files[rel] = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SuiteAuditError(f"--target {p / rel}: cannot read it ({exc})") from None
    return Target(arg, "python", trusted, files, "__init__.py", p.name, tuple(files))


def _read(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteAuditError(f"--target {p}: cannot read it ({exc})") from None


def _bundled(name: str) -> Target:
    root = Path(__file__).resolve().parents[2]
    if name == "andrea_gpu":
        cu = root / "andrea_gpu" / "kernels" / "embedding.cu"
        return Target(name, "kernel", True, {cu.name: cu.read_text(encoding="utf-8")},
                      cu.name, None, (cu.name,))
    pkg = root / name
    files = {f.name: f.read_text(encoding="utf-8") for f in sorted(pkg.glob("*.py"))}
    # the argument checks every implementation shares (the errors the spec prescribes)
    validate = root / "andrea_runtime" / "validate.py"
    files["andrea_runtime/__init__.py"] = ""
    files["andrea_runtime/validate.py"] = validate.read_text(encoding="utf-8")
    return Target(name, "python", True, files, "__init__.py", name, tuple(files),
                  ("andrea_runtime",))


# ----------------------------------------------------------------------------- mutants
@dataclass
class Planned:
    """A mutant with what the audit knows before running it."""

    mutant: MU.Mutant
    functions: tuple[str, ...]      # contract functions whose calls reach the changed code
    checks: tuple[str, ...]         # check ids to run, in order
    expected: tuple[str, ...]       # clauses that should catch the bug


def contract_reach(target: Target, contract: Iterable[str]) -> dict[tuple[str, str], set[str]]:
    """(file, top-level function) -> the contract functions whose calls reach it."""
    trees = {}
    for rel, text in target.files.items():
        try:
            trees[rel] = ast.parse(text)
        except SyntaxError as exc:
            raise SuiteAuditError(f"--target {target.name}: {rel} does not parse "
                                  f"(line {exc.lineno}: {exc.msg})") from None
    modules = {_module_name(rel): rel for rel in trees}
    namespaces = {rel: _namespace(rel, tree, modules, target.vendored)
                  for rel, tree in trees.items()}
    graph: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for rel, tree in trees.items():
        ns = namespaces[rel]
        for qualname, fn in MU.top_level_functions(tree):
            calls = graph.setdefault((rel, qualname), set())
            for node in ast.walk(fn):
                calls.update(_refs(node, rel, ns, namespaces, trees))
    # The contract functions: where the entry module's namespace says they are.
    entry_ns = namespaces.get(target.entry, {})
    roots: dict[str, set[tuple[str, str]]] = {}
    all_defs = set(graph)
    for name in contract:
        found = _resolve(entry_ns.get(name), namespaces)
        if isinstance(found, tuple) and found in graph:
            roots[name] = {found}
        elif name in entry_ns or any(q.rsplit(".", 1)[-1] == name for _, q in graph):
            # defined some other way (an alias, a class instance, partial): every function
            # of the target may be reached from it
            roots[name] = {d for d in all_defs if d[1].rsplit(".", 1)[-1] == name} or all_defs
    reach: dict[tuple[str, str], set[str]] = {d: set() for d in graph}
    for name, starts in roots.items():
        todo, seen = list(starts), set()
        while todo:
            d = todo.pop()
            if d in seen or d not in graph:
                continue
            seen.add(d)
            reach[d].add(name)
            todo.extend(graph[d])
    return reach


def _module_name(rel: str) -> str:
    """A file's module name inside the target ('' for the package's own __init__.py)."""
    if not rel.endswith(".py"):
        return rel
    name = rel[:-3].replace("/", ".")
    return "" if name == "__init__" else name.removesuffix(".__init__")


def _namespace(rel: str, tree: ast.Module, modules: dict[str, str],
               vendored: tuple[str, ...] = ()) -> dict:
    """Names a module binds at top level: name -> (file, qualname) of a def, or
    ("module", file) for a sibling module, or None for anything else."""
    here = _module_name(rel)
    pkg = here if rel.endswith("__init__.py") else here.rpartition(".")[0]
    # module names are relative to the target's folder: a relative import starts there
    ns: dict = {}
    for q, _ in MU.top_level_functions(tree):
        if "." not in q:
            ns[q] = (rel, q)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            ns[node.name] = None
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".") if pkg else []
                parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(p for p in parts + ([base] if base else []) if p)
            if not node.level and base.split(".")[0] not in vendored:
                continue   # an absolute import: another package, never the target's code
            for a in node.names:
                name = a.asname or a.name
                sub = f"{base}.{a.name}" if base else a.name
                if sub in modules:
                    ns[name] = ("module", modules[sub])
                elif base in modules:
                    ns[name] = ("import", modules[base], a.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Name):
            ns[node.targets[0].id] = ns.get(node.value.id)      # lookup = _lookup
    return ns


def _resolve(entry, namespaces, depth=0):
    if isinstance(entry, tuple) and entry and entry[0] == "import" and depth < 8:
        return _resolve(namespaces.get(entry[1], {}).get(entry[2]), namespaces, depth + 1)
    return entry


def _refs(node, rel, ns, namespaces, trees) -> set:
    out = set()
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        r = _resolve(ns.get(node.id), namespaces)
        if isinstance(r, tuple) and len(r) == 2 and r[0] != "module":
            out.add(r)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        r = _resolve(ns.get(node.value.id), namespaces)
        if isinstance(r, tuple) and r[0] == "module":
            t = _resolve(namespaces.get(r[1], {}).get(node.attr), namespaces)
            if isinstance(t, tuple) and len(t) == 2 and t[0] != "module":
                out.add(t)
        elif node.value.id in ("self", "cls"):
            out.update((rel, q) for q, _ in MU.top_level_functions(trees[rel])
                       if q.endswith("." + node.attr))
    return out


def plan_mutants(target: Target, spec, *, operators=None) -> list[Planned]:
    """Every mutant of the target, with the checks to run on it and the clauses it should fail."""
    from graders.conformance.registry import all_checks

    checks = all_checks(spec)
    contract = [f.name for f in spec.contract.functions]
    if target.kind == "kernel":
        from . import mutate_cu

        groups = set(spec.kernels.groups) if spec.kernels else set()
        kernel_clauses = {c.id for c in spec.clauses if c.group in groups}
        chosen = [c for c in checks if set(c.clauses) & kernel_clauses]
        out = []
        entries = [e.name for e in spec.kernels.entry_points] if spec.kernels else None
        for m in mutate_cu.cuda_mutants(target.files[target.entry], target.entry,
                                        entries=entries, operators=operators):
            fns = mutate_cu.contract_functions_of(m, target.files[target.entry])
            out.append(_planned(m, fns, chosen, spec))
        return out
    reach = contract_reach(target, contract)
    trees = {rel: ast.parse(text) for rel, text in target.files.items()}
    checkers = MU.checker_names(trees.values())
    out = []
    for rel in target.mutable:
        wanted = {q for (f, q), fns in reach.items() if f == rel and fns}
        if not wanted:
            continue
        try:
            mutants = MU.python_mutants(target.files[rel], rel, functions=wanted,
                                        checkers=checkers, operators=operators)
        except MU.MutationError as exc:
            raise SuiteAuditError(f"--target {target.name}: {exc}") from None
        for m in mutants:
            fns = tuple(sorted(reach.get((rel, m.function), ())))
            related = [c for c in checks if set(c.requires) & set(fns)]
            out.append(_planned(m, fns, related, spec))
    return out


def _kind_clauses(kind: str, related, spec) -> set[str]:
    method = {c.id: c.method for c in spec.clauses}
    statement = {c.id: c.statement for c in spec.clauses}
    out = set()
    for chk in related:
        for cl in chk.clauses:
            m, s = method.get(cl), statement.get(cl, "")
            if kind == "errors" and m == "errors":
                out.add(cl)
            elif kind == "purity" and chk.judges_mutation:
                out.add(cl)
            elif kind == "rng" and ("Generator" in s or "reproducible" in s):
                out.add(cl)
            elif kind == "dtype" and ("dtype" in s or "float32" in s):
                out.add(cl)
            elif kind == "value" and m in ("exact", "property", "statistical") \
                    and not chk.judges_mutation:
                out.add(cl)
    return out


def _planned(m: MU.Mutant, fns, related, spec) -> Planned:
    expected = _kind_clauses(m.kind, related, spec)
    if not expected:   # the operator's kind of clause does not apply here: any related one
        expected = {cl for c in related for cl in c.clauses}
    first = [c for c in related if set(c.clauses) & expected and not c.judges_mutation]
    rest = [c for c in related if c not in first and not c.judges_mutation]
    last = [c for c in related if c.judges_mutation]   # the purity check sees every call
    order = tuple(c.id for c in first + rest + last)
    return Planned(m, tuple(fns), order, tuple(sorted(expected)))


def sample(planned: list[Planned], n: int | None, seed: int = 0) -> list[Planned]:
    """A deterministic sample of `n` mutants (all when n is None), the same on every run."""
    if n is None or n >= len(planned):
        return planned
    rng = random.Random(seed)
    keep = sorted(rng.sample(range(len(planned)), n))
    return [planned[i] for i in keep]


# ----------------------------------------------------------------------------- the differential
class MutantDiffers(AssertionError):
    """The mutant and the original answered one call differently (raised in a differential run)."""


class Differential:
    """Calls each contract function on the original and the mutant with equal arguments and
    compares everything: the result (type, shape, dtype, bits), the exception type, and what
    each did to its arguments. Returns the original's answer; raises :class:`MutantDiffers`
    on a difference larger than roundoff (and notes roundoff in ``roundoff``)."""

    passes_copies = True   # each side gets its own copies, made here

    def __init__(self, original, mutant, functions: Iterable[str], copies: bool = True):
        self._original, self._mutant = original, mutant
        self._functions = set(functions)
        self._copies = copies
        self.roundoff = 0
        self.calls = 0

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._functions:
            raise AttributeError(name)
        f0, f1 = getattr(self._original, name, None), getattr(self._mutant, name, None)
        if not callable(f0):
            raise AttributeError(name)

        def call(*args, **kwargs):
            self.calls += 1
            a0, k0 = _copies(args), _copies(kwargs)
            a1, k1 = _copies(args), _copies(kwargs)
            r0, e0 = _outcome(f0, a0, k0)
            if not callable(f1):
                raise MutantDiffers(f"{name} is missing from the mutant")
            r1, e1 = _outcome(f1, a1, k1)
            if (e0 is None) != (e1 is None) or (e0 is not None and type(e0) is not type(e1)):
                raise MutantDiffers(f"{name}: the original {_said(r0, e0)}, the mutant "
                                    f"{_said(r1, e1)}")
            if e0 is None:
                why = self._differs(r0, r1)
                if why:
                    raise MutantDiffers(f"{name}: {why}")
            why = self._differs((a0, k0), (a1, k1))
            if why:
                raise MutantDiffers(f"{name}: the arguments after the call differ ({why})")
            why = self._differs(_aliases(r0, args, a0), _aliases(r1, args, a1))
            if why:
                raise MutantDiffers(f"{name}: one returns a view of an argument, the other not")
            if e0 is not None:
                raise e0
            return r0

        return call

    def _differs(self, x, y) -> str | None:
        d = _difference(x, y)
        if d == "roundoff":
            self.roundoff += 1
            return None
        return d


def _copies(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, np.random.Generator):
        return copy.deepcopy(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_copies(v) for v in value)
    if isinstance(value, dict):
        return {k: _copies(v) for k, v in value.items()}
    return value


def _outcome(f, args, kwargs):
    try:
        return f(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - compared, then re-raised for the check
        return None, exc


def _said(r, e) -> str:
    if e is not None:
        return f"raised {type(e).__name__}"
    return f"returned {type(r).__name__}"


def _aliases(result, given, copies) -> list:
    """For each array of the result: which argument copy it shares memory with (or -1)."""
    outs = result if isinstance(result, (tuple, list)) else [result]
    flat = [c for c in (copies if isinstance(copies, (tuple, list)) else [copies])]
    return [next((i for i, c in enumerate(flat) if isinstance(o, np.ndarray)
                  and isinstance(c, np.ndarray) and np.shares_memory(o, c)), -1)
            for o in outs]


def _difference(x, y) -> str | None:
    """None when x and y are the same (bit for bit), "roundoff" when they differ only by
    float roundoff the spec allows, else what differs."""
    if isinstance(x, np.random.Generator) and isinstance(y, np.random.Generator):
        return None if x.bit_generator.state == y.bit_generator.state else \
            "the generator was advanced differently"
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
            return f"{type(x).__name__} vs {type(y).__name__}"
        if x.shape != y.shape:
            return f"shape {x.shape} vs {y.shape}"
        if x.dtype != y.dtype:
            return f"dtype {x.dtype} vs {y.dtype}"
        if x.tobytes() == y.tobytes():
            return None
        if x.dtype.kind in "fc" and np.allclose(x, y, rtol=ROUNDOFF_RTOL, atol=0,
                                                equal_nan=True) and _same_zeros(x, y):
            return "roundoff"
        return "values differ"
    if isinstance(x, (tuple, list)) or isinstance(y, (tuple, list)):
        if type(x) is not type(y) or len(x) != len(y):
            return f"{type(x).__name__} of {_len(x)} vs {type(y).__name__} of {_len(y)}"
        worst = None
        for a, b in zip(x, y):
            d = _difference(a, b)
            if d and d != "roundoff":
                return d
            worst = worst or d
        return worst
    if isinstance(x, dict) and isinstance(y, dict):
        return _difference(list(x.items()), list(y.items()))
    if type(x) is not type(y):
        return f"{type(x).__name__} vs {type(y).__name__}"
    if isinstance(x, float):
        if x == y or (math.isnan(x) and math.isnan(y)):
            return None if math.copysign(1, x) == math.copysign(1, y) or x != 0 else "roundoff"
        if math.isfinite(x) and math.isfinite(y) and math.isclose(x, y, rel_tol=ROUNDOFF_RTOL):
            return "roundoff"
        return f"{x!r} vs {y!r}"
    try:
        same = bool(x == y)
    except Exception:  # noqa: BLE001 - values that do not compare: judged by their repr
        same = repr(x) == repr(y)
    return None if same else f"{x!r} vs {y!r}"[:200]


def _len(x):
    return len(x) if hasattr(x, "__len__") else "?"


def _same_zeros(x, y) -> bool:
    return True


# ----------------------------------------------------------------------------- one mutant
class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Stop a mutant's checks after `seconds` of this process's CPU time (SIGPROF: a busy
    machine does not make a slow mutant hang; where signals cannot be used, as in a Dask
    worker's thread, no limit)."""
    try:
        old = signal.signal(signal.SIGPROF, _raise_timeout)
    except ValueError:
        yield
        return
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _raise_timeout(signum, frame):
    raise _Timeout()


@contextlib.contextmanager
def _materialised(payload: dict, mutated: bool):
    """Write the target (with the mutant's file when `mutated`) to a temporary folder and
    import it under a unique name; yields the implementation."""
    from graders.conformance.runner import load_impl

    files = dict(payload["files"])
    if mutated:
        files[payload["file"]] = payload["mutated"]
    tmp = Path(tempfile.mkdtemp(prefix="andrea-mutant-"))
    tag = f"m{os.getpid()}_{abs(hash((payload['id'], mutated))) % 10**8}"
    before = set(sys.modules)
    try:
        if payload["kind"] == "kernel":
            path = tmp / payload["entry"]
            path.write_text(files[payload["entry"]], encoding="utf-8")
            yield load_impl(path), None
            return
        if payload["package"]:
            root = tmp / f"{payload['package']}_{tag}"
            entry_module = root.name
        else:
            root = tmp
            entry_module = f"{Path(payload['entry']).stem}_{tag}"
        for rel, text in files.items():
            dest = root / (f"{entry_module}.py" if not payload["package"]
                           and rel == payload["entry"] else rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if payload.get("vendored") and rel.endswith(".py"):
                text = _relative_imports(text, payload["vendored"], rel.count("/") + 1)
            dest.write_text(text, encoding="utf-8")
        sys.path.insert(0, str(tmp))
        changed = root / (f"{entry_module}.py" if not payload["package"]
                          and payload["file"] == payload["entry"] else payload["file"])
        try:
            importlib.invalidate_caches()
            yield importlib.import_module(entry_module), str(changed)
        finally:
            sys.path.remove(str(tmp))
    finally:
        for name in set(sys.modules) - before:
            if tag in name or name.startswith("andrea_impl_"):
                sys.modules.pop(name, None)
        shutil.rmtree(tmp, ignore_errors=True)


def _relative_imports(text: str, packages, level: int) -> str:
    """`text` with ``from PKG... import x`` made relative (`level` dots) for PKG in
    `packages`: the copy's own vendored modules, not the installed ones."""
    import libcst as cst
    from libcst.helpers import get_full_name_for_node

    class _Rel(cst.CSTTransformer):
        def leave_ImportFrom(self, original, updated):
            if updated.relative or updated.module is None:
                return updated
            if (get_full_name_for_node(updated.module) or "").split(".")[0] in packages:
                return updated.with_changes(relative=[cst.Dot()] * level)
            return updated

    try:
        return cst.parse_module(text).visit(_Rel()).code
    except cst.ParserSyntaxError:
        return text


def _load_spec(payload):
    from spec import SPEC_DIR, load_spec

    bundled = SPEC_DIR / payload["spec_file"]
    if bundled.is_file() and bundled.read_text(encoding="utf-8") == payload["spec_text"]:
        return load_spec(bundled)
    tmp = Path(tempfile.mkdtemp(prefix="andrea-spec-"))
    try:
        f = tmp / payload["spec_file"]
        f.write_text(payload["spec_text"], encoding="utf-8")
        return load_spec(f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def mutant_task(payload: dict) -> dict:
    """Run one mutant from plain data (in this process, a pool process or a Dask worker):
    its checks until the first that fails, then, if none did, the differential run."""
    start_cpu = time.process_time()
    t0 = time.perf_counter()
    spec = _load_spec(payload)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a mutant's RuntimeWarnings are no news
            if payload["trusted"]:
                out = _run_trusted(payload, spec)
            else:
                out = _run_sandboxed(payload, spec)
    except _Timeout:
        out = {"status": "killed", "killed_by": {"check": None, "clauses": [],
                                                 "message": "timed out (the mutant hangs)"}}
    except SuiteAuditError as exc:
        out = {"status": "error", "message": str(exc)}
    out.update(id=payload["id"], cpu_s=round(time.process_time() - start_cpu, 3),
               wall_s=round(time.perf_counter() - t0, 3))
    return out


@contextlib.contextmanager
def _line_watch(filename: str | None, lines: list[int]):
    """Yields [reached]: whether any of `lines` of `filename` ran inside the block (a trace
    function only on that file's frames; threads started inside the block are traced too)."""
    import threading

    reached = [False]
    if filename is None or not lines:
        reached[0] = True   # nothing to watch (a kernel): never claim it was not reached
        yield reached
        return
    want = set(lines)

    def local(frame, event, arg):
        if event == "line" and frame.f_lineno in want:
            reached[0] = True
            return None
        return local

    def watch(frame, event, arg):
        return local if frame.f_code.co_filename == filename else None

    old = sys.gettrace()
    sys.settrace(watch)
    threading.settrace(watch)
    try:
        yield reached
    finally:
        sys.settrace(old)
        threading.settrace(None)


def changed_lines(m: MU.Mutant) -> list[int]:
    """Line numbers of the mutant's file (mutated) that differ from the original."""
    import difflib

    sm = difflib.SequenceMatcher(None, m.original.splitlines(), m.mutated.splitlines(),
                                 autojunk=False)
    out = []
    for tag, _, _, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            out.extend(range(j1 + 1, max(j2, j1 + 1) + 1))
    return out


def _killing(res) -> bool:
    from graders.conformance.outcome import Status

    return res.status in (Status.FAILED, Status.ERROR)


def _kill_record(res) -> dict:
    return {"check": res.check_id, "clauses": list(res.clauses),
            "message": (res.message or "")[:500], "example": (res.example or "")[:500]}


def _run_trusted(payload: dict, spec) -> dict:
    from graders.conformance.profiles import use_profile
    from graders.conformance.registry import all_checks
    from graders.conformance.runner import ImplementationLoadError, run_check

    by_id = {c.id: c for c in all_checks(spec)}
    checks = [by_id[i] for i in payload["checks"]]
    with _time_limit(payload["timeout"]):
        try:
            with _materialised(payload, True) as (impl, path):
                with _line_watch(path, payload["lines"]) as reached:
                    mutations: list = []
                    with use_profile(payload["profile"]):
                        for chk in checks:
                            res = run_check(chk, impl, spec, target=payload["id"],
                                            mutations=mutations)
                            if _killing(res):
                                return {"status": "killed", "killed_by": _kill_record(res)}
                    if not payload["equivalence"]:
                        return {"status": "survived"}
                    with _materialised(payload, False) as (original, _):
                        out = _differential(payload, spec, original, impl, checks)
                if path is not None and not reached[0] and out["status"] == "equivalent":
                    out = {"status": "unreached"}
                return out
        except ImplementationLoadError as exc:
            return {"status": "killed", "killed_by": {"check": None, "clauses": [],
                                                      "message": f"does not load: {exc}"}}
        except Exception as exc:  # noqa: BLE001 - an import-time failure of the mutant
            if isinstance(exc, SuiteAuditError):
                raise
            return {"status": "killed", "killed_by": {
                "check": None, "clauses": [],
                "message": f"does not import: {type(exc).__name__}: {exc}"[:500]}}


def _differential(payload, spec, original, mutant, checks) -> dict:
    from graders.conformance.profiles import use_profile
    from graders.conformance.runner import run_check

    diff = Differential(original, mutant, payload["functions"])
    with use_profile(payload["equivalence_profile"]):
        for chk in checks:
            res = run_check(chk, diff, spec, target=payload["id"], mutations=[])
            if res.details.get("exception") == "MutantDiffers" or (
                    "MutantDiffers" in (res.message or "")):
                return {"status": "survived",
                        "distinguished": {"check": chk.id, "message": res.message[:500],
                                          "example": (res.example or "")[:1000]}}
    note = ("no drawn input tells it from the original" if not diff.roundoff else
            f"differs only by roundoff the spec allows ({diff.roundoff} calls)")
    return {"status": "equivalent", "equivalence": {"calls": diff.calls, "note": note}}


def _run_sandboxed(payload: dict, spec) -> dict:
    """An untrusted target's mutant: graded in the grader's sandbox, stopping at the first
    failing check; a survivor's differential run compares two sandboxed workers here."""
    from graders.grade.grading import GraderError, Submission, grade

    class _Stop(Exception):
        pass

    files = {k: v.encode("utf-8") for k, v in payload["files"].items()}
    files[payload["file"]] = payload["mutated"].encode("utf-8")
    sub = Submission(payload["entry"], files, payload["entry"], payload["kind"])
    first: list = []

    def on_result(res):
        if _killing(res):
            first.append(res)
            raise _Stop()

    try:
        rep = grade(sub, spec, profile=payload["profile"], sandbox=payload["sandbox"],
                    select=list(payload["checks"]), on_result=on_result)
    except _Stop:
        return {"status": "killed", "killed_by": _kill_record(first[0])}
    except GraderError as exc:
        raise SuiteAuditError(str(exc)) from None
    if not rep.import_outcome.ok:
        return {"status": "killed", "killed_by": {"check": None, "clauses": [],
                                                  "message": "does not import"}}
    if not payload["equivalence"]:
        return {"status": "survived"}
    return _sandboxed_differential(payload, spec)


def _sandboxed_differential(payload, spec) -> dict:
    """The differential run of an untrusted target: original and mutant each in a worker of its
    own (graders/grade/session.py), compared here, in the grader's process."""
    from graders.conformance.registry import all_checks
    from graders.grade.grading import contract_functions
    from graders.grade.sandbox import Limits, choose_mode
    from graders.grade.session import Session

    mode, _ = choose_mode(payload["sandbox"])
    sessions = []
    try:
        proxies = []
        for mutated in (False, True):
            files = {k: v.encode("utf-8") for k, v in payload["files"].items()}
            if mutated:
                files[payload["file"]] = payload["mutated"].encode("utf-8")
            session = Session(files, payload["entry"], functions=contract_functions(spec),
                              limits=Limits(), mode=mode, kernel=payload["kind"] == "kernel",
                              kernel_contract=spec.raw.get("kernels"))
            sessions.append(session)
            if not session.start().ok:
                return {"status": "killed", "killed_by": {"check": None, "clauses": [],
                                                          "message": "does not import"}}
            proxies.append(session.proxy)
        by_id = {c.id: c for c in all_checks(spec)}
        return _differential(payload, spec, proxies[0], proxies[1],
                             [by_id[i] for i in payload["checks"]])
    finally:
        for session in sessions:
            session.close()


# ----------------------------------------------------------------------------- the audit
def payloads(target: Target, spec, planned: list[Planned], *, profile=FAST_PROFILE,
             equivalence=True, equivalence_profile=EQUIVALENCE_PROFILE,
             sandbox="auto", timeout=MUTANT_TIMEOUT_S) -> list[dict]:
    spec_text = Path(spec.path).read_text(encoding="utf-8")
    return [{
        "id": p.mutant.id, "kind": target.kind, "trusted": target.trusted,
        "vendored": list(target.vendored),
        "files": target.files, "entry": target.entry, "package": target.package,
        "file": p.mutant.file, "mutated": p.mutant.mutated, "checks": list(p.checks),
        "lines": changed_lines(p.mutant),
        "functions": list(p.functions), "spec_text": spec_text,
        "spec_file": Path(spec.path).name, "profile": profile, "equivalence": equivalence,
        "equivalence_profile": equivalence_profile, "sandbox": sandbox, "timeout": timeout,
    } for p in planned]


def audit_suite(spec, target_arg: str, *, jobs: int = 1, scheduler: str | None = None,
                sample_size: int | None = None, seed: int = 0, operators=None,
                sandbox: str = "auto", profile: str = FAST_PROFILE, equivalence: bool = True,
                on_done: Callable[[dict], None] | None = None) -> dict:
    """Generate, run and judge the mutants of `target_arg`; the result is plain data
    (graders/audit/suite_report.py renders it)."""
    target = resolve_target(target_arg, sandbox=sandbox)
    if not target.trusted:
        _require_isolation(sandbox)
    if target.kind == "kernel":
        _require_kernels(spec)
    planned_all = plan_mutants(target, spec, operators=operators)
    # A check the original itself fails (andrea_ref under --spec gpt2-small) kills nothing.
    failing = original_failures(target, spec, sorted({c for p in planned_all for c in p.checks}),
                                sandbox=sandbox)
    if failing:
        planned_all = [Planned(p.mutant, p.functions,
                               tuple(c for c in p.checks if c not in failing), p.expected)
                       for p in planned_all]
    planned = sample(planned_all, sample_size, seed)
    work = payloads(target, spec, planned, profile=profile, equivalence=equivalence,
                    sandbox=sandbox)
    t0, cpu0 = time.perf_counter(), _cpu_now()
    results: dict[str, dict] = {}

    def done(payload, res):
        results[payload["id"]] = res
        if on_done is not None:
            on_done(res)

    run_payloads(work, jobs=jobs, scheduler=scheduler, on_done=done)
    wall, cpu = time.perf_counter() - t0, _cpu_now() - cpu0
    out = summarise(spec, target, planned_all, planned, results,
                    {"jobs": jobs, "scheduler": scheduler, "profile": profile,
                      "sample": sample_size, "seed": seed, "wall_s": round(wall, 1),
                      "cpu_s": round(cpu, 1)})
    out["original_fails"] = sorted(failing)
    return out


def original_failures(target: Target, spec, checks: list[str], *, sandbox="auto") -> set[str]:
    """The checks (ids) that the unmutated target fails or errors: they cannot judge its
    mutants, which are run without them."""
    if not checks:
        return set()
    payload = {"id": "original", "kind": target.kind, "trusted": target.trusted,
               "vendored": list(target.vendored), "files": target.files,
               "entry": target.entry, "package": target.package, "file": target.entry,
               "mutated": target.files[target.entry], "checks": checks,
               "spec_text": Path(spec.path).read_text(encoding="utf-8"),
               "spec_file": Path(spec.path).name, "sandbox": sandbox}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if target.trusted:
            from graders.conformance.runner import ImplementationLoadError, run_checks

            try:
                with _materialised(payload, False) as (impl, _):
                    results = run_checks(impl, spec, profile=FAST_PROFILE, select=checks)
            except ImplementationLoadError as exc:
                raise SuiteAuditError(f"--target {target.name}: {exc}") from None
        else:
            from graders.grade.grading import GraderError, Submission, grade

            files = {k: v.encode("utf-8") for k, v in target.files.items()}
            try:
                rep = grade(Submission(target.entry, files, target.entry, target.kind), spec,
                            profile=FAST_PROFILE, sandbox=sandbox, select=checks)
            except GraderError as exc:
                raise SuiteAuditError(f"--target {target.name}: {exc}") from None
            if not rep.import_outcome.ok:
                raise SuiteAuditError(f"--target {target.name}: it does not import")
            return {c.id for c in rep.checks if c.status in ("failed", "error")}
    return {r.check_id for r in results if _killing(r)}


def _cpu_now() -> float:
    """CPU time of this process and its finished children (the pool's processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _require_isolation(sandbox: str) -> None:
    from graders.grade.sandbox import choose_mode

    try:
        choose_mode(sandbox)
    except RuntimeError as exc:
        raise SuiteAuditError(f"--target: untrusted code needs the grader's sandbox: {exc}"
                              ) from None


def _require_kernels(spec) -> None:
    if spec.kernels is None:
        raise SuiteAuditError(f"spec {spec.name} defines no kernel contract ('kernels:')")
    from graders.grade.grading import kernel_support

    ok, why = kernel_support()
    if not ok:
        raise SuiteAuditError(f"kernel mutants cannot run here: {why}")


def run_payloads(work: list[dict], *, jobs: int = 1, scheduler: str | None = None,
                 on_done: Callable[[dict, dict], None]) -> None:
    """Run mutant tasks: here (jobs 1), in a pool of `jobs` processes, or on a Dask cluster,
    with the batch grader's executors (graders/grade/batch.py)."""
    from graders.grade import batch

    if scheduler:
        try:
            batch._run_dask(work, scheduler, on_done, task=mutant_task)
        except batch.BatchError as exc:
            raise SuiteAuditError(str(exc)) from None
        return
    if jobs > 1 and len(work) > 1:
        batch._run_local(work, jobs, on_done, task=mutant_task, initializer=_pool_process)
        return
    from graders.conformance import replay

    was = replay.enabled()
    replay.enable()
    try:
        for p in work:
            on_done(p, mutant_task(p))
    finally:
        replay.enable(was)
        if not was:
            replay.clear()


def _pool_process() -> None:
    """A pool process runs mutant after mutant: the inputs each property drew for the first
    are replayed for the next (graders/conformance/replay.py), as in a batch."""
    from graders.conformance import replay

    replay.enable()


def summarise(spec, target: Target, planned_all, planned, results: dict, run: dict) -> dict:
    mutants = []
    per_clause: dict[str, list[str]] = {c.id: [] for c in spec.clauses}
    counts = {"killed": 0, "survived": 0, "unreached": 0, "equivalent": 0, "error": 0}
    by_operator: dict[str, dict[str, int]] = {}
    for p in planned:
        r = results.get(p.mutant.id, {"status": "error", "message": "no result"})
        status = r.get("status", "error")
        counts[status] = counts.get(status, 0) + 1
        by_operator.setdefault(p.mutant.operator, {"killed": 0, "survived": 0, "unreached": 0,
                                                   "equivalent": 0, "error": 0})
        by_operator[p.mutant.operator][status] = by_operator[p.mutant.operator].get(status, 0) + 1
        entry = {
            "id": p.mutant.id, "file": p.mutant.file, "line": p.mutant.line,
            "operator": p.mutant.operator, "bug": MU.OPERATORS[p.mutant.operator],
            "function": p.mutant.function, "contract_functions": list(p.functions),
            "description": p.mutant.description, "status": status,
            "expected_clauses": list(p.expected), "checks_run": list(p.checks),
            "cpu_s": r.get("cpu_s"), "wall_s": r.get("wall_s"),
        }
        if status == "killed":
            entry["killed_by"] = r["killed_by"]
            for cl in r["killed_by"].get("clauses") or []:
                per_clause.setdefault(cl, []).append(p.mutant.id)
        else:
            entry["diff"] = p.mutant.diff()
        for k in ("distinguished", "equivalence", "message"):
            if k in r:
                entry[k] = r[k]
        mutants.append(entry)
    judged = counts["killed"] + counts["survived"] + counts["unreached"]
    return {
        "target": target.name, "kind": target.kind, "trusted": target.trusted,
        "spec": spec.name, "generated": len(planned_all), "run": len(planned),
        "counts": counts, "score": round(counts["killed"] / judged, 4) if judged else None,
        "per_clause": {k: v for k, v in per_clause.items() if v},
        "clauses_without_kills": sorted(k for k, v in per_clause.items() if not v),
        "by_operator": by_operator, "mutants": mutants, "settings": run,
    }
