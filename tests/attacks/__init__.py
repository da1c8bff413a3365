"""Attack corpora, grouped by threat. Each file is one attack class; its docstring (a
notebook: its first cell, a kernel: its first comment) says what it tries and what must
happen. The tests that run them name them by file name (``CORPUS / "fill_storage.py"``),
whatever their threat:

* ``filesystem``: the worker's view and what it may write (storage, the runtime, the
  gradebook, symbolic links, the kit's and the test tooling's files, mount names);
* ``processes``: signals, forks, threads, descriptors, system calls, the kill at close;
* ``memory``: the host's and the grader's memory (processes together, memfds, namespaces,
  unbounded values, replies and parses that grow in the grader);
* ``transport``: the pipe, the frames, the arena and the replay; values and exceptions that
  lie; forged replies and broken checks;
* ``notebooks``: notebooks that attack the notebook reader and the cell loop;
* ``kernels``: CUDA sources against the include check, the compilers and the executor;
* ``reports``: words that attack feedback files, summaries, names and hidden verdicts;
* ``similarity``: copy detection evaded or overloaded.

The bundled examples of ``examples/hostile/`` are the teacher-facing demonstrations.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent
THREATS = ("filesystem", "processes", "memory", "transport", "notebooks", "kernels", "reports",
           "similarity")


class Corpus:
    """``CORPUS / name``: the attack file of that name, in whichever threat's folder."""

    def __truediv__(self, name: str) -> Path:
        found = [ROOT / t / name for t in THREATS if (ROOT / t / name).exists()]
        if len(found) != 1:
            raise FileNotFoundError(f"tests/attacks: {len(found)} attack files named {name!r}")
        return found[0]

    def glob(self, pattern: str) -> list[Path]:
        return sorted(p for t in THREATS for p in (ROOT / t).glob(pattern))


CORPUS = Corpus()


def all_attacks() -> list[Path]:
    """Every attack that is a submission (.py, .ipynb, .cu), of every threat."""
    return [p for p in CORPUS.glob("*") if p.suffix in (".py", ".ipynb", ".cu")]
