"""`andrea-audit spec`: the spec's own arithmetic, schema and statements.

Schema and consistency come from ``spec.load_spec`` (which reports every schema error, then
every consistency problem, including every quantity whose value its expression contradicts); a
spec that fails there is reported with its one-paragraph :class:`spec.SpecError`. A spec that
loads is then audited further:

* every quantity is recomputed and listed with its expression, exact value and rounding;
* the numbers in each clause statement must be facts the spec owns for that clause (a statement
  that still says 8,449 after ``vocab_size`` was edited is caught);
* the init scale a clause statement names must be the spec's ``model.init.std``;
* every clause with method ``spec`` must have something here to check it (a quantity or a
  model field), since no conformance check covers it;
* every function of the spec's ``contract:`` must be called by some conformance check, and
  every check must fit the spec (kind ``contract``).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from decimal import Decimal

from spec import Spec, SpecError, load_spec

from .docs import build_facts, load_rules, stated_init_std
from .numbers import LITERAL, fmt, read_literal, round_to


@dataclass
class SpecCheck:
    kind: str        # "quantity", "statement", "coverage"
    subject: str     # quantity name or clause id
    clause: str
    ok: bool
    detail: str


@dataclass
class SpecReport:
    path: str
    name: str = ""
    error: str | None = None          # the SpecError paragraph when the file does not load
    problems: list[str] = field(default_factory=list)
    checks: list[SpecCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and all(c.ok for c in self.checks)

    def to_dict(self) -> dict:
        return {"path": self.path, "name": self.name, "ok": self.ok, "error": self.error,
                "problems": self.problems, "checks": [asdict(c) for c in self.checks]}


def audit_spec(spec_arg) -> SpecReport:
    try:
        spec = load_spec(spec_arg)
    except SpecError as exc:
        return SpecReport(path=exc.path, error=str(exc), problems=list(exc.problems))
    report = SpecReport(path=str(spec.path), name=spec.name)
    report.checks += quantity_checks(spec)
    report.checks += statement_checks(spec)
    report.checks += init_statement_checks(spec)
    report.checks += contract_checks(spec)
    report.checks += coverage_checks(spec)
    return report


def quantity_checks(spec: Spec) -> list[SpecCheck]:
    """Every quantity recomputed by the loader's own evaluation, with how it was checked."""
    return [SpecCheck("quantity", v.name, v.clause, v.ok, v.detail())
            for v in spec.quantity_values()]


_STATEMENT_NUMBER = re.compile(rf"(?<![\w.])(?P<n>{LITERAL})(?P<m>M(?![A-Za-z]))?(?P<p>\s?%)?")


def statement_checks(spec: Spec) -> list[SpecCheck]:
    """Numbers in a clause statement must be facts of that clause (0 and 1 are not checked)."""
    rules = load_rules()
    facts = build_facts(spec, rules)
    symbols = {sym: key for key, syms in rules["table_labels"].items() for sym in syms}
    by_clause: dict[str, list] = {}
    for f in facts.values():
        by_clause.setdefault(f.clause, []).append(f)
    out = []
    for c in spec.clauses:
        owned = by_clause.get(c.id)
        if not owned:
            continue
        text = re.sub(r"[A-Za-z]+_\{?[\w-]+\}?", " ", c.statement)   # drop subscripts
        for m in _STATEMENT_NUMBER.finditer(text):
            scale = Decimal(1_000_000) if m.group("m") else Decimal(1)
            r = read_literal(m.group("n"), "en", scale, scaled=bool(m.group("m")))
            if r.value is None or r.value in (0, 1):
                continue
            kind = "percent" if m.group("p") else None
            cands = [f for f in owned if (f.kind == "percent") == (kind == "percent")]
            named = re.search(r"(\w+)\s*=\s*$", text[:m.start()])     # "V = 8449"
            if named and named.group(1) in symbols:
                cands = [f for f in cands if f.key == symbols[named.group(1)]] or cands
            hit = next((f for f in cands if round_to(f.exact, r.precision) == r.value), None)
            written = m.group().strip()
            if hit:
                out.append(SpecCheck("statement", c.id, c.id, True,
                                     f"states {written} = {hit.key} ({_show(hit.exact)})"))
            else:
                want = ", ".join(f"{f.key} = {fmt(round_to(f.exact, r.precision))}"
                                 for f in cands) or "no fact of this kind"
                out.append(SpecCheck("statement", c.id, c.id, False,
                                     f"statement says {written!r}, but the spec gives {want}"))
    return out


def contract_checks(spec: Spec) -> list[SpecCheck]:
    """Every function of the spec's contract is called by some conformance check (else nothing
    verifies it), and every check fits the spec (its clauses and functions exist)."""
    from graders.conformance.registry import all_checks, registry_problems

    checks = all_checks()
    out = []
    for f in spec.contract.functions:
        callers = [k.id for k in checks if f.name in k.requires]
        clauses = sorted({c for k in checks if f.name in k.requires for c in k.clauses})
        detail = (f"{f.signature()}: called by {len(callers)} check(s) of "
                  f"{', '.join(clauses)}" if callers else
                  f"{f.signature()} is in the contract, but no check calls it")
        out.append(SpecCheck("contract", f.name, clauses[0] if clauses else "", bool(callers),
                             detail))
    for problem in registry_problems(checks, spec):
        out.append(SpecCheck("contract", "checks", "", False, problem))
    return out


def init_statement_checks(spec: Spec) -> list[SpecCheck]:
    """The init scale a clause statement names (read as the docs audit reads a course text)
    must be the spec's model.init.std: a statement that still says 1/sqrt(d_model) after the
    std was edited to 0.02 is caught."""
    rules = load_rules()
    rule = rules.get("init_scale")
    if not rule:
        return []
    out = []
    m = spec.model
    for c in spec.clauses:
        stated = stated_init_std(c.statement, spec, "en", rules)
        if stated is None:
            continue
        expr, value, words = stated
        ok = math.isclose(value, m.init_std, rel_tol=1e-9)
        detail = (f"states std {words!r} = {value:.6g}" if ok else
                  f"statement says std {words!r} = {value:.6g}, but the spec's init std is "
                  f"{m.init_std_expr} = {m.init_std:.6g}")
        out.append(SpecCheck("statement", c.id, c.id, ok, detail))
    return out


def _show(d: Decimal) -> str:
    return fmt(d) if d == d.to_integral_value() else f"{float(d):.6g}"


def coverage_checks(spec: Spec) -> list[SpecCheck]:
    facts = build_facts(spec, load_rules())
    owners: dict[str, list[str]] = {}
    for f in facts.values():
        owners.setdefault(f.clause, []).append(f.key)
    out = []
    for c in spec.clauses:
        if c.method != "spec":
            continue
        keys = owners.get(c.id, [])
        if keys:
            out.append(SpecCheck("coverage", c.id, c.id, True,
                                 "checked here through " + ", ".join(keys)))
        else:
            out.append(SpecCheck("coverage", c.id, c.id, False,
                                 "method 'spec', but no quantity or model field belongs to it, "
                                 "so neither a conformance check nor this audit covers it"))
    return out
