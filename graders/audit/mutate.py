"""First-order mutants of a Python implementation of the contract, one realistic bug each.

    mutants = python_mutants(text, "embedding.py", functions={"embed", ...})

Sites are found with Python's :mod:`ast` (which node, inside which function, in what role: a
range check that guards a ``raise``, the ``rng`` parameter, an in-place scatter); each mutant is
written with :mod:`libcst`, which keeps every other byte of the file as it was (comments,
layout, parentheses), so a mutant's diff is the bug and nothing else. The operators are the
bugs students make in array code:

=================  ==========================================================================
operator           the bug
=================  ==========================================================================
scatter_assign     ``g[ids] += v`` written ``g[ids] = v`` (repeated ids keep one value)
add_at_assign      ``np.add.at(g, ids, v)`` written ``g[ids] = v``
axis               ``axis=0`` <-> ``axis=1`` (``-1`` -> ``0``), ``x.shape[0]`` <-> ``x.shape[1]``
index_shift        ``x[i]`` -> ``x[i - 1]`` (an id or position off by one)
slice_bound        ``x[a:b]`` -> ``x[a:b - 1]``, ``x[a:b + 1]``, ``x[a + 1:b]``
range_bound        ``range(n)`` -> ``range(n - 1)``, ``range(n + 1)``
compare_boundary   ``<`` <-> ``<=``, ``>`` <-> ``>=``
remove_check       an ``if ...: raise`` removed; one side of ``lo < 0 or hi >= n`` removed;
                   an argument checker's call removed (its argument used unchecked)
dtype              ``np.float32`` <-> ``np.float64``, ``np.int32``/``np.int64`` -> ``np.float64``
sqrt               ``1 / sqrt(d)`` -> ``1 / d`` and ``1 / d ** 2``
reduction          ``sum`` <-> ``mean``
drop_copy          ``x.copy()`` -> ``x``, ``np.array(x)`` -> ``np.asarray(x)`` (a view, not a copy)
in_place           ``y = x * c`` on an argument -> ``x *= c; y = x`` (the input mutated)
swap_args          ``f(a, b)`` -> ``f(b, a)``
global_rng         ``rng.normal(...)`` -> a module-level generator's (not the one passed)
=================  ==========================================================================

Only the bodies of functions are mutated (never a module's constants, imports, annotations,
defaults or docstrings). Each mutant knows the function it changed (its top-level ``def``: a
nested helper counts as part of the function that defines it), which the suite audit maps to the
contract functions that reach it and to the clauses that should catch the bug.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field
from typing import Callable, Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

# What each operator's bug is, in words (the audit's reports quote it).
OPERATORS = {
    "scatter_assign": "an accumulating scatter (+=) written as an assignment",
    "add_at_assign": "np.add.at written as a fancy-index assignment",
    "axis": "the wrong axis",
    "index_shift": "an index off by one",
    "slice_bound": "a slice bound off by one",
    "range_bound": "a loop bound off by one",
    "compare_boundary": "< and <= (or > and >=) confused",
    "remove_check": "an argument check or raise removed",
    "dtype": "the wrong dtype",
    "sqrt": "a constant changed (1/sqrt(d) as 1/d or 1/d**2)",
    "reduction": "sum and mean confused",
    "drop_copy": "a view returned or used where a copy was made",
    "in_place": "the input mutated in place",
    "swap_args": "two arguments swapped",
    "global_rng": "a global random generator in place of the one passed",
    # CUDA (graders/audit/mutate_cu.py)
    "atomic_to_plain": "atomicAdd written as a plain +=",
    "remove_syncthreads": "a __syncthreads() removed",
    "drop_grid_stride": "a grid-stride loop reduced to one iteration",
    "bound_off_by_one": "a loop or range bound off by one (< as <=)",
    "remove_id_check": "the id range check removed",
}

# What kind of clause an operator's bug violates: the audit narrows the clauses of the mutated
# function's checks to these ("errors": the contract's exceptions; "purity": arguments not
# modified; "rng": every draw from the passed generator; "dtype": result types and shapes;
# "value": the computed values).
OPERATOR_KIND = {
    "scatter_assign": "value", "add_at_assign": "value", "axis": "value",
    "index_shift": "value", "slice_bound": "value", "range_bound": "value",
    "compare_boundary": "value", "remove_check": "errors", "dtype": "dtype", "sqrt": "value",
    "reduction": "value", "drop_copy": "purity", "in_place": "purity", "swap_args": "value",
    "global_rng": "rng", "atomic_to_plain": "value", "remove_syncthreads": "value",
    "drop_grid_stride": "value", "bound_off_by_one": "value", "remove_id_check": "errors",
}

GLOBAL_RNG = "_andrea_global_rng"
_RNG_NAMES = ("rng", "generator", "random_state", "gen")
_NOT_SWAPPED = {"isinstance", "issubclass", "getattr", "setattr", "hasattr", "print", "super",
                "range", "format", "join", "raise_", "ValueError", "TypeError", "IndexError"}
_FLOAT = {"float32": "float64", "float64": "float32", "double": "float32", "single": "float64"}
_INT = ("int8", "int16", "int32", "int64", "intp", "uint8", "uint32", "uint64")


class MutationError(Exception):
    """A source could not be mutated (it does not parse); the message names the file."""


@dataclass(frozen=True)
class Mutant:
    """One first-order mutant: `file` (relative to the target) with one site changed."""

    id: str                  # stable: <file>:<line>:<operator>:<n>
    file: str
    line: int
    operator: str
    function: str | None     # the top-level def (or Class.method) that holds the site
    description: str         # what changed, e.g. "g[ids] += v  ->  g[ids] = v"
    original: str = field(repr=False)
    mutated: str = field(repr=False)
    kind: str = "value"      # OPERATOR_KIND of the operator, maybe refined by the site

    def diff(self, context: int = 2) -> str:
        """The mutant as a unified diff against the original file."""
        return "".join(difflib.unified_diff(
            self.original.splitlines(keepends=True), self.mutated.splitlines(keepends=True),
            f"a/{self.file}", f"b/{self.file}", n=context))


@dataclass
class _Site:
    node: ast.AST                      # the ast node whose libcst twin is rewritten
    operator: str
    description: str
    rewrite: Callable                  # libcst node -> libcst node / FlattenSentinel
    cst_type: type                     # libcst's class for the node
    function: str | None = None
    kind: str | None = None
    prelude: str | None = None         # a module-level statement the mutant needs


# ----------------------------------------------------------------------------- ast side
def _code(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_int_const(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int):
        return -node.operand.value
    return None


def _dotted(node) -> str:
    """'np.add.at' for Attribute chains on a Name, '' otherwise."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _raises(body: list[ast.stmt]) -> bool:
    return any(isinstance(s, ast.Raise) for s in body)


