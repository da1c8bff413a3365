"""Known-buggy implementations for meta-tests: each is the correct student submission with one
realistic bug, written in as a source edit, and the clauses the suite must reject it under.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORRECT = Path(__file__).resolve().parents[2] / "examples" / "submissions" / "correct_student.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str
    edits: tuple[tuple[str, str], ...]
    must_fail: tuple[str, ...]  # clause ids that must be reported

    def source(self) -> str:
        text = CORRECT.read_text(encoding="utf-8")
        for old, new in self.edits:
            if text.count(old) != 1:
                raise AssertionError(f"mutant {self.name}: {old!r} occurs {text.count(old)} times")
            text = text.replace(old, new)
        return f'"""Mutant {self.name}: {self.bug}"""\n' + text

    def write(self, directory: Path) -> Path:
        path = Path(directory) / f"mutant_{self.name}.py"
        path.write_text(self.source(), encoding="utf-8")
        return path


MUTANTS = (
    Mutant("shifted_ids", "off-by-one: id i reads row i - 1",
           (("out[index] = table[ids[index]]", "out[index] = table[ids[index] - 1]"),),
           ("EMB-LOOKUP-01", "EMB-LOOKUP-02")),
    Mutant("duplicates_dropped", "backward assigns instead of accumulating repeated ids",
           (("g_tok[rows[b, t]] += grads[b, t]", "g_tok[rows[b, t]] = grads[b, t]"),),
           ("BWD-TOK-01",)),
    Mutant("init_std_002", "init with GPT-2's std 0.02 instead of 1/sqrt(d_model)",
           (("std = 1.0 / math.sqrt(d_model)", "std = 0.02"),),
           ("INIT-DIST-01",)),
    Mutant("negative_ids_wrap", "only the upper bound is checked, so -1 wraps to the last row",
           (("(ids.min() < 0 or ids.max() >= rows)", "(ids.max() >= rows)"),),
           ("EMB-ERR-01",)),
    Mutant("position_grad_mean", "position gradient averaged over the batch instead of summed",
           (("g_pos[t] += grads[b, t]", "g_pos[t] += grads[b, t] / rows.shape[0]"),),
           ("BWD-POS-01",)),
    Mutant("global_rng", "init draws from np.random's global state, not the rng argument",
           (("rng.normal(0.0, std,", "np.random.normal(0.0, std,"),),
           ("INIT-RNG-01",)),
    Mutant("reversed_positions", "position rows added in reverse order",
           (("+ position_table[t]", "+ position_table[T - 1 - t]"),),
           ("EMB-COMB-01",)),
    Mutant("cosine_divides_by_zero", "no zero-vector check in cosine_similarity",
           (("if nu == 0 or nv == 0:", "if False:"),),
           ("VEC-ERR-01",)),
    Mutant("sorts_ids_in_place", "backward sorts the caller's ids array in place",
           (("    T = ids.shape[-1]\n    if T > context_length:",
             "    ids.sort(axis=-1)\n    T = ids.shape[-1]\n    if T > context_length:"),),
           ("BWD-PURE-01", "BWD-TOK-01")),
    Mutant("float64_output", "embed returns float64",
           (("out = np.empty((rows.shape[0], T, token_table.shape[1]), dtype=np.float32)",
             "out = np.empty((rows.shape[0], T, token_table.shape[1]), dtype=np.float64)"),),
           ("EMB-DTYPE-01",)),
    Mutant("context_unchecked", "no T <= context check: a long sequence fails with IndexError",
           (("    if T > position_table.shape[0]:\n        raise ValueError(\"sequence longer than the context\")\n", ""),),
           ("EMB-ERR-03",)),
    Mutant("counts_output_projection", "embedding_params also counts a (tied-style) output matrix",
           (("            + position_embedding_params(context_length, d_model))",
             "            + position_embedding_params(context_length, d_model)\n"
             "            + token_embedding_params(vocab_size, d_model))"),),
           ("PAR-EMB-01",)),
    Mutant("dot_drops_last_term", "dot product skips the last coordinate",
           (("for a, b in zip(u, v))", "for a, b in zip(u[:-1], v[:-1]))"),),
           ("VEC-DOT-01",)),
)
