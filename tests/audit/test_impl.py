"""`andrea-audit impl`: the traceability matrix, with a fake registry and with andrea_ref."""

import json
from dataclasses import dataclass

from graders.audit.cli import main
from graders.audit.impl import TargetRun, build_matrix, matrix_exit_code
from graders.audit.render import matrix_html, matrix_markdown
from graders.conformance.runner import CheckResult


@dataclass
class FakeCheck:
    id: str
    clauses: tuple


CHECKS = [FakeCheck("lookup_selects_row", ("EMB-LOOKUP-01",)),
          FakeCheck("lookup_shape", ("EMB-LOOKUP-03", "EMB-DTYPE-01")),
          FakeCheck("token_params", ("PAR-TOKEN-01",)),
          FakeCheck("ghost", ("NOPE-CLAUSE-01",))]


def fake_runner(target, spec, profile, select=None):
    if target == "broken":
        return TargetRun(target, error="broken: cannot import (No module named 'broken')")
    run = TargetRun(target)
    for c in CHECKS:
        status = "passed"
        if target == "buggy" and c.id == "lookup_selects_row":
            status = "failed"
        if target == "buggy" and c.id == "token_params":
            status = "error"
        run.results[c.id] = CheckResult(c.id, c.clauses, status,
                                       message="lookup(ids=[3]) returned row 2, want row 3"
                                       if status == "failed" else "CallTimeout: 5 s",
                                       example="Falsifying example: ids=array([3])",
                                       reproducer="impl.lookup(table, np.array([3]))")
    return run


def rows(m):
    return {r["id"]: r for r in m["clauses"]}


def test_matrix_statuses_with_a_fake_registry(spec):
    m = build_matrix(spec, ["good", "buggy", "broken"], checks=CHECKS, runner=fake_runner)
    r = rows(m)
    assert r["EMB-LOOKUP-01"]["checks"] == ["lookup_selects_row"]
    assert r["EMB-LOOKUP-01"]["results"]["good"]["status"] == "pass"
    cell = r["EMB-LOOKUP-01"]["results"]["buggy"]
    assert cell["status"] == "fail"
    assert cell["failures"][0]["example"] == "Falsifying example: ids=array([3])"
    assert r["PAR-TOKEN-01"]["results"]["buggy"]["status"] == "error"
    assert r["EMB-DTYPE-01"]["results"]["buggy"]["status"] == "pass"
    assert r["EMB-LOOKUP-01"]["results"]["broken"]["status"] == "error"
    # uncovered clauses and clauses covered by the spec audit
    assert r["EMB-COMB-01"]["results"]["good"]["status"] == "not covered"
    assert "EMB-COMB-01" in m["uncovered"] and "CFG-TOTAL-01" not in m["uncovered"]
    assert r["CFG-TOTAL-01"]["covered_by"] == "andrea-audit spec"
    assert r["CFG-TOTAL-01"]["results"]["broken"] == {"status": "pass", "via": "andrea-audit spec",
                                                      "failures": []}
    assert m["unknown_clauses"] == [("ghost", "NOPE-CLAUSE-01")]
    assert m["summary"]["good"]["pass"] == 4 + 7        # 4 checked clauses + 7 spec clauses
    assert matrix_exit_code(m) == 1


def test_exit_code_and_strict(spec):
    m = build_matrix(spec, ["good"], checks=CHECKS, runner=fake_runner)
    assert matrix_exit_code(m) == 0
    assert matrix_exit_code(m, strict=True) == 1        # uncovered clauses exist


def test_renderings(spec):
    m = build_matrix(spec, ["good", "buggy"], checks=CHECKS, runner=fake_runner)
    md = matrix_markdown(m)
    assert "| EMB-LOOKUP-01 | Token id i selects row i" in md
    assert "| `lookup_selects_row` | pass | FAIL |" in md
    assert "returned row 2, want row 3" in md and "Falsifying example" in md
    assert "| CFG-TOTAL-01 |" in md and "pass (spec audit)" in md
    page = matrix_html(m)
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert '<td class="fail">FAIL' in page and '<td class="not-covered">' in page
    assert "<script" not in page and "http" not in page.split("<body>")[0]
    json.dumps(m)                                         # plain data


def test_andrea_ref_and_a_buggy_copy(spec, tmp_path):
    buggy = tmp_path / "buggy_params.py"
    buggy.write_text("from andrea_ref import *\n"
                     "from andrea_ref import token_embedding_params as _t\n"
                     "def token_embedding_params(vocab_size, d_model):\n"
                     "    return _t(vocab_size, d_model) + 1\n", encoding="utf-8")
    m = build_matrix(spec, ["andrea_ref", str(buggy)], profile="dev", select=["PAR-*"])
    r = rows(m)
    assert r["PAR-POS-01"]["results"]["andrea_ref"]["status"] == "pass"
    assert r["PAR-TOKEN-01"]["results"]["andrea_ref"]["status"] == "pass"
    bad = r["PAR-TOKEN-01"]["results"][str(buggy)]
    assert bad["status"] == "fail" and bad["failures"][0]["message"]
    assert r["EMB-LOOKUP-01"]["results"]["andrea_ref"]["status"] == "not selected"


def test_cli_writes_three_files(tmp_path, capsys):
    out = tmp_path / "matrix"
    rc = main(["impl", "andrea_ref", "--select", "PAR-TOKEN-01", "--profile", "dev",
               "--out", str(out)])
    assert rc == 0
    assert sorted(p.name for p in out.iterdir()) == ["audit-impl.html", "audit-impl.json",
                                                     "audit-impl.md"]
    data = json.loads((out / "audit-impl.json").read_text(encoding="utf-8"))
    assert rows(data)["PAR-TOKEN-01"]["results"]["andrea_ref"]["status"] == "pass"
    assert "andrea_ref:" in capsys.readouterr().out


def test_cli_errors(tmp_path, capsys):
    assert main(["impl", "andrea_ref", "--format", "pdf"]) == 2
    assert "--format" in capsys.readouterr().err
    assert main(["impl", "andrea_ref", "--select", "NO-SUCH-*"]) == 2
    assert "NO-SUCH-*" in capsys.readouterr().err
    rc = main(["impl", str(tmp_path / "nothing.py"), "--select", "PAR-TOKEN-01",
               "--format", "json"])
    assert rc == 2          # a target that does not exist is a usage error, not a finding
    captured = capsys.readouterr()
    assert captured.out == "" and "nothing.py: no such file" in captured.err
