"""The conformance suite on andrea_gpu's kernels through the CPU executor (and as a submission)."""

from __future__ import annotations

from andrea_gpu.backend import KERNEL_DIR
from andrea_gpu.submission import load_kernel_submission
from graders.conformance.registry import all_checks
from graders.conformance.runner import load_impl, run_checks
from spec import load_spec


def _failures(results):
    return [f"{r.check_id} [{r.status}]: {r.message}\n{r.example or ''}"
            for r in results if r.status not in ("passed", "skipped")]


def test_andrea_gpu_passes_the_conformance_suite_on_the_cpu_executor():
    impl = load_impl("andrea_gpu")
    assert impl.engine().be.name == "cpu"
    # "dev" (10 examples per check): the suite's own Hypothesis drawing, not the executor,
    # dominates its run time, and the test budget of tests/gpu is about a minute on 2 cores.
    results = run_checks(impl, load_spec(), profile="dev", target="andrea_gpu")
    assert results and not _failures(results), "\n".join(_failures(results))
    skipped = {r.check_id for r in results if r.status == "skipped"}
    # only the optional position-encoding functions, which andrea_gpu does not provide
    assert all(r.message.startswith("optional function") for r in results
               if r.check_id in skipped)
    assert sum(r.status == "passed" for r in results) >= 30


def test_andrea_gpu_kernels_as_a_submission_pass_the_kernel_groups():
    """The contract entry points of embedding.cu, loaded as a student's file would be."""
    spec = load_spec()
    sub = load_kernel_submission(KERNEL_DIR / "embedding.cu", backend="cpu", spec=spec)
    chosen = [c.id for c in all_checks()
              if any(spec.clause(cl).group in ("lookup", "embed", "backward") for cl in c.clauses)]
    assert len(chosen) >= 10
    results = run_checks(sub, spec, profile="dev", select=chosen, target="embedding.cu")
    assert not _failures(results), "\n".join(_failures(results))
