"""The spec loader: valid specs load; every kind of bad file gets one paragraph naming the
file, the place and the problem."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from spec import SPEC_DIR, SpecError, load_spec

ANDREA = SPEC_DIR / "andrea-120m.yaml"


def test_andrea_numbers_are_the_course_numbers():
    s = load_spec()
    m = s.model
    assert (m.vocab_size, m.d_model, m.context_length) == (8449, 768, 1024)
    assert m.tied_embeddings is False and m.position_encoding == "learned"
    assert m.init_std == pytest.approx(1 / math.sqrt(768))
    q = {k: v.value for k, v in s.quantities.items()}
    assert q["token_table_params"] == 6_488_832
    assert q["position_table_params"] == 786_432
    assert q["embedding_params"] == 7_275_264
    assert (q["token_table_share_percent"], q["embedding_share_percent"]) == (5.4, 6)


def test_every_clause_is_unique_and_sourced():
    s = load_spec()
    ids = [c.id for c in s.clauses]
    assert len(ids) == len(set(ids))
    for c in s.clauses:
        assert c.source in s.sections
        assert set(s.sections[c.source]) >= {"en", "nl", "ko"}


def test_gpt2_spec_loads_with_its_own_numbers():
    s = load_spec("gpt2-small")
    assert s.model.vocab_size == 50257 and s.model.tied_embeddings
    assert s.quantities["token_table_params"].value == 50257 * 768


def _write(tmp_path: Path, mutate) -> Path:
    raw = yaml.safe_load(ANDREA.read_text(encoding="utf-8"))
    mutate(raw)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _clause(raw, cid):
    return next(c for c in raw["clauses"] if c["id"] == cid)


BROKEN = {
    "missing field": (lambda r: r["model"].pop("d_model"), r"model: 'd_model' is a required"),
    "wrong type": (lambda r: r["model"].__setitem__("vocab_size", "8449"), r"model/vocab_size"),
    "bad clause id": (lambda r: _clause(r, "EMB-LOOKUP-01").__setitem__("id", "lookup1"),
                      r"clauses/\d+/id"),
    "unknown method": (lambda r: _clause(r, "EMB-LOOKUP-01").__setitem__("method", "vibes"),
                       r"clause EMB-LOOKUP-01"),
    "unknown section": (lambda r: _clause(r, "EMB-LOOKUP-01").__setitem__("source", "nowhere"),
                        r"clause EMB-LOOKUP-01: source 'nowhere' is not a section"),
    "unknown group": (lambda r: _clause(r, "BWD-TOK-01").__setitem__("group", "misc"),
                      r"clause BWD-TOK-01: group 'misc' is not a group"),
    "duplicate clause": (lambda r: r["clauses"].append(dict(_clause(r, "INIT-RNG-01"))),
                         r"clause INIT-RNG-01: duplicate clause id"),
    "wrong count": (lambda r: r["quantities"]["embedding_params"].__setitem__("value", 7275265),
                    r"quantities/embedding_params: states 7275265 but"),
    "wrong share": (lambda r: r["quantities"]["token_table_share_percent"].__setitem__("value", 5.5),
                    r"token_table_share_percent: states 5.5 but .* rounds to 5.4"),
    "dangling clause": (lambda r: r["quantities"]["embedding_params"].__setitem__("clause", "PAR-XX-01"),
                        r"clause 'PAR-XX-01' does not exist"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_spec_is_refused_with_one_paragraph(case, tmp_path):
    mutate, pattern = BROKEN[case]
    path = _write(tmp_path, mutate)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    text = str(info.value)
    assert text.startswith(f"invalid spec {path}: ")
    assert "\n" not in text and "Traceback" not in text
    assert re.search(pattern, text), text


def test_yaml_syntax_error_names_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("spec_version: 1\nmodel: [unclosed\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"bad.yaml: not valid YAML at line \d+, column \d+"):
        load_spec(path)


def test_duplicate_yaml_key_is_an_error_not_last_wins(tmp_path):
    text = ANDREA.read_text(encoding="utf-8").replace("  d_model: 768\n", "  d_model: 768\n  d_model: 512\n", 1)
    path = tmp_path / "dup.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match="duplicate key 'd_model'"):
        load_spec(path)


def test_unknown_name_lists_the_bundled_specs():
    with pytest.raises(SpecError, match="bundled: andrea-120m, gpt2-small"):
        load_spec("gpt3")
