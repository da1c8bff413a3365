"""`andrea-audit docs` on the two real course documents and on altered copies of them."""

import json
from pathlib import Path

import pytest

from graders.audit.cli import main
from graders.audit.docs import audit_document, detect_language

from .conftest import edited_copy


def problems(report):
    return sorted((f.kind, f.check, f.line, f.column, f.clause)
                  for f in report.findings if f.kind != "ok")


def alter(src: Path, tmp_path: Path, *edits: tuple[str, str], name: str = "altered.txt") -> Path:
    return edited_copy(src.read_text(encoding="utf-8"), edits, tmp_path / name, str(src))


def finding_at(report, line, column, kind=None, check="value"):
    hits = [f for f in report.findings if f.line == line and f.column == column
            and f.check == check and (kind is None or f.kind == kind)]
    assert hits, f"no {check} finding at {line}:{column}: {problems(report)}"
    return hits[0]


# ---------------------------------------------------------------------- the real documents
def test_dutch_document_findings(nl_doc, spec):
    r = audit_document(nl_doc, spec)
    assert (r.lang, r.locale, r.lang_detected) == ("nl", "nl", True)
    assert problems(r) == sorted([
        ("mismatch", "value", 53, 83, "PAR-EMB-01"),        # 7.27M, spec 7.28M
        ("mismatch", "arithmetic", 53, 83, "PAR-EMB-01"),   # 6.49M + 0.79M = 7.28M, not 7.27M
        ("ambiguous", "value", 50, 17, "CFG-CONTEXT-01"),   # 1,024 (nl: 1.024)
        ("ambiguous", "value", 52, 16, "PAR-POS-01"),       # 786,432
        ("ambiguous", "value", 53, 1, "PAR-POS-01"),        # 0.79M
        ("ambiguous", "value", 53, 67, "PAR-TOKEN-01"),     # 6.49M
        ("ambiguous", "value", 53, 75, "PAR-POS-01"),       # 0.79M
        ("ambiguous", "value", 62, 27, "CFG-VOCAB-01"),     # 8,449 × 768
        ("ambiguous", "value", 62, 41, "PAR-TOKEN-01"),     # 6,488,832
        ("ambiguous", "value", 63, 30, "CFG-CONTEXT-01"),   # 1,024 × 768
        ("ambiguous", "value", 63, 44, "PAR-POS-01"),       # 786,432
        ("ambiguous", "value", 64, 12, "PAR-EMB-01"),       # 7,275,264
    ])
    a = finding_at(r, 50, 17)
    assert (a.text, a.value_locale, a.expected) == ("1,024", "1.024", "1,024")
    m = finding_at(r, 53, 83)
    assert m.text == "7.27M" and m.expected.startswith("7,280,000")
    # the Dutch text states the init scale correctly
    init = [f for f in r.findings if f.clause == "INIT-DIST-01"]
    assert [(f.kind, f.line, f.text) for f in init] == [("ok", 11, "1/sqrt(d_model)")]
    # rounded restatements read correctly under the Dutch locale
    ok = {(f.line, f.text): f for f in r.findings if f.kind == "ok"}
    assert ok[(18, "6,5 miljoen")].clause == "PAR-TOKEN-01"
    assert ok[(18, "5,4 %")].clause == "PAR-SHARE-01"
    assert ok[(65, "7,3M")].clause == "PAR-EMB-01"
    assert ok[(65, "120M")].clause == "CFG-TOTAL-01"
    assert ok[(17, "6.488.832")].value == "6,488,832"


