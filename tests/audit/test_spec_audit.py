"""`andrea-audit spec` on the bundled specs and on broken copies."""

import json

import pytest

from graders.audit.cli import main
from graders.audit.spec_audit import audit_spec
from spec import SPEC_DIR, load_spec

from .conftest import edited_copy

GOOD = (SPEC_DIR / "andrea-120m.yaml").read_text(encoding="utf-8")


def copy_with(tmp_path, *edits, name="edited.yaml"):
    return edited_copy(GOOD, edits, tmp_path / name, "the spec")


@pytest.mark.parametrize("name", ["andrea-120m", "gpt2-small"])
def test_bundled_specs_are_consistent(name, capsys):
    assert main(["spec", name]) == 0
    r = audit_spec(name)
    kinds = {c.kind for c in r.checks}
    assert kinds == {"quantity", "statement", "coverage", "contract"} and all(c.ok for c in r.checks)
    # every function of the contract is called by some check
    assert {c.subject for c in r.checks if c.kind == "contract"} == set(load_spec(name).contract.names)
    # every quantity recomputed, every method-"spec" clause accounted for
    assert sum(c.kind == "quantity" for c in r.checks) == 7
    assert {c.subject for c in r.checks if c.kind == "coverage"} == {
        "CFG-VOCAB-01", "CFG-DMODEL-01", "CFG-CONTEXT-01", "CFG-TOTAL-01", "PAR-SHARE-01",
        "PAR-SHARE-02", "PAR-UNTIED-01"}


def test_broken_arithmetic_reports_every_problem(tmp_path, capsys):
    p = copy_with(tmp_path, ("    value: 786432\n", "    value: 786433\n"),
                  ("    value: 5.4\n", "    value: 5.5\n"))
    assert main(["spec", str(p)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"invalid spec {p}:")
    assert "position_table_params: states 786433" in out
    assert "token_table_share_percent: states 5.5" in out
    assert len(out.strip().splitlines()) == 1            # one paragraph


def test_schema_violation(tmp_path, capsys):
    p = copy_with(tmp_path, ("  d_model: 768\n", "  d_model: many\n"))
    assert main(["spec", str(p)]) == 1
    assert "model/d_model" in capsys.readouterr().out


def test_not_yaml_and_missing_file(tmp_path, capsys):
    p = tmp_path / "bad.yaml"
    p.write_text("model: [unclosed\n", encoding="utf-8")
    assert main(["spec", str(p)]) == 1
    assert "not valid YAML" in capsys.readouterr().out
    # a spec that is not there is a usage error, as for every other command: exit 2, one line
    assert main(["spec", str(tmp_path / "none.yaml")]) == 2
    err = capsys.readouterr().err
    assert "none.yaml: " in err and "no such file" in err and "Traceback" not in err
    assert main(["spec", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_stale_statements_after_an_edit(tmp_path, capsys):
    # vocab_size edited and every quantity updated, but the clause statements were not
    p = copy_with(tmp_path,
                  ("  vocab_size: 8449 ", "  vocab_size: 8450 "),
                  ("    expr: vocab_size * d_model\n    value: 6488832\n    clause: PAR-TOKEN-01",
                   "    expr: vocab_size * d_model\n    value: 6489600\n    clause: PAR-TOKEN-01"),
                  ("    value: 7275264\n", "    value: 7276032\n"),
                  ("    expr: vocab_size * d_model\n    value: 6488832\n    clause: PAR-UNTIED-01",
                   "    expr: vocab_size * d_model\n    value: 6489600\n    clause: PAR-UNTIED-01"))
    assert main(["spec", str(p), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["error"] is None and not data["ok"]
    bad = sorted((c["subject"], c["detail"]) for c in data["checks"] if not c["ok"])
    assert [s for s, _ in bad] == ["CFG-VOCAB-01", "CFG-VOCAB-01", "PAR-EMB-01", "PAR-TOKEN-01"]
    assert any("'8449'" in d and "8,450" in d for s, d in bad)


def test_markdown_output(capsys):
    assert main(["spec", "andrea-120m", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| ok | quantity | embedding_params | PAR-EMB-01 |" in out