def checker_names(trees: Iterable[ast.Module]) -> set[str]:
    """Functions of the implementation that check arguments: their body raises somewhere."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    isinstance(n, ast.Raise) for n in ast.walk(node)):
                names.add(node.name)
    return names


def top_level_functions(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """(qualified name, node) of each module-level def and each method of a module-level class."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            out.extend((f"{node.name}.{n.name}", n) for n in node.body
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return out


class _Finder:
    """Walk one function's body and collect the sites of every operator."""

    def __init__(self, checkers: set[str]):
        self.checkers = checkers
        self.sites: list[_Site] = []

    def function(self, qualname: str, fn) -> None:
        self.qualname = qualname
        args = fn.args
        self.params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        self.rng_params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
                           if a.arg in _RNG_NAMES or (a.annotation is not None
                                                      and "Generator" in _code(a.annotation))}
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]   # the docstring
        for stmt in body:
            self._walk(stmt, guard=False)

    def add(self, node, operator, description, rewrite, cst_type, kind=None, prelude=None):
        self.sites.append(_Site(node, operator, description, rewrite, cst_type, self.qualname,
                                kind, prelude))

    # The walk: statements know whether they sit in a raise guard (an if whose body raises),
    # so that a boundary flipped there is an argument check's bug (errors), not a value's.
    def _walk(self, node, guard: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            body = node.body if isinstance(node.body, list) else [node.body]
            for s in body:
                self._walk(s, guard)
            return
        if isinstance(node, ast.ClassDef):
            return
        if isinstance(node, ast.AnnAssign):   # the annotation is no code that runs
            for part in (node.target, node.value):
                if part is not None:
                    self._walk(part, guard)
            return
        self._visit(node, guard)
        if isinstance(node, ast.If):
            raises = _raises(node.body)
            self._walk(node.test, raises)
            for s in node.body + node.orelse:
                self._walk(s, guard)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop,
                                  ast.unaryop)):
                continue
            self._walk(child, guard)

    def _visit(self, node, guard: bool) -> None:
        m = getattr(self, "_" + type(node).__name__, None)
        if m is not None:
            m(node, guard)

    # --- statements
    def _AugAssign(self, node: ast.AugAssign, guard):
        if isinstance(node.target, ast.Subscript) and isinstance(node.op, (ast.Add, ast.Sub)):
            self.add(node, "scatter_assign",
                     f"{_code(node)}  ->  {_code(node.target)} = {_code(node.value)}",
                     lambda n: cst.Assign(targets=[cst.AssignTarget(n.target)], value=n.value),
                     cst.AugAssign)

    def _Expr(self, node: ast.Expr, guard):
        v = node.value
        if not isinstance(v, ast.Call):
            return
        if _dotted(v.func).endswith("add.at") and len(v.args) == 3 and not v.keywords:
            a, idx, val = v.args
            self.add(node, "add_at_assign",
                     f"{_code(v)}  ->  {_code(a)}[{_code(idx)}] = {_code(val)}",
                     lambda n: cst.Assign(
                         targets=[cst.AssignTarget(cst.Subscript(
                             n.value.args[0].value.with_changes(),
                             [cst.SubscriptElement(cst.Index(n.value.args[1].value))]))],
                         value=n.value.args[2].value),
                     cst.Expr)
        elif _call_name(v) in self.checkers:
            self.add(node, "remove_check", f"{_code(v)}  ->  (removed)",
                     lambda n: cst.Pass(), cst.Expr)

    def _If(self, node: ast.If, guard):
        if not _raises(node.body):
            return
        self.add(node, "remove_check", f"if {_code(node.test)}: raise ...  ->  (removed)",
                 lambda n: cst.SimpleStatementLine([cst.Pass()]), cst.If)
        test = node.test
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and len(test.values) > 1:
            for i, part in enumerate(test.values):
                rest = [v for j, v in enumerate(test.values) if j != i]
                self.add(test, "remove_check",
                         f"if {_code(test)}  ->  if {' or '.join(_code(r) for r in rest)}",
                         _drop_operand(i), cst.BooleanOperation)

    def _Assign(self, node: ast.Assign, guard):
        v = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(v, ast.BinOp) and isinstance(v.left, ast.Name)
                and v.left.id in self.params and isinstance(
                    v.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))):
            target, left = node.targets[0].id, v.left.id
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(v.op)]
            self.add(node, "in_place",
                     f"{target} = {_code(v)}  ->  {left} {op}= {_code(v.right)}; {target} = {left}",
                     _in_place, cst.SimpleStatementLine)

    # --- expressions
    def _Subscript(self, node: ast.Subscript, guard):
        s = node.slice
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            k = _is_int_const(s)
            if k is not None:
                new = {0: 1, 1: 0, -1: 0, -2: -1}.get(k, 0)
                self.add(s, "axis", f"{_code(node)}  ->  {_code(node.value)}[{new}]",
                         lambda n, new=new: _int_expr(new), _cst_int_type(k))
            return
        elems = s.elts if isinstance(s, ast.Tuple) else [s]
        for e in elems:
            if isinstance(e, ast.Slice):
                self._slice(node, e)
            elif not isinstance(e, (ast.Constant, ast.Starred)) and _is_int_const(e) is None \
                    and not (isinstance(e, ast.Name) and e.id in ("Ellipsis", "None")):
                self.add(e, "index_shift", f"{_code(node)}: {_code(e)}  ->  {_code(e)} - 1",
                         lambda n: _minus_one(n), _cst_type_of(e))

    def _slice(self, sub, s: ast.Slice):
        if s.upper is not None:
            for delta in (-1, 1):
                self.add(s.upper, "slice_bound",
                         f"{_code(sub)}: upper bound {_code(s.upper)}  ->  "
                         f"{_code(s.upper)} {'-' if delta < 0 else '+'} 1",
                         lambda n, d=delta: _plus(n, d), _cst_type_of(s.upper))
        if s.lower is not None:
            self.add(s.lower, "slice_bound",
                     f"{_code(sub)}: lower bound {_code(s.lower)}  ->  {_code(s.lower)} + 1",
                     lambda n: _plus(n, 1), _cst_type_of(s.lower))

    def _Call(self, node: ast.Call, guard):
        name, dotted = _call_name(node), _dotted(node.func)
        if isinstance(node.func, ast.Name) and name == "range" and 1 <= len(node.args) <= 3:
            end = node.args[0] if len(node.args) == 1 else node.args[1]
            for delta in (-1, 1):
                self.add(end, "range_bound",
                         f"{_code(node)}: end {_code(end)}  ->  {_code(end)} "
                         f"{'-' if delta < 0 else '+'} 1",
                         lambda n, d=delta: _plus(n, d), _cst_type_of(end))
        if name == "sqrt" and len(node.args) == 1 and not node.keywords:
            arg = _code(node.args[0])
            self.add(node, "sqrt", f"{_code(node)}  ->  {arg}",
                     lambda n: _paren(n.args[0].value), cst.Call)
            self.add(node, "sqrt", f"{_code(node)}  ->  {arg} ** 2",
                     lambda n: cst.BinaryOperation(_paren(n.args[0].value), cst.Power(),
                                                   cst.Integer("2")), cst.Call)
        if name in ("sum", "mean") and isinstance(node.func, ast.Attribute):
            other = "mean" if name == "sum" else "sum"
            self.add(node.func, "reduction", f"{_code(node)}: {name}  ->  {other}",
                     lambda n, o=other: n.with_changes(attr=cst.Name(o)), cst.Attribute)
        if name == "copy" and isinstance(node.func, ast.Attribute) and not node.args \
                and not node.keywords and _dotted(node.func) not in ("copy.copy",):
            self.add(node, "drop_copy", f"{_code(node)}  ->  {_code(node.func.value)}",
                     lambda n: n.func.value, cst.Call)
        if dotted in ("np.array", "numpy.array", "np.copy", "numpy.copy") and node.args:
            self.add(node.func, "drop_copy", f"{_code(node)}: {dotted}  ->  np.asarray",
                     lambda n: n.with_changes(attr=cst.Name("asarray")), cst.Attribute)
        if name in self.checkers:
            names = [a for a in node.args if isinstance(a, ast.Name) and a.id in self.params]
            if len(names) == 1:   # checker(value, ...) -> value: the argument goes unchecked
                i = node.args.index(names[0])
                self.add(node, "remove_check", f"{_code(node)}  ->  {names[0].id}",
                         lambda n, i=i: [a for a in n.args if a.keyword is None][i].value,
                         cst.Call)
        if (name not in _NOT_SWAPPED and name not in self.checkers
                and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args)
                and all(_is_int_const(a) is None and not isinstance(a, ast.Constant)
                        for a in node.args[:2])
                and _code(node.args[0]) != _code(node.args[1])):
            self.add(node, "swap_args",
                     f"{_code(node)}: {_code(node.args[0])}, {_code(node.args[1])} swapped",
                     _swap, cst.Call)
        f = node.func
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and f.value.id in self.rng_params):
            self.add(f.value, "global_rng",
                     f"{_code(node)}: {f.value.id}  ->  a module-level generator",
                     lambda n: cst.Name(GLOBAL_RNG), cst.Name,
                     prelude=f"{GLOBAL_RNG} = __import__('numpy').random.default_rng(20240521)")
        for kw in node.keywords:
            k = _is_int_const(kw.value) if kw.arg == "axis" else None
            if k is not None:
                new = {0: 1, 1: 0, -1: 0}.get(k, 0)
                self.add(kw.value, "axis", f"{_code(node)}: axis={k}  ->  axis={new}",
                         lambda n, new=new: _int_expr(new), _cst_int_type(k))

    def _Attribute(self, node: ast.Attribute, guard):
        d = _dotted(node)
        if not d.startswith(("np.", "numpy.")) or d.count(".") != 1:
            return
        if node.attr in _FLOAT:
            new = _FLOAT[node.attr]
        elif node.attr in _INT:
            new = "float64"
        else:
            return
        self.add(node, "dtype", f"{d}  ->  {d.split('.')[0]}.{new}",
                 lambda n, new=new: n.with_changes(attr=cst.Name(new)), cst.Attribute)

    def _Compare(self, node: ast.Compare, guard):
        flip = {ast.Lt: ("<", "<=", cst.LessThanEqual), ast.LtE: ("<=", "<", cst.LessThan),
                ast.Gt: (">", ">=", cst.GreaterThanEqual), ast.GtE: (">=", ">", cst.GreaterThan)}
        for i, op in enumerate(node.ops):
            if type(op) in flip:
                old, new, cls = flip[type(op)]
                self.add(node, "compare_boundary", f"{_code(node)}: {old}  ->  {new}",
                         lambda n, i=i, cls=cls: _flip(n, i, cls), cst.Comparison,
                         kind="errors" if guard else None)