def test_korean_document_findings(ko_doc, spec):
    r = audit_document(ko_doc, spec)
    assert (r.lang, r.locale) == ("ko", "ko")
    assert problems(r) == sorted([
        ("mismatch", "phrase", 11, 34, "INIT-DIST-01"),     # "d_model의 제곱근으로 스케일링된"
        ("mismatch", "value", 53, 59, "PAR-EMB-01"),
        ("mismatch", "arithmetic", 53, 59, "PAR-EMB-01"),
    ])
    ok = {(f.line, f.text): f for f in r.findings if f.kind == "ok"}
    assert ok[(18, "650만")].value == "6,500,000"
    assert ok[(65, "730만")].clause == "PAR-EMB-01"
    assert ok[(65, "1억 2천만")].clause == "CFG-TOTAL-01"
    assert ok[(62, "8,449")].clause == "CFG-VOCAB-01"


def test_every_number_is_listed(nl_doc, ko_doc, spec):
    for doc in (nl_doc, ko_doc):
        r = audit_document(doc, spec)
        text = doc.read_text(encoding="utf-8").splitlines()
        # each listed number is really at its line and column
        for n in r.numbers:
            assert text[n.line - 1][n.column - 1:].startswith(n.text), n
        roles = {n.role for n in r.numbers}
        assert "citation year" in roles and "name (ANDREA-120M)" in roles
        assert len(r.numbers) > 60


def test_language_detection(nl_doc, ko_doc):
    assert detect_language(nl_doc.read_text(encoding="utf-8")) == "nl"
    assert detect_language(ko_doc.read_text(encoding="utf-8")) == "ko"
    assert detect_language("The token table has one row for each id in the vocabulary.") == "en"


# ---------------------------------------------------------------------- altered copies
@pytest.mark.parametrize("doc, old, new, line, col, clause", [
    ("nl", "| Parameters | 6.488.832 |", "| Parameters | 6.488.823 |", 17, 16, "PAR-TOKEN-01"),
    ("ko", "| V | 8,449 |", "| V | 8,459 |", 15, 7, "CFG-VOCAB-01"),
    ("ko", "| 위치 임베딩 테이블 | 1,024 × 768 |", "| 위치 임베딩 테이블 | 1,024 × 786 |",
     63, 24, "CFG-DMODEL-01"),
    ("nl", "ongeveer 5,4 %", "ongeveer 5,9 %", 18, 102, "PAR-SHARE-01"),
    ("ko", "나머지 94%", "나머지 93%", 65, 72, "PAR-SHARE-02"),
    ("ko", "대략 650만", "대략 640만", 18, 17, "PAR-TOKEN-01"),
    ("ko", "약 1억 2천만", "약 1억 3천만", 65, 44, "CFG-TOTAL-01"),
    ("ko", "대략 730만", "대략 73만", 65, 4, "PAR-EMB-01"),
    ("nl", "Ongeveer 7,3M", "Ongeveer 7,2M", 65, 10, "PAR-EMB-01"),
    ("nl", "T tot 1024", "T tot 2048", 46, 54, "CFG-CONTEXT-01"),
    ("nl", "..., e_0_767]", "..., e_0_766]", 6, 32, "CFG-DMODEL-01"),
    ("ko", "... + v_767²)", "... + v_766²)", 24, 36, "CFG-DMODEL-01"),
])
def test_each_alteration_is_caught(doc, old, new, line, col, clause, nl_doc, ko_doc, spec,
                                   tmp_path):
    src = nl_doc if doc == "nl" else ko_doc
    before = problems(audit_document(src, spec))
    r = audit_document(alter(src, tmp_path, (old, new)), spec)
    f = finding_at(r, line, col, kind="mismatch")
    assert f.clause == clause
    assert f.text in new
    # the alteration adds exactly this finding; everything else is as before
    added = [p for p in problems(r) if p not in before]
    assert added == [("mismatch", "value", line, col, clause)]


def test_broken_sum_is_caught_even_when_the_total_is_right(ko_doc, spec, tmp_path):
    # operands changed, result corrected: the operand and the text's own sum are wrong
    path = alter(ko_doc, tmp_path, ("6.49M + 0.79M = 총 임베딩 파라미터 7.27M",
                                    "6.49M + 0.69M = 총 임베딩 파라미터 7.28M"))
    r = audit_document(path, spec)
    arith = finding_at(r, 53, 59, check="arithmetic")
    assert arith.kind == "mismatch" and arith.expected == "7,180,000"
    assert finding_at(r, 53, 40).kind == "mismatch"          # 0.69M against PAR-POS-01
    assert finding_at(r, 53, 59).kind == "ok"                # 7.28M agrees with the spec


