"""The one kernel-contract model: the spec's ``kernels:`` mapping as typed, frozen data.

``spec.load_spec`` reads it (``Spec.kernels``), the kernel runtime (``andrea_gpu.host``)
compiles and launches against it, and the grader hands it to a kernel submission's worker as
JSON (``to_data``), which reads it back with ``from_data``. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass


class ContractIncomplete(ValueError):
    """The ``kernels:`` data lacks a field (the message names it)."""


@dataclass(frozen=True)
class KernelParam:
    name: str
    type: str                        # C type: "const float*", "int", ...
    shape: tuple = ()                # of a pointer: the extents, numbers or parameter names
    zeroed: bool = False             # an output the host zeroes before the launch


@dataclass(frozen=True)
class EntryPoint:
    name: str
    computes: str
    grid: str                        # the work size, an expression over the parameters
    params: tuple[KernelParam, ...]

    def signature(self) -> str:
        args = ", ".join(f"{p.type} {p.name}" for p in self.params)
        return f'extern "C" __global__ void {self.name}({args})'


@dataclass(frozen=True)
class KernelContract:
    """The CUDA kernel contract (the spec's ``kernels:``)."""

    language: str
    groups: tuple[str, ...]          # rubric groups a kernel submission is graded on
    arch: str
    dtype: str
    index_dtype: str
    bad_id_sentinel: int
    launch_rule: str
    block_x_multiple_of: int
    block_x_max: int
    test_shapes: tuple[tuple, ...]   # [grid.x, block.x]; "rows" is an entry point's work size
    entry_points: tuple[EntryPoint, ...]

    @classmethod
    def from_data(cls, raw) -> "KernelContract":
        """From the spec's ``kernels:`` mapping (or its JSON copy, :meth:`to_data`)."""
        try:
            eps = tuple(EntryPoint(
                name=e["name"], computes=e["computes"], grid=e["grid"],
                params=tuple(KernelParam(p["name"], p["type"], tuple(p.get("shape", ())),
                                         bool(p.get("zeroed", False))) for p in e["params"]))
                for e in raw["entry_points"])
            launch = raw["launch"]
            return cls(language=raw["language"], groups=tuple(raw["groups"]), arch=raw["arch"],
                       dtype=raw["dtype"], index_dtype=raw["index_dtype"],
                       bad_id_sentinel=raw["bad_id_sentinel"], launch_rule=launch["rule"],
                       block_x_multiple_of=launch["block_x"]["multiple_of"],
                       block_x_max=launch["block_x"]["max"],
                       test_shapes=tuple(tuple(s) for s in launch["test_shapes"]),
                       entry_points=eps)
        except (KeyError, TypeError) as exc:
            raise ContractIncomplete(f"the kernel contract is incomplete (missing {exc})") from None

    def to_data(self) -> dict:
        """The contract as the spec's ``kernels:`` mapping (what :meth:`from_data` reads)."""
        return {"language": self.language, "groups": list(self.groups), "arch": self.arch,
                "dtype": self.dtype, "index_dtype": self.index_dtype,
                "bad_id_sentinel": self.bad_id_sentinel,
                "launch": {"rule": self.launch_rule,
                           "block_x": {"multiple_of": self.block_x_multiple_of,
                                       "max": self.block_x_max},
                           "test_shapes": [list(s) for s in self.test_shapes]},
                "entry_points": [{"name": e.name, "computes": e.computes, "grid": e.grid,
                                  "params": [{"name": p.name, "type": p.type,
                                              **({"shape": list(p.shape)} if p.shape else {}),
                                              **({"zeroed": True} if p.zeroed else {})}
                                             for p in e.params]}
                                 for e in self.entry_points]}

    def entry(self, name: str) -> EntryPoint:
        for ep in self.entry_points:
            if ep.name == name:
                return ep
        raise ContractIncomplete(f"the kernel contract has no entry point {name}")

    def check_source(self) -> str:
        """C++ appended to a submission: one static_assert per entry point's signature."""
        lines = ["", "// ---- andrea kernel contract: signature checks (generated) ----",
                 "template <typename A, typename B> struct andrea_contract_same "
                 "{ static const bool value = false; };",
                 "template <typename A> struct andrea_contract_same<A, A> "
                 "{ static const bool value = true; };"]
        for ep in self.entry_points:
            types = ", ".join(p.type for p in ep.params)
            lines.append(f"static_assert(andrea_contract_same<decltype(&{ep.name}), "
                         f"void (*)({types})>::value, \"{ep.name} must be declared as: "
                         f"{ep.signature().replace(chr(34), chr(92) + chr(34))}\");")
        return "\n".join(lines) + "\n"
