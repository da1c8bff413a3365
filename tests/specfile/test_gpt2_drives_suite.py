"""The spec file is the single source of truth: spec/gpt2-small.yaml describes GPT-2 small as
GPT-2 really is (V = 50257, tied embeddings, init N(0, 0.02²)), nothing else in the project
knows those numbers, and the whole suite follows it. A submission written to GPT-2's spec
conforms to it and not to ANDREA's; ANDREA's reference conforms to ANDREA's and not to GPT-2's."""

from __future__ import annotations

import ast
import tokenize
from pathlib import Path

import pytest

from graders.conformance.runner import PASSED, SKIPPED, load_impl, run_checks
from spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
GPT2_SUBMISSION = ROOT / "examples/submissions/gpt2_small_student.py"


def _failing_clauses(impl, spec_name: str) -> set[str]:
    results = run_checks(impl, load_spec(spec_name), profile="dev")
    return {c for r in results if r.status not in (PASSED, SKIPPED) for c in r.clauses}


@pytest.fixture(scope="module")
def gpt2_submission():
    return load_impl(GPT2_SUBMISSION)


def test_the_gpt2_spec_is_gpt2():
    m = load_spec("gpt2-small").model
    assert (m.vocab_size, m.d_model, m.context_length) == (50257, 768, 1024)
    assert m.tied_embeddings and m.init_std == m.init_std_at(4) == 0.02


def test_gpt2_submission_conforms_to_gpt2_spec(gpt2_submission):
    assert _failing_clauses(gpt2_submission, "gpt2-small") == set()


def test_gpt2_submission_does_not_conform_to_andrea_spec(gpt2_submission):
    assert _failing_clauses(gpt2_submission, "andrea-120m") == {"INIT-DIST-01"}


def test_andrea_reference_does_not_conform_to_gpt2_spec():
    assert _failing_clauses(load_impl("andrea_ref"), "gpt2-small") == {"INIT-DIST-01"}


def test_gpt2_numbers_reach_the_checks(tmp_path):
    """An implementation that is wrong only at GPT-2's V passes ANDREA's spec and fails GPT-2's."""
    path = tmp_path / "hardwired.py"
    path.write_text(
        "from andrea_ref import *\n"
        "import andrea_ref as _r\n"
        "def token_embedding_params(vocab_size, d_model):\n"
        "    return 8449 * d_model if vocab_size == 50257 else _r.token_embedding_params(vocab_size, d_model)\n")
    impl = load_impl(path)
    for name, want in (("andrea-120m", PASSED), ("gpt2-small", "failed")):
        (r,) = run_checks(impl, load_spec(name), profile="dev", select=["PAR-TOKEN-01"])
        assert r.status == want, (name, r.message)


def test_no_code_knows_a_spec_number():
    """The sizes and init std of both specs are numbers in spec/*.yaml only: no number literal
    in the project's code repeats them (prose in strings and comments may quote them)."""
    facts = {50257, 50256, 8449, 8448, 0.02, 124439808, 120000000, 6488832, 7275264, 38597376}
    hits = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("tests", "examples", "benchmarks", ".venv", "build") or \
                rel.parts[0].startswith(".venv"):      # make pythons' .venv-py3.X too
            continue
        with path.open("rb") as f:
            for tok in tokenize.tokenize(f.readline):
                if tok.type == tokenize.NUMBER and _value(tok.string) in facts:
                    hits.append(f"{rel}:{tok.start[0]}: {tok.line.strip()}")
    assert hits == []


def _value(literal: str):
    try:
        return ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        return None


def test_parameter_check_follows_tied(tmp_path):
    """The tying clause is read the way the spec ties: one extra parameter in the token count
    is 'a tied model saves' under ANDREA's untied spec and 'untying adds' under GPT-2's."""
    path = tmp_path / "plus_one.py"
    path.write_text("from andrea_ref import *\nimport andrea_ref as _r\n"
                    "def token_embedding_params(vocab_size, d_model):\n"
                    "    return _r.token_embedding_params(vocab_size, d_model) + 1\n")
    impl = load_impl(path)
    for name, words in (("andrea-120m", "a tied model saves"),
                        ("gpt2-small", "untying the output projection adds")):
        (r,) = run_checks(impl, load_spec(name), profile="dev", select=["parameter_shares"])
        assert r.status == "failed" and r.message.startswith(words), (name, r.message)
