"""The document audit on altered copies of the two course documents (tests/audit/altered_corpus.py):
each copy changes one fact of the real text, and the audit must report it at its line with its
clause; a copy that says the same fact in other words must add no finding. The copies are made
here from ../shared/seeds (the documents live outside the repository; skipped where absent)."""

from __future__ import annotations

import pytest

from graders.audit.docs import audit_text

from .altered_corpus import ALTERATIONS, CONTROLS

CLASSES = ("words", "subject", "claim", "formula")


@pytest.fixture(scope="module")
def seeds(request):
    from .conftest import _seed
    return {"nl": _seed("nl").read_text(encoding="utf-8"),
            "ko": _seed("ko").read_text(encoding="utf-8")}


def _key(f):
    """A finding without its column (an edit earlier on a line moves what follows)."""
    return (f.kind, f.check, f.line, f.clause, f.text)


_BEFORE: dict = {}
_ADDED: dict = {}


def _added(seeds, spec, alt):
    """The findings the alteration adds to the real document's (computed once per run)."""
    if alt not in _ADDED:
        text = seeds[alt.lang]
        assert text.count(alt.old) == 1, \
            f"{alt.old!r} should occur once in the {alt.lang} document"
        if alt.lang not in _BEFORE:
            _BEFORE[alt.lang] = {_key(f) for f in audit_text(text, spec).findings
                                 if f.kind != "ok"}
        after = audit_text(text.replace(alt.old, alt.new), spec)
        _ADDED[alt] = [f for f in after.findings
                       if f.kind != "ok" and _key(f) not in _BEFORE[alt.lang]]
    return _ADDED[alt]


def test_the_corpus_is_broad():
    for cls in CLASSES:
        for lang in ("nl", "ko"):
            n = sum(1 for a in ALTERATIONS if (a.cls, a.lang) == (cls, lang))
            assert n >= 3, f"only {n} {cls} alterations in {lang}"
    assert len({(a.lang, a.old, a.new) for a in ALTERATIONS}) == len(ALTERATIONS)


@pytest.mark.parametrize("alt", ALTERATIONS, ids=lambda a: f"{a.cls}-{a.lang}-{a.what}")
def test_each_alteration_is_reported_at_its_line(alt, seeds, spec):
    added = _added(seeds, spec, alt)
    hits = [f for f in added if f.kind == "mismatch" and f.line == alt.line
            and f.clause == alt.clause and f.text in alt.new]
    assert hits, f"{alt.what}: no mismatch of {alt.clause} at line {alt.line}; added: " + \
        repr([(f.kind, f.check, f.line, f.clause, f.text) for f in added])
    # nothing else is called wrong: a new mismatch only where the fact changed
    assert {f.line for f in added if f.kind == "mismatch"} == {alt.line}, added
    # what else may come with it: the section no longer states a required claim
    assert all(f.kind == "mismatch" or (f.kind, f.check) == ("unverified", "claim")
               for f in added), added


@pytest.mark.parametrize("alt", CONTROLS, ids=lambda a: f"{a.cls}-{a.lang}-{a.what}")
def test_the_same_fact_in_other_words_adds_nothing(alt, seeds, spec):
    assert _added(seeds, spec, alt) == []


def test_caught_over_total(seeds, spec):
    """The corpus's figure: every alteration caught, per class."""
    caught = {c: [0, 0] for c in CLASSES}
    for alt in ALTERATIONS:
        added = _added(seeds, spec, alt)
        caught[alt.cls][1] += 1
        caught[alt.cls][0] += any(f.kind == "mismatch" and f.line == alt.line
                                  and f.clause == alt.clause for f in added)
    total = sum(t for _, t in caught.values())
    got = sum(c for c, _ in caught.values())
    assert got == total, f"caught {got}/{total}: {caught}"
