"""Formulas in course text, evaluated with the spec's values (no eval); the lexicon file and
its schema; the audit's time, linear in the document's length."""

from __future__ import annotations

import math
import time

import pytest
import yaml

from graders.audit import lexicon as lex
from graders.audit.docs import audit_text
from graders.audit.formulas import FormulaReader

SYMBOLS = {"V": "vocab_size", "T": "context_length", "d_model": "d_model"}
WORDS = [("{x}의 제곱근", "sqrt({x})"), ("wortel van {x}", "sqrt({x})")]


@pytest.fixture(scope="module")
def reader(spec):
    return FormulaReader(SYMBOLS, spec.model.fields(), "nl", WORDS)


@pytest.mark.parametrize("text, expr, value", [
    ("dezelfde V × d_model-matrix", "vocab_size * d_model", 8449 * 768),
    ("bespaart d_model² parameters", "d_model **2", 768 ** 2),
    ("T × d_model = 786.432", "context_length * d_model", 1024 * 768),
    ("geschaald met 1/sqrt(d_model).", "1 / sqrt(d_model )", 1 / math.sqrt(768)),
    ("met 1/√d_model", "1 / sqrt(d_model )", 1 / math.sqrt(768)),
    ("(V + T) · d_model", "(vocab_size + context_length ) * d_model", 9473 * 768),
    ("d_model^2", "d_model ** 2", 768 ** 2),
    ("8.449 × 768 parameters", "8449 * 768", 8449 * 768),     # Dutch separators
    ("d_model의 제곱근으로", "sqrt(d_model)", math.sqrt(768)),
    ("de wortel van d_model", "sqrt(d_model)", math.sqrt(768)),
])
def test_formulas_are_read_and_evaluated(reader, text, expr, value):
    (f,) = reader.find(text)
    assert f.expr == expr and math.isclose(f.value, value)
    assert text[f.start:f.end] == f.text


@pytest.mark.parametrize("text", [
    "x_t = token_embedding[token_id_t] + position_embedding[t]",
    "||v|| = sqrt(v_0² + v_1² + ... + v_767²)",
    "u · v = u_0 × v_0 + u_1 × v_1",
    "activiteiten 5-7",
    "een d_model-dimensionale ruimte",
    "vorm: (V, d_model)",
    "T tot 1024",
    "__import__('os').system('x') + V",
    "V.__class__ × d_model",
])
def test_what_is_not_a_formula_over_the_spec(reader, text):
    for f in reader.find(text):
        assert set(f.expr.replace("sqrt", "").split()) & {"__import__", "__class__", "os"} == set()
        assert "v_0" not in f.text and "token_embedding" not in f.text


def test_the_bundled_lexicon_validates():
    lex.load_lexicon.cache_clear()
    data = lex.load_lexicon()
    assert {c["clause"] for c in data["claims"]} >= {"INIT-DIST-01", "PAR-UNTIED-01",
                                                     "EMB-LOOKUP-01"}


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["units"]["dims"].update(nl=[3]), "units/dims/nl/0"),
    (lambda d: d["bindings"].append({"unit": "furlongs", "quantity": "d_model"}), "bindings/"),
    (lambda d: d["claims"][0].pop("values"), "claims/0"),
    (lambda d: d.update(lexicon_version=2), "lexicon_version"),
    (lambda d: d["claims"].append(dict(d["claims"][0])), "used twice"),
])
def test_a_broken_lexicon_is_a_clear_error(tmp_path, edit, where):
    data = yaml.safe_load(lex.LEXICON_PATH.read_text(encoding="utf-8"))
    edit(data)
    p = tmp_path / "lexicon.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(lex.LexiconError) as err:
        lex.load_lexicon(str(p))
    assert str(p) in str(err.value) and where in str(err.value)


def test_terms_start_a_word():
    rx = lex.term_pattern(["tied", "행", "gekoppeld"])
    assert not rx.search("untied") and not rx.search("수행") and not rx.search("ontkoppeld")
    assert rx.search("tied embeddings") and rx.search("8,449개의 행을")


def test_the_verdict_follows_the_spec(spec):
    """GPT-2's spec says tied: the course's 'ontkoppelde' is then the contradiction."""
    from spec import load_spec

    text = ("Ontkoppelde vs Gekoppelde Embeddings\n"
            "ANDREA gebruikt ontkoppelde embeddings: aparte matrices.\n")
    andrea = [f for f in audit_text(text, spec, "nl").findings if f.check == "claim"]
    assert andrea == []
    gpt2 = load_spec("gpt2-small")
    text = text.replace("ANDREA", "GPT")
    found = [(f.kind, f.line, f.clause) for f in audit_text(text, gpt2, "nl").findings
             if f.check == "claim"]
    assert ("mismatch", 2, "PAR-UNTIED-01") in found


def test_time_is_linear_in_the_document(nl_doc, ko_doc, spec):
    """CPU time of 2 and of 8 copies of the documents: about 4x, never quadratic (16x)."""
    for doc in (nl_doc, ko_doc):
        text = doc.read_text(encoding="utf-8") + "\n"

        def cpu(n):
            t0 = time.process_time()
            audit_text(text * n, spec)
            return time.process_time() - t0

        cpu(1)
        small, big = cpu(2), cpu(8)
        assert big < 8 * small + 0.3, (small, big)


@pytest.mark.parametrize("unit", ["1 + ", "1 tot en met ", "zeven ", "1억 ", "[1, ", "50% ",
                                  "std 0,02 ", "V × d_model parameters ", "(1,", "V × ",
                                  "e_1", "칠만 "])
def test_a_long_line_of_one_shape_is_linear(unit, spec):
    """A line repeating one shape 300 and 1200 times: about 4x the CPU time, not 16x (nested
    or unbounded patterns, and a scan per number, made such lines quadratic)."""
    def cpu(n):
        text = "Trainbare floats\n" + unit * n + " verdeling getrokken\n"
        t0 = time.process_time()
        audit_text(text, spec, "nl")
        return time.process_time() - t0

    cpu(50)
    small, big = cpu(300), cpu(1200)
    assert big < 8 * small + 0.3, (small, big)
