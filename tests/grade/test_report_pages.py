"""The batch's HTML pages (summary.html, similarity.html, HTML feedback): their structure
(every id a link names exists, every student has a row, links resolve to files the batch wrote,
nothing loaded from elsewhere, no script but the page's own), escaping of hostile names, messages
and code, their language, and, in a real headless browser, that they load without errors, fit
1280 px, sort, and leave a screenshot in build/screenshots/."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from graders.conformance.registry import all_checks
from graders.conformance.runner import CheckResult
from graders.grade.batch import _flag
from graders.grade.batch_reports import (feedback_files, feedback_text, similarity_html,
                                         write_feedback, write_summary)
from graders.grade.class_summary import problem_of
from graders.grade.formats import inert
from graders.grade.report_pages import reference_rows, tamper_rows
from graders.grade.similarity import K
from graders.grade.tamper import tamper_flags
from tests import browser
from tests.html_pages import Page, link_problems, parse
from tests.language import page_text, unreadable

from .test_similarity_fragments import DISGUISED, INDEPENDENT, ORIGINAL
from graders.grade.report import BatchRow, Flag
from tests.grade.reports import report_of

# Names a student controls (file names), each hostile in its own way.
HOSTILE = ['<script>alert("x")</script>.py', "\"'><img src=x onerror=alert(1)>.py",
           "ansi\x1b[31mred\x1b[0m.py", "bidi\u202egnp.py", "학생 名前 é.py", "plain.py",
           "a" * 140 + ".py"]
WRONG = ("{name}[{index}]={got!r}, but should be {want!r} (|error| {error:.3g} > allowed "
         "{allowed:.3g}; {bad} of {size} elements off)")


def _report(spec, name: str, failing: int, *, example: str = "lookup(x)") -> dict:
    """A report as the grader builds it, with `failing` of its checks failed."""
    results = []
    for i, c in enumerate(all_checks()):
        if i < failing:
            results.append(CheckResult(
                c.id, c.clauses, "failed", cause="wrong_value", template=WRONG,
                message="grad[0]=1, but should be 2",
                fields={"name": "grad</code><script>alert(2)</script>", "index": "0," * 150,
                        "got": 1.0, "want": 2.0, "error": 1.0, "allowed": 1e-6, "bad": 1,
                        "size": 1},
                example=example, hint="Repeated ids must accumulate their gradients "
                "(scatter-add); assigning with grad[ids] = ... keeps only the last one.",
                reproducer=f"import numpy as np\nprint({example})"))
        else:
            results.append(CheckResult(c.id, c.clauses, "passed"))
    return report_of(spec, results, name=name)


@pytest.fixture(scope="module")
def batch(spec, tmp_path_factory):
    """A class of hostile names, graded (reports built as the grader builds them), its pages
    written as `andrea-grade batch` writes them."""
    out = tmp_path_factory.mktemp("pages")
    rows = []
    for k, name in enumerate(HOSTILE):
        rep = _report(spec, name, failing=k % 4,
                      example="lookup(table=np.array([[1.0]]), token_ids='```</pre><b>x</b>')")
        rows.append(BatchRow(name, report=rep, score=rep["score"], max_score=rep["max_score"],
                             problem=problem_of(rep)))
    rows.append(BatchRow("broken\x1b.py", problem=problem_of(None, "not a notebook <b>")))
    rows[5].flag_list.append(Flag("reference_copy", {"kind": "reference_copy",
                                                        "similarity": 0.91}))
    rows[6].flag_list += [Flag(f["kind"], f) for f in tamper_flags(
        [("x<b>.py", "import sys\nm = sys.modules  # </code><script>alert(4)</script>\n")])]
    pairs = [(HOSTILE[0], HOSTILE[1], 0.95), (HOSTILE[1], HOSTILE[3], 0.8)]
    _flag(rows, pairs)
    sources = {HOSTILE[0]: [("main.py", ORIGINAL + "\n# </td></tr><script>alert(3)</script>\n"),
                            ("helpers.py", "X = '\x1b[2J'\nY = '" + "y" * 600 + "'\n")],
               HOSTILE[1]: [(HOSTILE[1], DISGUISED)],
               HOSTILE[3]: [(HOSTILE[3], DISGUISED + "\n\u202e = 1\n")],
               HOSTILE[4]: [(HOSTILE[4], INDEPENDENT)],
               HOSTILE[5]: [(HOSTILE[5], _reference_copy())]}
    pages = {}
    for lang in ("en", "nl", "ko"):
        d = out / lang
        write_feedback(d / "feedback", rows, lang, "html")
        links = {n: f"../feedback/{f}" for n, f in feedback_files(rows, "html").items()}
        write_summary(d / "report", rows, "ANDREA-120M", pairs, lang, feedback=links)
        (d / "report" / "similarity.html").write_text(
            similarity_html(pairs, sources, lang, references=reference_rows(rows),
                            tampered=tamper_rows(rows)),
            encoding="utf-8")
        pages[lang] = d
    return {"rows": rows, "pairs": pairs, "pages": pages}


def _reference_copy() -> str:
    from tests.workflow.disguise import disguise, reference_as_one_module

    return disguise(reference_as_one_module(), "m")


def _all_pages(d: Path) -> list[Path]:
    return sorted(d.glob("report/*.html")) + sorted(d.glob("feedback/*.html"))


def _cell_text(cell: list[str]) -> str:
    return " ".join("".join(cell).split())


# ----------------------------------------------------------------------------- structure
def test_every_link_resolves_and_nothing_comes_from_elsewhere(batch):
    d = batch["pages"]["en"]
    parsed = {p.resolve(): parse(p) for p in _all_pages(d)}
    assert len(parsed) == 2 + len(batch["rows"])
    for path, page in parsed.items():
        assert len(page.ids) == len(set(page.ids)), f"{path.name}: an id twice"
        assert page.sources == [] and "link" not in page.tags, path.name
        assert not {"img", "iframe", "object", "embed", "form", "base"} & page.tags, path.name
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"url\(|@import|https?:|//[a-z]", text.split("<body>")[0]), path.name
        assert link_problems(path, parsed) == [], path.name
    assert len(parsed) == 2 + len(batch["rows"])        # no link led to a page not written


def test_the_link_check_finds_links_that_lead_nowhere(tmp_path):
    (tmp_path / "b.html").write_text('<p id="here">x</p>', encoding="utf-8")
    page = tmp_path / "a.html"
    page.write_text('<a id="top" href="#top">1</a><a href="#gone">2</a><a href="b.html#here">3</a>'
                    '<a href="b.html#nope">4</a><a href="c.html">5</a>'
                    '<a href="https://example.org/">6</a><a href="//example.org/x">7</a>',
                    encoding="utf-8")
    assert [p.split(":")[0] for p in link_problems(page)] == [
        "#gone", "b.html#nope", "c.html", "https", "//example.org/x"]


def test_each_page_runs_only_its_own_script_named_in_its_policy(batch):
    for path in _all_pages(batch["pages"]["nl"]):
        page = parse(path)
        policy = dict(p.strip().split(" ", 1) for p in page.policy.split(";") if p.strip())
        assert policy["default-src"] == "'none'" and policy["img-src"] == "data:"
        assert policy["base-uri"] == "'none'"
        allowed = set(policy["script-src"].split())
        assert len(page.scripts) <= 1, path.name
        for script in page.scripts:
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            assert allowed == {f"'sha256-{digest}'"}, path.name
        if not page.scripts:
            assert allowed == {"'none'"}


def test_every_student_has_a_row_with_their_score_and_feedback(batch):
    rows = batch["rows"]
    d = batch["pages"]["en"]
    page = parse(d / "report" / "summary.html")
    body = page.rows["students"][1:-1]
    graded = [r.score for r in rows if r.score is not None]
    mean = page.rows["students"][-1]     # the footer: the mean of the graded, per column
    assert _cell_text(mean[1]) == f"{sum(graded) / len(graded):.2f}"
    assert [_cell_text(r[0]) for r in body] == [" ".join(inert(x.submission).split())
                                                for x in rows]
    files = feedback_files(rows, "html")
    text = (d / "report" / "summary.html").read_text(encoding="utf-8")
    for r, cells in zip(rows, body):
        if r.score is not None:
            assert _cell_text(cells[1]).startswith(str(int(r.score)) if float(
                r.score).is_integer() else str(r.score))
        assert (d / "feedback" / files[r.submission]).is_file()
    # the two pairs, with links into similarity.html, and flags in both rows of a pair
    assert len(page.rows["pairs"]) == 1 + len(batch["pairs"])
    assert text.count('href="similarity.html#pair-1"') >= 3    # two flags and the pair's row
    assert 'href="similarity.html#ref-1"' in text
    # the checks failed most often: most students first
    failed = [int(_cell_text(r[2])) for r in page.rows["failed"][1:]]
    assert failed == sorted(failed, reverse=True) and failed[0] == 5   # k % 4 of 7 fail


def test_similarity_page_highlights_the_same_fragment_on_both_sides(batch):
    path = batch["pages"]["en"] / "report" / "similarity.html"
    text = path.read_text(encoding="utf-8")
    page = parse(path)
    a_side = {i for i in page.ids if re.fullmatch(r"pair-1-a-f\d+", i)}
    b_side = {i for i in page.ids if re.fullmatch(r"pair-1-b-f\d+", i)}
    assert a_side and {i.replace("-a-", "-b-") for i in a_side} == b_side
    # each highlighted line number links to its fragment on the other side, in its colour
    for m in re.finditer(r'<td class="ln m(\d)">(?:<span[^>]*></span>)*'
                         r'<a href="#(pair-1-([ab])-f(\d+))"', text):
        colour, target, side, k = m.groups()
        assert int(colour) == (int(k) - 1) % 8 and target in page.ids
    # the second file of a submission keeps its own line numbers; what was compared is said
    assert "main.py, helpers.py" in text and "<h4><code>helpers.py</code></h4>" in text
    assert f"{K} tokens in a row" in text
    # the reference copy: its fragments name the reference's files, never show its text
    ref = [i for i in page.ids if i.startswith("ref-1-a-f")]
    assert ref and re.search(r"embedding\.py, lines \d+", text)


# ----------------------------------------------------------------------------- escaping
def test_a_reach_into_the_grader_links_to_its_places(batch):
    """A grader_tamper flag: the student's row in summary.html links to its section of
    similarity.html, which names each place (file, line, kind, the code and its line)."""
    name = HOSTILE[6]
    summary = (batch["pages"]["en"] / "report" / "summary.html").read_text(encoding="utf-8")
    assert 'href="similarity.html#tamper-1"' in summary
    assert "reaches into the grader (1 place(s))" in summary
    similar = (batch["pages"]["en"] / "report" / "similarity.html").read_text(encoding="utf-8")
    section = similar[similar.index('id="tamper-1"'):]
    assert name in section and "x&lt;b&gt;.py, line 2" in section and "sys.modules" in section
    assert "<script>alert(4)" not in similar
    nl = (batch["pages"]["nl"] / "report" / "similarity.html").read_text(encoding="utf-8")
    assert "Inzendingen die ingrijpen op de beoordelaar" in nl and "regel 2" in nl


def test_hostile_names_messages_and_code_stay_text(batch):
    for lang, d in batch["pages"].items():
        for path in _all_pages(d):
            text = path.read_text(encoding="utf-8")
            page = parse(path)
            assert "alert(" not in "".join(page.scripts), path.name
            assert not {"img", "b"} & page.tags, path.name      # no tag from a name or message
            assert "<script>alert" not in text and "<img" not in text and "<b>" not in text
            assert "\x1b" not in text and "\u202e" not in text, path.name
    en = batch["pages"]["en"]
    summary = (en / "report" / "summary.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;.py" in summary
    assert "&#34;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;.py" in summary
    assert "ansi\\x1b[31mred\\x1b[0m.py" in summary and "bidi\\u202egnp.py" in summary
    assert "학생 名前 é.py" in summary
    sim = (en / "report" / "similarity.html").read_text(encoding="utf-8")
    assert "# &lt;/td&gt;&lt;/tr&gt;&lt;script&gt;alert(3)&lt;/script&gt;" in sim
    assert "X = &#39;\\x1b[2J&#39;" in sim
    name = feedback_files(batch["rows"], "html")[HOSTILE[3]]    # three checks failed
    feedback = (en / "feedback" / name).read_text(encoding="utf-8")
    assert "grad&lt;/code&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in feedback


def test_html_feedback_keeps_code_as_code_and_prose_as_wrapping_text(spec):
    rep = _report(spec, "hw.py", failing=1, example="embed(token_ids=np.array([[0]]))")
    page = feedback_text(rep, "en", "html", "hw.py")
    parsed = Page(page)
    assert "<pre><code>embed(token_ids=np.array([[0]]))</code></pre>" in page
    assert "<pre><code>import numpy as np\nprint(embed(token_ids=np.array([[0]])))" in page
    hint = re.search(r"<dt>Hint</dt>\s*<dd>([^<]*)</dd>", page)
    assert hint and "scatter-add" in hint.group(1)              # prose, not a <pre> block
    assert re.search(r"dd \{[^}]*white-space: pre-wrap", page)  # and it wraps
    assert re.search(r"pre \{[^}]*white-space: pre-wrap", page)
    assert "h2" in parsed.tags and "dl" in parsed.tags
    # a submission that could not be graded: one sentence, no score
    assert "could not grade" in feedback_text(None, "en", "html", "x.py")


# ----------------------------------------------------------------------------- language
@pytest.mark.parametrize("lang", ["nl", "ko"])
def test_pages_are_in_the_batch_language(batch, lang):
    d = batch["pages"][lang]
    found = {}
    for path in _all_pages(d):
        text = path.read_text(encoding="utf-8")
        assert f'<html lang="{lang}">' in text
        # names are the students' own words: left out of the reading, as code is
        reading = page_text(text)
        for r in batch["rows"]:
            reading = reading.replace(inert(r.submission), " ")
        reading = reading.replace("ANDREA-120M", " ")
        if (bad := unreadable(reading, lang)):
            found[path.name] = bad
    assert not found, found


def test_the_reader_finds_english_pages(batch):
    """The language test can fail: the English pages are foreign to a Dutch reader."""
    d = batch["pages"]["en"]
    for name in ("summary.html", "similarity.html"):
        assert unreadable(page_text((d / "report" / name).read_text(encoding="utf-8")), "nl")
    sample = next((d / "feedback").glob("plain.py.html"))
    assert unreadable(page_text(sample.read_text(encoding="utf-8")), "nl")


# ----------------------------------------------------------------------------- in a browser
needs_browser = pytest.mark.skipif(browser.skip_reason() is not None,
                                   reason=browser.skip_reason() or "")


@needs_browser
@pytest.mark.parametrize("lang,page", [("nl", "report/summary.html"),
                                       ("en", "report/similarity.html"),
                                       ("ko", "feedback/plain.py.html")])
def test_page_loads_fits_and_sorts_in_a_browser(batch, lang, page):
    path = batch["pages"][lang] / page
    got = browser.check(path, f"{lang}-{page.replace('/', '-').removesuffix('.html')}")
    assert got["errors"] == [], got["errors"]
    assert got["scrollWidth"] <= got["innerWidth"] == browser.WIDTH, got["wide"]
    assert got["unsorted"] == []
    if page.startswith("report/"):
        assert got["sorted"] >= 4          # the sort buttons were there and clicked
    assert got["screenshot"] and got["screenshot"].stat().st_size > 10_000


@needs_browser
def test_the_browser_check_finds_errors_overflow_and_outside_resources(tmp_path):
    """The probe can fail: a page that loads an outside image, throws, and is too wide."""
    from graders.grade.report_pages import csp

    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp(None)}"></head><body>'
        '<img src="https://example.invalid/x.png"><div style="width:3000px">wide</div>'
        '<script>throw new Error("boom")</script></body></html>', encoding="utf-8")
    got = browser.check(page)
    assert got["scrollWidth"] > got["innerWidth"] and got["wide"]
    said = " ".join(got["errors"])
    assert "img-src" in said and "script-src" in said, said


def test_html_and_markdown_feedback_say_the_same(spec):
    """Both formats come from one model: what the Markdown says, the page says, and neither
    shows the total while a group is hidden (it would tell about that group)."""
    rep = _report(spec, "hw.py", failing=2)
    assert any(g["visibility"] == "hidden" for g in rep["groups"])
    for lang in ("en", "nl"):
        md = feedback_text(rep, lang, "md", "hw.py")
        page = page_text(feedback_text(rep, lang, "html", "hw.py"))
        words = lambda s: re.findall(r"\w+", s)  # noqa: E731
        assert set(words(page)) <= set(words(md.replace("\\", "")))
        prose, fenced = [], False
        for line in md.splitlines():
            if line.startswith("```"):
                fenced = not fenced
            elif line and not fenced and not line.startswith("#"):
                prose.append(line)
        assert len(prose) >= 5
        for line in prose:
            assert " ".join(line.strip("*- ").split()) in " ".join(page.split()), line
        from graders.grade import messages as M
        from graders.grade.i18n import translator

        said = translator(lang)(M.SCORE_HIDDEN)
        assert said in md and said in " ".join(page.split())


def test_pairs_beyond_the_bound_are_counted_and_no_link_breaks(batch, tmp_path, monkeypatch):
    from graders.grade import report_pages

    monkeypatch.setattr(report_pages, "MAX_PAIRS", 1)
    rows, pairs = batch["rows"], batch["pairs"]
    write_summary(tmp_path, rows, "ANDREA-120M", pairs, "en")
    sources = {name: ORIGINAL for name in {n for p in pairs for n in p[:2]}}
    (tmp_path / "similarity.html").write_text(
        similarity_html(pairs, sources, "en", references=reference_rows(rows),
                        tampered=tamper_rows(rows)), encoding="utf-8")
    for name in ("summary.html", "similarity.html"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "1 more pair(s) are not shown here" in text, name
        assert link_problems(tmp_path / name) == [], name
    assert 'id="pair-2"' not in (tmp_path / "similarity.html").read_text(encoding="utf-8")


def test_a_page_cut_to_its_budget_links_only_to_lines_it_shows(batch, tmp_path, monkeypatch):
    """Where the page budget cuts a submission short, a fragment whose first line is not
    shown is not listed, and no line links to one."""
    from graders.grade import report_pages

    monkeypatch.setattr(report_pages, "PAGE_ROWS", 60)     # 15 lines a side for 2 pairs
    monkeypatch.setattr(report_pages, "MAX_LINES", 60)
    rows, pairs = batch["rows"], batch["pairs"]
    sources = {HOSTILE[0]: ORIGINAL, HOSTILE[1]: DISGUISED, HOSTILE[3]: DISGUISED,
               HOSTILE[5]: _reference_copy()}
    page = tmp_path / "similarity.html"
    page.write_text(similarity_html(pairs, sources, "en", references=reference_rows(rows),
                        tampered=tamper_rows(rows)),
                    encoding="utf-8")
    assert link_problems(page) == []
    text = page.read_text(encoding="utf-8")
    assert "Only the first 20 lines are shown." in text
    assert 'id="pair-1-a-f1"' in text        # the fragments that start early are still there
