"""Load, validate and query a spec file.

A spec is YAML data (see ``andrea-120m.yaml``) validated against ``spec.schema.json`` with
jsonschema, then checked for consistency: unique clause ids, references to sections, groups
and clauses that exist, and quantities whose stated value matches their expression.
Anything wrong raises :class:`SpecError`, one paragraph naming the file, the place and the
problem.
"""

from __future__ import annotations

import ast
import json
import math
import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import jsonschema
import yaml

from andrea_runtime.kernel_contract import EntryPoint, KernelContract, KernelParam

SPEC_DIR = Path(__file__).resolve().parent
SCHEMA_PATH = SPEC_DIR / "spec.schema.json"
DEFAULT_SPEC = "andrea-120m"

class SpecError(ValueError):
    """A spec file is unreadable, violates the schema, or contradicts itself."""

    def __init__(self, path: str | Path, problems: list[str]):
        self.path = str(path)
        self.problems = list(problems)
        head = f"invalid spec {self.path}: "
        if len(self.problems) == 1:
            super().__init__(head + self.problems[0])
        else:
            listed = "; ".join(f"({i}) {p}" for i, p in enumerate(self.problems, 1))
            super().__init__(f"{head}{len(self.problems)} problems: {listed}")


@dataclass(frozen=True)
class Model:
    name: str
    vocab_size: int
    d_model: int
    context_length: int
    total_params: int
    tied_embeddings: bool
    position_encoding: str
    dtype: str
    init_mean: float
    init_std: float                  # at the spec's own d_model
    init_distribution: str = "normal"
    init_std_expr: str = ""          # as written: a number or an expression such as 1/sqrt(d_model)

    def fields(self) -> dict[str, float]:
        """The numeric fields, by name: what quantity and init expressions may use."""
        return numeric_fields(self.__dict__)

    def init_std_at(self, d_model: int) -> float:
        """The init std for a table of width `d_model` (the spec's expression evaluated there)."""
        return evaluate(self.init_std_expr, self.fields() | {"d_model": d_model})

    def init_text(self) -> str:
        """The init distribution as the course writes it: N(0, 1/d_model) or N(0, 0.02²)."""
        expr = self.init_std_expr.replace(" ", "")
        mean = f"{self.init_mean:g}"
        if expr == "1/sqrt(d_model)":
            return f"N({mean}, 1/d_model)"
        return f"N({mean}, ({self.init_std_expr})²)" if not is_number(expr) else \
            f"N({mean}, {expr}²)"


def is_number(text: str) -> bool:
    """Whether `text` is a plain number (an init std written as 0.02 rather than an expression)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Clause:
    id: str
    statement: str
    source: str
    method: str
    group: str
    # lang -> statement (nl, ko), from the spec's `statement: {en, nl, ko}`
    translations: Mapping[str, str] = field(default_factory=dict, hash=False)

    def statement_in(self, lang: str) -> str:
        """The statement in `lang`, English where the spec has no translation."""
        return self.translations.get(lang) or self.statement


@dataclass(frozen=True)
class Quantity:
    name: str
    expr: str
    value: float
    clause: str
    decimals: int | None = None


@dataclass(frozen=True)
class Raises:
    """One error a contract function raises: the exception type's name and when."""
    raises: str
    when: str


@dataclass(frozen=True)
class Function:
    """One function of the Python submission contract."""
    name: str
    params: tuple[str, ...]
    returns: str
    errors: tuple[Raises, ...] = ()
    optional: bool = False

    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


