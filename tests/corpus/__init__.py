"""Corpora of submissions for meta-tests, shared by tests/conformance and tests/grade.

* ``correct/*.py``: complete, correct submissions written in different styles (NumPy with
  the naive cosine, pure Python loops, np.take/np.add.reduceat, a class, math.fsum with NumPy
  scalars and Dutch error subclasses, scipy.sparse and np.linalg.norm with read-only and
  Fortran-ordered results, itertools/functools with float32 loops, uint and int32 ids, tables
  drawn in other orders from the same rng, float64 inside, jax-like functional code, bound
  methods of one object as module-level aliases, np.bincount / one-hot / csr_matrix backwards,
  a frozen dataclass with functools.partial, a class whose __call__ is embed, NumPy's own
  errors where they have the right type), notebooks (``.ipynb``: one with IPython magics
  and ``display()``, one whose demo cells raise IndexError and NameError, one with Markdown and raw cells, plots,
  %%time and ?name help lines, one pasted together: indented cells (methods out of a class,
  spaces and tabs) and ``>>> `` / ``In [3]:`` prompts with output lines, a Colab export: form
  fields, ``!pip``, ``%cd`` and a ``google.colab`` drive mount, which fails as an import outside
  the list, its cell only), and real-world styles written in their manner: CS231n layers
  (forward/backward with a cache, an Embedding class), loops per sequence and position,
  StackOverflow's pure-Python cosine, picoGPT's wte/wpe functions and a package folder
  (``__init__.py`` re-exporting its modules); a torch-like Module class with module-level
  wrappers, lambdas and functools.partial as contract functions, decorators reading
  inspect.signature with singledispatch vectors, rng passed through np.random.default_rng with
  np.take, full-size tables and an argparse __main__ block at import
  (tests/workflow/test_real_styles.py grades them with both tools, with format variants of
  ``numpy_naive.py`` kept in tests/workflow/real_styles/: copies of its code, which the copy
  flags rightly pair with it). Each must get full marks from andrea-conform and andrea-grade.
* ``buggy/*.py``: one file per bug class. Each holds only what differs from
  ``correct/numpy_naive.py`` (the functions it redefines, appended to that module's source),
  and two header lines: ``# bug: <what is wrong>`` and ``# fails: <check ids>``, the exact set
  of checks the bug must fail; every other check must pass.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = HERE / "correct" / "numpy_naive.py"

VECTOR_FUNCTIONS = {"dot", "norm", "cosine_similarity"}


def correct_files() -> list[Path]:
    """Modules, notebooks and package folders (anything a student may hand in)."""
    return sorted(p for p in (HERE / "correct").iterdir()
                  if (p.suffix in (".py", ".ipynb") and p.name != "__init__.py")
                  or (p.is_dir() and (p / "__init__.py").is_file()))


@dataclass(frozen=True)
class Buggy:
    path: Path
    bug: str
    fails: frozenset[str]

    @property
    def name(self) -> str:
        return self.path.stem

    def source(self) -> str:
        """The whole submission: the correct base with this file's definitions appended."""
        return (BASE.read_text(encoding="utf-8") + f"\n\n# --- {self.path.name}\n"
                + self.path.read_text(encoding="utf-8"))

    def write(self, directory: Path) -> Path:
        out = Path(directory) / f"{self.name}.py"
        out.write_text(self.source(), encoding="utf-8")
        return out

    def affected(self) -> set[str]:
        """Contract functions whose behaviour the edit can change (redefined, or using a
        redefined helper)."""
        base = ast.parse(BASE.read_text(encoding="utf-8"))
        uses = {f.name: {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
                for f in base.body if isinstance(f, ast.FunctionDef)}
        edit = ast.parse(self.path.read_text(encoding="utf-8"))
        changed = {n.name for n in edit.body if isinstance(n, ast.FunctionDef)}
        changed |= {t.id for n in edit.body if isinstance(n, ast.Delete) for t in n.targets
                    if isinstance(t, ast.Name)}
        grew = True
        while grew:
            more = {f for f, names in uses.items() if names & changed} - changed
            changed |= more
            grew = bool(more)
        return changed

    def select(self, checks) -> list[str]:
        """Ids of the checks that can see the edit: every check that requires an affected
        function, and every vector check when a vector function is affected (the cosine
        checks also consult the implementation's own dot and norm). All other checks call
        only functions of the correct base, and pass as they do for it."""
        hit = self.affected()
        vectors = bool(hit & VECTOR_FUNCTIONS)
        return [c.id for c in checks
                if set(c.requires) & hit or (vectors and set(c.requires) & VECTOR_FUNCTIONS)]


def buggy_cases() -> list[Buggy]:
    cases = []
    for path in sorted((HERE / "buggy").glob("*.py")):
        if path.name == "__init__.py":
            continue
        head = {}
        for line in path.read_text(encoding="utf-8").splitlines()[:5]:
            if line.startswith("# ") and ":" in line:
                key, _, value = line[2:].partition(":")
                head[key.strip()] = value.strip()
        if "bug" not in head or "fails" not in head:
            raise ValueError(f"{path}: needs '# bug:' and '# fails:' header lines")
        cases.append(Buggy(path, head["bug"],
                           frozenset(x.strip() for x in head["fails"].split(",") if x.strip())))
    return cases
