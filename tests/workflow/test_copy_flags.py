"""Copy flags: a disguised copy of the reference is flagged, independent correct work is not.

The corpus: the bundled correct and buggy submissions and two more independent correct ones
(tests/workflow/corpus/), against disguised copies (renamed, reformatted, comments and
docstrings stripped) of the reference and of each other. docs/grading.md quotes the figures.
"""
from pathlib import Path

import pytest

from graders.grade.similarity import (PAIR_THRESHOLD, REFERENCE_THRESHOLD, containment,
                                      fingerprints, reference_fingerprints, reference_flags,
                                      similar_pairs)

from .disguise import disguise, reference_as_one_module

ROOT = Path(__file__).resolve().parents[2]
INDEPENDENT = sorted([*(ROOT / "examples" / "submissions").glob("*.py"),
                      *(Path(__file__).parent / "corpus").glob("*.py")])


def test_the_corpus_is_big_enough():
    assert len(INDEPENDENT) >= 5


@pytest.mark.parametrize("path", INDEPENDENT, ids=lambda p: p.name)
def test_independent_work_is_not_flagged_as_a_reference_copy(path):
    text = path.read_text(encoding="utf-8")
    sim = containment(fingerprints(text), reference_fingerprints())
    assert sim < REFERENCE_THRESHOLD / 2, sim          # a wide margin, not a near miss
    assert reference_flags(text) == []


@pytest.mark.parametrize("salt", ["v", "tmp_"])
def test_a_disguised_reference_copy_is_flagged(salt):
    copy = disguise(reference_as_one_module(), salt)
    assert "validate" not in copy and "#" not in copy
    (flag,) = reference_flags(copy)
    assert flag["kind"] == "reference_copy" and flag["similarity"] >= REFERENCE_THRESHOLD
    assert set(flag) == {"kind", "similarity", "threshold", "message"}   # figures, no text
    # half of it (the embedding module alone) is still flagged
    emb = (ROOT / "andrea_ref" / "embedding.py").read_text()
    assert reference_flags(disguise(emb.replace("validate.", ""), salt))


def test_pairs_flag_disguised_copies_and_only_them():
    texts = {p.name: p.read_text(encoding="utf-8") for p in INDEPENDENT}
    texts["copy_of_correct_student.py"] = disguise(texts["correct_student.py"], "s")
    texts["copy_of_correct_addat.py"] = disguise(texts["correct_addat.py"], "q")
    pairs = {(a, b) for a, b, _ in similar_pairs(texts, PAIR_THRESHOLD)}
    assert ("copy_of_correct_student.py", "correct_student.py") in pairs
    assert ("copy_of_correct_addat.py", "correct_addat.py") in pairs
    # buggy_student.py is correct_student.py with one bug: a real near-copy, rightly flagged
    assert pairs - {("copy_of_correct_student.py", "correct_student.py"),
                    ("copy_of_correct_addat.py", "correct_addat.py"),
                    ("buggy_student.py", "correct_student.py"),
                    ("buggy_student.py", "copy_of_correct_student.py")} == set()