# ----------------------------------------------------------------------------- libcst side
def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Call,
                         cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _plus(expr, delta: int):
    if isinstance(expr, cst.Integer):
        return cst.Integer(str(int(expr.value, 0) + delta))
    op = cst.Subtract() if delta < 0 else cst.Add()
    return cst.BinaryOperation(_paren(expr), op, cst.Integer(str(abs(delta))))


def _minus_one(expr):
    return _plus(expr, -1)


def _int_expr(k: int):
    if k < 0:
        return cst.UnaryOperation(cst.Minus(), cst.Integer(str(-k)))
    return cst.Integer(str(k))


def _cst_int_type(k: int) -> type:
    return cst.UnaryOperation if k < 0 else cst.Integer


_CST_OF_AST = {
    ast.Name: cst.Name, ast.Attribute: cst.Attribute, ast.BinOp: cst.BinaryOperation,
    ast.Call: cst.Call, ast.Subscript: cst.Subscript, ast.UnaryOp: cst.UnaryOperation,
    ast.Compare: cst.Comparison, ast.BoolOp: cst.BooleanOperation, ast.Tuple: cst.Tuple,
    ast.List: cst.List, ast.IfExp: cst.IfExp,
}


def _cst_type_of(node: ast.AST) -> type:
    if isinstance(node, ast.Constant):
        return {int: cst.Integer, float: cst.Float}.get(type(node.value), cst.BaseExpression)
    return _CST_OF_AST.get(type(node), cst.BaseExpression)