@dataclass(frozen=True)
class Contract:
    """The Python submission contract (the spec's ``contract:``)."""
    functions: tuple[Function, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Every function, required and optional."""
        return tuple(f.name for f in self.functions)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.functions if not f.optional)

    @property
    def optional(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.functions if f.optional)

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(f"the contract has no function {name!r}")

    def __contains__(self, name: object) -> bool:
        return name in self.names


# The CUDA kernel contract (the spec's ``kernels:``) has one model, shared with the kernel
# runtime that runs in the grader's sandbox: andrea_runtime.kernel_contract.
Kernels = KernelContract
KernelEntryPoint = EntryPoint


@dataclass(frozen=True)
class Spec:
    path: Path
    name: str
    title: str
    model: Model
    quantities: Mapping[str, Quantity]
    tolerances: Mapping[str, Mapping[str, float]]
    statistics: Mapping[str, float]
    sections: Mapping[str, Mapping[str, str]]
    groups: Mapping[str, Mapping[str, Any]]
    clauses: tuple[Clause, ...]
    contract: Contract
    kernels: Kernels | None = None
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)

    def clause(self, clause_id: str) -> Clause:
        for c in self.clauses:
            if c.id == clause_id:
                return c
        raise KeyError(f"spec {self.name} has no clause {clause_id!r}")

    def quantity_values(self) -> list["QuantityValue"]:
        """Every quantity recomputed from its expression (see :func:`evaluate_quantities`)."""
        return evaluate_quantities(self.raw["model"], self.raw["quantities"])

    def tolerance(self, dtype) -> Mapping[str, float]:
        """Tolerances for `dtype` (a numpy dtype or its name); float32's for narrower types."""
        name = getattr(dtype, "name", str(dtype))
        return self.tolerances.get(name, self.tolerances["float32"])

    def section_title(self, section: str, lang: str = "en") -> str:
        titles = self.sections.get(section, {})
        return titles.get(lang) or titles.get("en") or section


# --------------------------------------------------------------------------- expressions
_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_FUNCS = {"sqrt": math.sqrt}


def evaluate(expr: str, names: Mapping[str, float]) -> float:
    """Evaluate an arithmetic expression over `names` (+ - * / ** and sqrt only)."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError(f"unknown name {node.id!r} in {expr!r}")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in _FUNCS and len(node.args) == 1):
            return _FUNCS[node.func.id](ev(node.args[0]))
        raise ValueError(f"unsupported syntax {ast.dump(node)[:40]} in {expr!r}")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"cannot parse {expr!r}: {exc.msg}") from None
    return ev(tree)


def round_half_up(x: float, decimals: int) -> float:
    """Round as the documents do (5.41 -> 5.4, 7.275 -> 7.28), immune to binary ties."""
    from decimal import ROUND_HALF_UP, Decimal

    q = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP))


def numeric_fields(mapping: Mapping[str, Any]) -> dict[str, float]:
    """The numbers (not booleans) of a mapping, by name: the model fields expressions may use."""
    return {k: v for k, v in mapping.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


@dataclass(frozen=True)
class QuantityValue:
    """A quantity recomputed from its expression, and whether the stated value agrees."""
    name: str
    expr: str
    stated: float
    clause: str
    decimals: int | None
    exact: float | None              # None when the expression cannot be evaluated
    problem: str | None              # why the stated value is wrong (None: it is right)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def detail(self) -> str:
        """How the value was checked, in one line (the problem when there is one)."""
        if self.problem:
            return self.problem
        if self.decimals is not None:
            return (f"{self.expr} = {self.exact:.6g}, rounds to "
                    f"{_show(round_half_up(self.exact, self.decimals))} at {self.decimals} "
                    f"decimal(s); stated {_show(self.stated)}")
        return f"{self.expr} = {_show(self.exact)}; stated {_show(self.stated)}"


def _show(x: float) -> str:
    """6,488,832 for whole numbers, up to ten significant digits otherwise."""
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e18 else f"{x:.10g}"


def evaluate_quantities(model: Mapping[str, Any],
                        quantities: Mapping[str, Mapping[str, Any]]) -> list[QuantityValue]:
    """Recompute every quantity, in order, over the model's numeric fields.

    A quantity may use the model's fields and the stated values of earlier quantities (the
    course's 94 % is 100 minus its stated 6 %). The loader, ``andrea-audit spec`` and
    ``andrea-audit docs`` all use this one evaluation.
    """
    names = numeric_fields(model)
    out = []
    for qname, q in quantities.items():
        stated, decimals = q["value"], q.get("decimals")
        try:
            exact = evaluate(q["expr"], names)
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            out.append(QuantityValue(qname, q["expr"], stated, q["clause"], decimals, None,
                                     str(exc)))
            names[qname] = stated
            continue
        if decimals is not None:
            ok = round_half_up(exact, decimals) == stated
            how = f"{exact:.6g} rounds to {round_half_up(exact, decimals)} at {decimals} decimals"
        else:
            ok = exact == stated
            how = f"{q['expr']} = {exact:.10g}"
        problem = None if ok else f"states {stated} but {how} (clause {q['clause']})"
        out.append(QuantityValue(qname, q["expr"], stated, q["clause"], decimals, exact, problem))
        names[qname] = stated
    return out


def quantity_findings(raw: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(quantity name, problem) for each quantity whose stated value its expression contradicts."""
    return [(v.name, v.problem) for v in evaluate_quantities(raw.get("model", {}),
                                                             raw.get("quantities", {}))
            if v.problem]


# --------------------------------------------------------------------------- loading
class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys instead of keeping the last one."""


_CSafeLoader = getattr(yaml, "CSafeLoader", None)   # where PyYAML was built with libyaml


class _FastStrictLoader(*((_CSafeLoader,) if _CSafeLoader else (yaml.SafeLoader,))):
    """The same on libyaml's parser: five times faster, the same data. It composes nested
    collections by recursing in C, where a text nested thousands deep crashes the process
    instead of raising RecursionError, so it reads only texts that cannot nest deeply
    (:func:`_loader_for`)."""


#: A text with fewer brackets than this and shorter runs of indentation, dashes, `?` and `:`
#: at its lines' starts cannot nest deeper than that either (in YAML a level costs one of
#: them); beyond it the pure-Python parser reads it and stops at the recursion limit.
SHALLOW = 256


def _loader_for(text: str):
    if _CSafeLoader is None or text.count("[") + text.count("{") >= SHALLOW:
        return _StrictLoader
    for line in text.splitlines():
        if len(line) - len(line.lstrip(" -?:")) >= SHALLOW:
            return _StrictLoader
    return _FastStrictLoader


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


for _loader in (_StrictLoader, _FastStrictLoader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _where(error: jsonschema.ValidationError, raw: Mapping[str, Any]) -> str:
    parts = list(error.absolute_path)
    where = "/".join(str(p) for p in parts) or "(top level)"
    if len(parts) >= 2 and parts[0] == "clauses" and isinstance(parts[1], int):
        try:
            cid = raw["clauses"][parts[1]].get("id")
            if cid:
                where += f" (clause {cid})"
        except (IndexError, AttributeError, KeyError):
            pass
    return where


def consistency_problems(raw: Mapping[str, Any]) -> list[str]:
    """Cross-reference problems the schema cannot express."""
    problems = []
    seen: set[str] = set()
    sections, groups = raw["sections"], raw["groups"]
    for c in raw["clauses"]:
        cid = c["id"]
        if cid in seen:
            problems.append(f"clause {cid}: duplicate clause id")
        seen.add(cid)
        if c["source"] not in sections:
            problems.append(f"clause {cid}: source {c['source']!r} is not a section in 'sections'")
        if c["group"] not in groups:
            problems.append(f"clause {cid}: group {c['group']!r} is not a group in 'groups'")
    for g in raw.get("kernels", {}).get("groups", []):
        if g not in groups:
            problems.append(f"kernels/groups: {g!r} is not a group in 'groups'")
    if "kernels" in raw:
        block = raw["kernels"]["launch"]["block_x"]
        for shape in raw["kernels"]["launch"]["test_shapes"]:
            b = shape[1]
            if b == "rows" or b % block["multiple_of"] or b > block["max"]:
                problems.append(f"kernels/launch/test_shapes: block {b!r} of {shape} breaks the "
                                f"launch rule (a multiple of {block['multiple_of']} up to "
                                f"{block['max']})")
    names = [f["name"] for f in raw["contract"]["functions"]]
    for n in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"contract/functions: {n!r} is listed twice")
    for qname, q in raw["quantities"].items():
        if q["clause"] not in seen:
            problems.append(f"quantities/{qname}: clause {q['clause']!r} does not exist")
    problems += [f"quantities/{q}: {p}" for q, p in quantity_findings(raw)]
    std = raw["model"]["init"]["std"]
    try:
        value = evaluate(str(std), numeric_fields(raw["model"]))
        if not (value > 0 and math.isfinite(value)):
            problems.append(f"model/init/std: {std!r} is {value:g}, but a std must be positive")
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        problems.append(f"model/init/std: {exc}")
    return problems


def resolve_spec_path(spec: str | Path | None) -> Path:
    """A bundled spec name (``andrea-120m``, ``gpt2-small``) or a path to a YAML file."""
    if spec is None:
        spec = DEFAULT_SPEC
    p = Path(spec)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return p
    bundled = SPEC_DIR / f"{spec}.yaml"
    if bundled.exists():
        return bundled
    names = ", ".join(sorted(x.stem for x in SPEC_DIR.glob("*.yaml")))
    raise SpecError(spec, [f"no such file, and not a bundled spec name (bundled: {names})"])


def read_spec_file(path: Path) -> Mapping[str, Any]:
    """The YAML mapping in `path`; SpecError for a file that is missing, unreadable, not UTF-8
    text, empty, not YAML, or not a mapping."""
    if path.is_dir():
        raise SpecError(path, ["is a directory, not a spec file"])
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SpecError(path, ["cannot read the file (no such file)"]) from None
    except OSError as exc:
        raise SpecError(path, [f"cannot read the file ({exc.strerror or exc})"]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(path, [f"not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x}); "
                               "a spec is a YAML text file"]) from None
    if not text.strip():
        raise SpecError(path, ["the file is empty"])
    try:
        raw = yaml.load(text, Loader=_loader_for(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
        if isinstance(exc, yaml.reader.ReaderError):
            at = f" at character {exc.position + 1}"
            problem = f"{exc.reason} (character {ord(exc.character):#06x})" \
                if isinstance(exc.character, str) else str(exc.reason)
        raise SpecError(path, [f"not valid YAML{at}: {' '.join(str(problem).split())}"]) from None
    except RecursionError:
        raise SpecError(path, ["not valid YAML: nested too deeply"]) from None
    if raw is None:
        raise SpecError(path, ["the file is empty (no YAML data, only comments or blank lines)"])
    if not isinstance(raw, dict):
        raise SpecError(path, [f"the top level must be a mapping of spec fields, not a "
                               f"{type(raw).__name__}"])
    if _expanded_size(raw) > MAX_VALUES:
        raise SpecError(path, [f"aliases (*name) repeat collections into more than {MAX_VALUES} "
                               "values, or an alias refers to a collection that contains it; "
                               "a spec repeats only small parts (the error lists of a contract)"])
    return raw


#: The most values a spec may hold once its aliases are expanded (the bundled specs: ~3,000).
#: Aliases are shared, not copied, when YAML is read, but validation, error messages and the
#: checks walk them as copies: ten lists that each repeat the one before ten times (80 short
#: lines) would be walked 10**10 times, and a list that contains itself forever.
MAX_VALUES = 200_000


def _expanded_size(raw) -> int:
    """How many values `raw` holds with every alias expanded (stops counting past MAX_VALUES)."""
    count, todo = 0, [raw]
    while todo and count <= MAX_VALUES:
        v = todo.pop()
        count += 1
        if isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, (list, tuple, set)):
            todo.extend(v)
    return count


def load_spec(spec: str | Path | None = None) -> Spec:
    """Load and validate a spec; raise :class:`SpecError` naming the file and the problem."""
    path = resolve_spec_path(spec)
    raw = read_spec_file(path)
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        raise SpecError(path, [f"{_where(e, raw)}: {e.message}" for e in errors[:10]])
    problems = consistency_problems(raw)
    if problems:
        raise SpecError(path, problems)
    return _build(path, raw)


def _statement(value) -> tuple[str, dict[str, str]]:
    """(English statement, {lang: translation}) from a clause's `statement` field."""
    if isinstance(value, str):
        return value, {}
    return value["en"], {k: v for k, v in value.items() if k != "en"}


def _build(path: Path, raw: Mapping[str, Any]) -> Spec:
    m = raw["model"]
    init = m["init"]
    std_expr = str(init["std"])
    model = Model(
        name=m["name"], vocab_size=m["vocab_size"], d_model=m["d_model"],
        context_length=m["context_length"], total_params=m["total_params"],
        tied_embeddings=m["tied_embeddings"], position_encoding=m["position_encoding"],
        dtype=m["dtype"], init_mean=float(init["mean"]),
        init_std=evaluate(std_expr, numeric_fields(m)),
        init_distribution=init["distribution"], init_std_expr=std_expr,
    )
    quantities = {k: Quantity(name=k, expr=q["expr"], value=q["value"], clause=q["clause"],
                              decimals=q.get("decimals"))
                  for k, q in raw["quantities"].items()}
    clauses = tuple(Clause(id=c["id"], statement=_statement(c["statement"])[0],
                           source=c["source"], method=c["method"], group=c["group"],
                           translations=_statement(c["statement"])[1])
                    for c in raw["clauses"])
    contract = Contract(tuple(
        Function(name=f["name"], params=tuple(f["params"]), returns=f["returns"],
                 errors=tuple(Raises(e["raises"], e["when"]) for e in f["errors"]),
                 optional=bool(f.get("optional", False)))
        for f in raw["contract"]["functions"]))
    return Spec(path=path, name=raw["name"], title=raw.get("title", raw["name"]), model=model,
                quantities=quantities, tolerances=raw["tolerances"],
                statistics=raw["statistics"], sections=raw["sections"], groups=raw["groups"],
                clauses=clauses, contract=contract, kernels=_kernels(raw.get("kernels")),
                raw=raw)


def _kernels(k: Mapping[str, Any] | None) -> Kernels | None:
    return KernelContract.from_data(k) if k else None


# --------------------------------------------------------------------------- rendering
def contract_table(spec: Spec) -> str:
    """The README's contract table (Markdown), generated from ``spec.contract``."""
    fields = {"dtype": spec.model.dtype, "init": spec.model.init_text()}
    rows = ["| function | returns | errors |", "|---|---|---|"]
    for f in spec.contract.functions:
        if f.optional:
            continue
        errors = "; ".join(f"{e.when} → `{e.raises}`" for e in f.errors) or "—"
        returns = f.returns
        for key, value in fields.items():
            returns = returns.replace("{" + key + "}", value)
        rows.append(f"| `{f.signature()}` | {returns} | {errors} |")
    return "\n".join(rows) + "\n"