def test_wrong_init_scale_in_dutch(nl_doc, spec, tmp_path):
    path = alter(nl_doc, tmp_path, ("geschaald met 1/sqrt(d_model)", "geschaald met sqrt(d_model)"))
    r = audit_document(path, spec)
    f = finding_at(r, 11, 125, check="phrase")
    assert (f.kind, f.clause, f.text) == ("mismatch", "INIT-DIST-01", "sqrt(d_model)")


def test_corrected_documents_exit_zero(nl_doc, ko_doc, tmp_path, capsys):
    ko = alter(ko_doc, tmp_path, ("d_model의 제곱근으로 스케일링된", "1/sqrt(d_model)로 스케일링된"),
               ("= 총 임베딩 파라미터 7.27M", "= 총 임베딩 파라미터 7.28M"), name="ko.txt")
    nl = alter(nl_doc, tmp_path,
               ("| T (context) | 1,024 |", "| T (context) | 1.024 |"),
               ("| Parameters | 786,432 |", "| Parameters | 786.432 |"),
               ("0.79M parameters voor", "0,79M parameters voor"),
               ("6.49M + 0.79M = 7.27M", "6,49M + 0,79M = 7,28M"),
               ("| 8,449 × 768 | 6,488,832 |", "| 8.449 × 768 | 6.488.832 |"),
               ("| 1,024 × 768 | 786,432 |", "| 1.024 × 768 | 786.432 |"),
               ("| 7,275,264 |", "| 7.275.264 |"), name="nl.txt")
    assert main(["docs", str(ko), str(nl), "--strict"]) == 0
    out = capsys.readouterr().out
    assert "0 mismatch, 0 ambiguous, 0 unverified" in out


def test_ambiguity_fails_only_with_strict(nl_doc, tmp_path):
    path = alter(nl_doc, tmp_path, ("6.49M + 0.79M = 7.27M", "6.49M + 0.79M = 7.28M"))
    assert main(["docs", str(path), "--no-numbers"]) == 0
    assert main(["docs", str(path), "--no-numbers", "--strict"]) == 1


# ---------------------------------------------------------------------- the command line
def test_cli_json_has_findings_and_numbers(nl_doc, ko_doc, capsys):
    assert main(["docs", str(nl_doc), str(ko_doc), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [f["lang"] for f in data["files"]] == ["nl", "ko"]
    assert data["summary"]["mismatch"] == 5 and data["summary"]["ambiguous"] == 10
    f = next(x for x in data["files"][0]["findings"] if x["kind"] == "ambiguous")
    assert {"file", "line", "column", "text", "value", "value_locale", "clause", "expected",
            "kind"} <= f.keys()
    assert all({"line", "column", "text", "value", "role"} <= n.keys()
               for n in data["files"][1]["numbers"])


def test_cli_markdown_and_forced_language(ko_doc, capsys):
    assert main(["docs", str(ko_doc), "--format", "markdown", "--lang", "ko"]) == 1
    out = capsys.readouterr().out
    assert "| mismatch | 11:34 |" in out and "Every number read" in out


def test_cli_bad_input_is_a_clear_error(tmp_path, capsys):
    assert main(["docs", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt: no such file" in capsys.readouterr().err
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    assert main(["docs", str(bad)]) == 2
    assert "latin1.txt: not UTF-8" in capsys.readouterr().err
    assert main(["docs", str(bad), "--lang", "fr"]) == 2
    assert "--lang" in capsys.readouterr().err
    assert main(["docs", str(bad), "--spec", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml" in capsys.readouterr().err