def _drop_operand(i: int):
    def rewrite(n: cst.BooleanOperation):
        parts = _flatten_or(n)
        rest = [p for j, p in enumerate(parts) if j != i]
        out = rest[0]
        for p in rest[1:]:
            out = cst.BooleanOperation(out, cst.Or(), p)
        return out.with_changes(lpar=n.lpar, rpar=n.rpar) if n.lpar else out
    return rewrite


def _flatten_or(n) -> list:
    if isinstance(n, cst.BooleanOperation) and isinstance(n.operator, cst.Or) and not n.lpar:
        return _flatten_or(n.left) + _flatten_or(n.right)
    if isinstance(n, cst.BooleanOperation) and isinstance(n.operator, cst.Or) and n.lpar:
        inner = n.with_changes(lpar=[], rpar=[])
        return _flatten_or(inner.left) + _flatten_or(inner.right)
    return [n]


def _flip(n: cst.Comparison, i: int, cls):
    comps = list(n.comparisons)
    old = comps[i].operator
    comps[i] = comps[i].with_changes(operator=cls(whitespace_before=old.whitespace_before,
                                                   whitespace_after=old.whitespace_after))
    return n.with_changes(comparisons=comps)


def _swap(n: cst.Call):
    args = list(n.args)
    pos = [i for i, a in enumerate(args) if a.keyword is None and not a.star][:2]
    i, j = pos
    a, b = args[i], args[j]
    args[i] = a.with_changes(value=b.value)
    args[j] = b.with_changes(value=a.value)
    return n.with_changes(args=args)


