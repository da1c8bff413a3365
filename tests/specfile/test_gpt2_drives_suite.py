"""The suite is generic over specs: GPT-2 small's numbers drive the same checks."""

from spec import load_spec

from graders.conformance.runner import PASSED, SKIPPED, clause_status, load_impl, run_checks


def test_reference_conforms_to_gpt2_spec():
    spec = load_spec("gpt2-small")
    results = run_checks(load_impl("andrea_ref"), spec, profile="dev")
    bad = [f"{r.check_id}: {r.message}" for r in results if r.status not in (PASSED, SKIPPED)]
    assert not bad, bad


def test_gpt2_numbers_reach_the_checks(tmp_path):
    """An implementation that is wrong only at GPT-2's V passes ANDREA's spec and fails GPT-2's."""
    path = tmp_path / "hardwired.py"
    path.write_text(
        "from andrea_ref import *\n"
        "import andrea_ref as _r\n"
        "def token_embedding_params(vocab_size, d_model):\n"
        "    return 8449 * d_model if vocab_size == 50257 else _r.token_embedding_params(vocab_size, d_model)\n")
    impl = load_impl(path)
    andrea = clause_status(run_checks(impl, load_spec(), profile="dev", select=["PAR-TOKEN-01"]))
    gpt2 = clause_status(run_checks(impl, load_spec("gpt2-small"), profile="dev",
                                    select=["PAR-TOKEN-01"]))
    assert andrea["PAR-TOKEN-01"] == "passed"
    assert gpt2["PAR-TOKEN-01"] == "failed"
