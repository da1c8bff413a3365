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

SPEC_DIR = Path(__file__).resolve().parent
SCHEMA_PATH = SPEC_DIR / "spec.schema.json"
DEFAULT_SPEC = "andrea-120m"

#: The Python functions a submission module provides (the submission contract).
CONTRACT = (
    "token_embedding_params",
    "position_embedding_params",
    "embedding_params",
    "init_table",
    "lookup",
    "embed",
    "embed_backward",
    "dot",
    "norm",
    "cosine_similarity",
)


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
    init_std: float


@dataclass(frozen=True)
class Clause:
    id: str
    statement: str
    source: str
    method: str
    group: str
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Quantity:
    name: str
    expr: str
    value: float
    clause: str
    decimals: int | None = None


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
    raw: Mapping[str, Any] = field(repr=False)

    def clause(self, clause_id: str) -> Clause:
        for c in self.clauses:
            if c.id == clause_id:
                return c
        raise KeyError(f"spec {self.name} has no clause {clause_id!r}")

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


def quantity_findings(raw: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(quantity name, problem) for each quantity whose stated value its expression contradicts."""
    names: dict[str, float] = {k: v for k, v in raw.get("model", {}).items()
                               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    problems = []
    for qname, q in raw.get("quantities", {}).items():
        try:
            exact = evaluate(q["expr"], names)
        except (ValueError, ZeroDivisionError) as exc:
            problems.append((qname, str(exc)))
            continue
        stated = q["value"]
        if "decimals" in q:
            ok = round_half_up(exact, q["decimals"]) == stated
            how = f"{exact:.6g} rounds to {round_half_up(exact, q['decimals'])} at {q['decimals']} decimals"
        else:
            ok = exact == stated
            how = f"{q['expr']} = {exact:.10g}"
        if not ok:
            problems.append((qname, f"states {stated} but {how} (clause {q['clause']})"))
        names[qname] = stated
    return problems


# --------------------------------------------------------------------------- loading
class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys instead of keeping the last one."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


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
    for qname, q in raw["quantities"].items():
        if q["clause"] not in seen:
            problems.append(f"quantities/{qname}: clause {q['clause']!r} does not exist")
    problems += [f"quantities/{q}: {p}" for q, p in quantity_findings(raw)]
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


def load_spec(spec: str | Path | None = None) -> Spec:
    """Load and validate a spec; raise :class:`SpecError` naming the file and the problem."""
    path = resolve_spec_path(spec)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(path, [f"cannot read the file ({exc.strerror or exc})"]) from None
    try:
        raw = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecError(path, [f"not valid YAML at {at}{problem}"]) from None
    if not isinstance(raw, dict):
        raise SpecError(path, ["the top level must be a mapping of spec fields"])

    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        raise SpecError(path, [f"{_where(e, raw)}: {e.message}" for e in errors[:10]])
    problems = consistency_problems(raw)
    if problems:
        raise SpecError(path, problems)
    return _build(path, raw)


def _build(path: Path, raw: Mapping[str, Any]) -> Spec:
    m = raw["model"]
    std = m["init"]["std"]
    init_std = 1.0 / math.sqrt(m["d_model"]) if std == "1/sqrt(d_model)" else float(std)
    model = Model(
        name=m["name"], vocab_size=m["vocab_size"], d_model=m["d_model"],
        context_length=m["context_length"], total_params=m["total_params"],
        tied_embeddings=m["tied_embeddings"], position_encoding=m["position_encoding"],
        dtype=m["dtype"], init_mean=float(m["init"]["mean"]), init_std=init_std,
    )
    quantities = {k: Quantity(name=k, expr=q["expr"], value=q["value"], clause=q["clause"],
                              decimals=q.get("decimals"))
                  for k, q in raw["quantities"].items()}
    clauses = tuple(Clause(id=c["id"], statement=c["statement"], source=c["source"],
                           method=c["method"], group=c["group"],
                           requires=tuple(c.get("requires", ())))
                    for c in raw["clauses"])
    return Spec(path=path, name=raw["name"], title=raw.get("title", raw["name"]), model=model,
                quantities=quantities, tolerances=raw["tolerances"],
                statistics=raw["statistics"], sections=raw["sections"], groups=raw["groups"],
                clauses=clauses, raw=raw)