def _in_place(line: cst.SimpleStatementLine):
    assign = line.body[0]
    target = assign.targets[0].target
    binop = assign.value
    aug = {cst.Add: cst.AddAssign, cst.Subtract: cst.SubtractAssign,
           cst.Multiply: cst.MultiplyAssign, cst.Divide: cst.DivideAssign}[type(binop.operator)]
    first = line.with_changes(body=[cst.AugAssign(binop.left, aug(), binop.right)])
    second = line.with_changes(body=[cst.Assign([cst.AssignTarget(target)], binop.left)],
                               leading_lines=[])
    return cst.FlattenSentinel([first, second])


class _Rewriter(cst.CSTTransformer):
    def __init__(self, target):
        self.target = target
        self.done = False

    def on_leave(self, original, updated):
        if original is self.target:
            self.done = True
            return self._site.rewrite(updated)
        return updated


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))


# ----------------------------------------------------------------------------- mutants
def python_mutants(text: str, file: str, *, functions: Iterable[str] | None = None,
                   checkers: set[str] | None = None,
                   operators: Iterable[str] | None = None) -> list[Mutant]:
    """Every first-order mutant of one module's source `text` (named `file` in ids and diffs).

    `functions`: only sites in these top-level functions (qualified names; default all);
    `checkers`: names of the implementation's argument-checking functions (default: this
    module's functions that raise); `operators`: only these operators.
    """
    try:
        tree = ast.parse(text)
        module = cst.parse_module(text)
    except (SyntaxError, cst.ParserSyntaxError) as exc:
        raise MutationError(f"{file}: does not parse ({exc})") from None
    finder = _Finder(checkers if checkers is not None else checker_names([tree]))
    wanted = set(functions) if functions is not None else None
    for qualname, fn in top_level_functions(tree):
        if wanted is None or qualname in wanted:
            finder.function(qualname, fn)
    ops = set(operators) if operators is not None else None
    sites = [s for s in finder.sites if ops is None or s.operator in ops]
    if not sites:
        return []

    # Match every site to its libcst node by type and position (ast columns are UTF-8 bytes).
    lines = text.splitlines() or [""]
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    by_place: dict[tuple, list] = {}
    for node, rng in positions.items():
        by_place.setdefault((rng.start.line, rng.start.column, rng.end.line, rng.end.column),
                            []).append(node)
    out: list[Mutant] = []
    counts: dict[tuple, int] = {}
    for site in sites:
        n = site.node
        key = (n.lineno, _char_col(lines, n.lineno, n.col_offset), n.end_lineno,
               _char_col(lines, n.end_lineno, n.end_col_offset))
        cands = [c for c in by_place.get(key, ()) if isinstance(c, site.cst_type)]
        if site.cst_type is cst.SimpleStatementLine:
            cands = [c for c in positions if isinstance(c, cst.SimpleStatementLine)
                     and positions[c].start.line == n.lineno and len(c.body) == 1]
        if len(cands) != 1:
            continue   # not found unambiguously: no mutant rather than a wrong one
        rewriter = _Rewriter(cands[0])
        rewriter._site = site
        try:
            new = module.visit(rewriter)
            code = new.code
            if site.prelude:
                code = _add_prelude(code, site.prelude)
            ast.parse(code)
        except Exception:  # noqa: BLE001 - a rewrite libcst refuses: skip that site
            continue
        if not rewriter.done or code == text:
            continue
        idx = counts.get((n.lineno, site.operator), 0)
        counts[(n.lineno, site.operator)] = idx + 1
        out.append(Mutant(f"{file}:{n.lineno}:{site.operator}:{idx}", file, n.lineno,
                          site.operator, site.function, site.description, text, code,
                          site.kind or OPERATOR_KIND[site.operator]))
    return _unique(out)


def _add_prelude(code: str, statement: str) -> str:
    """`statement` after the module's docstring, __future__ imports and imports."""
    tree = ast.parse(code)
    after = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            after = node.end_lineno
        else:
            break
    lines = code.splitlines(keepends=True)
    return "".join(lines[:after]) + statement + "\n" + "".join(lines[after:])


def _unique(mutants: list[Mutant]) -> list[Mutant]:
    """One mutant per distinct source (two operators can write the same bug)."""
    seen, out = set(), []
    for m in mutants:
        if m.mutated not in seen:
            seen.add(m.mutated)
            out.append(m)
    return out
