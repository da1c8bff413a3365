"""A fault's detail (a hang, a crash, a signal, a memory or output limit) is shown in the
student's language: the proxy raises it as a msgid with its numbers, the runner keeps both, and
the feedback renders it through the catalogs instead of showing the English sentence."""

from __future__ import annotations

import json
import signal
import types

import numpy as np
import pytest

from graders.conformance.faults import CallTimeout, ImplementationFault
from graders.conformance.runner import run_checks
from graders.grade import formats, messages as M
from graders.grade.i18n import translator
from graders.grade.proxy import describe_exit

from ..helpers import fast_limits
from .conftest import grade_path, needs_bwrap
from graders.grade.report import ImportFailed, Said
from tests.grade.reports import report_of

FAULT_IDS = [v for k, v in vars(M).items() if k.startswith(("FAULT_", "SIGNAL_", "DETAIL_", "WHAT_"))]


def _report(spec, fault: ImplementationFault, select):
    def dot(u, v):
        raise fault

    impl = types.SimpleNamespace(dot=dot, norm=lambda v: float(np.sqrt(np.dot(v, v))),
                                 cosine_similarity=lambda u, v: 0.0)
    results = run_checks(impl, spec, profile="dev", select=select)
    return report_of(spec, results)


@pytest.mark.parametrize("lang, words, english", [
    ("nl", "was niet klaar binnen 2.5 s", "did not finish"),
    ("ko", "2.5초 안에 끝나지 않았습니다", "did not finish"),
])
def test_a_timeout_reads_in_the_students_language(spec, lang, words, english):
    fault = CallTimeout.said(M.FAULT_TIMEOUT, what="dot()", seconds="2.5", function="dot")
    rep = _report(spec, fault, ["VEC-DOT-01"])
    check = next(c for c in rep.checks if c.id == "dot_product")
    assert check.cause == "fault" and "did not finish within 2.5 s" in check.message
    text = formats.check_feedback(check, translator(lang), {})
    assert words in text and english not in text, text
    out = json.loads(formats.render(rep, "gradescope", lang))
    test = next(t for t in out["tests"] if "dot_product" in t["name"])
    assert words in test["output"] and english not in test["output"]


def test_english_feedback_is_the_faults_own_sentence(spec):
    fault = CallTimeout.said(M.FAULT_TIMEOUT, what="dot()", seconds="2.5", function="dot")
    check = next(c for c in _report(spec, fault, ["VEC-DOT-01"]).checks
                 if c.id == "dot_product")
    assert formats.check_message(check, translator("en")) == (
        "dot() could not answer: dot() did not finish within 2.5 s (an endless loop, or far "
        "too slow)")


@pytest.mark.parametrize("lang, words", [("nl", "crashte met een segmentation fault (SIGSEGV)"),
                                         ("ko", "세그멘테이션 오류(SIGSEGV)(으)로 충돌했습니다")])
def test_a_crash_names_its_signal_in_the_students_language(lang, words):
    fault = describe_exit(-signal.SIGSEGV, "lookup()", "none")
    assert str(fault) == "lookup(): the process running your code crashed with a segmentation fault (SIGSEGV)"
    assert words in M.fault_detail(fault.translatable(), translator(lang))


def test_an_import_fault_reads_in_the_students_language():
    fault = describe_exit(3, "import", "none")
    imp = ImportFailed("exit", None, str(fault), Said(**fault.translatable()))
    assert M.import_detail(imp, translator("en")) == str(fault)
    nl = M.import_detail(imp, translator("nl"))
    assert "stopte met status 3" in nl and "exited" not in nl


@pytest.mark.parametrize("lang", ["nl", "ko"])
def test_every_fault_sentence_is_translated_with_its_placeholders(lang):
    t = translator(lang)
    for msgid in FAULT_IDS:
        assert t(msgid) != msgid, msgid


@needs_bwrap
def test_a_hanging_submission_is_told_in_dutch(spec, tmp_path):
    """Through the isolated worker: the call that hung, with the limit, in Dutch."""
    from tests.corpus import BASE

    src = BASE.read_text(encoding="utf-8") + "\n\ndef dot(u, v):\n    while True:\n        pass\n"
    path = tmp_path / "hangs.py"
    path.write_text(src, encoding="utf-8")
    # the limit as the test states it (a call that never ends times out at any load)
    rep = grade_path(path, spec, select=["VEC-DOT-01"], limits=fast_limits(exact=("call_timeout",)))
    check = next(c for c in rep.checks if c.id == "dot_product")
    assert check.cause == "fault"
    text = formats.check_feedback(check, translator("nl"), {})
    assert "dot() was niet klaar binnen 2.5 s" in text and "did not finish" not in text, text


def test_what_the_worker_saw_is_told_in_korean_and_dutch(spec, tmp_path):
    """A sys.exit inside a call, reported by the worker itself: the whole sentence is translated."""
    from tests.corpus import BASE

    src = BASE.read_text(encoding="utf-8") + "\n\nimport sys\n\ndef dot(u, v):\n    sys.exit(3)\n"
    path = tmp_path / "exits.py"
    path.write_text(src, encoding="utf-8")
    rep = grade_path(path, spec, select=["VEC-DOT-01"])
    check = next(c for c in rep.checks if c.id == "dot_product")
    assert check.cause == "fault"
    nl = formats.check_feedback(check, translator("nl"), {})
    assert "riep sys.exit(3) aan in dot()" in nl and "called sys.exit" not in nl, nl
    ko = formats.check_feedback(check, translator("ko"), {})
    assert "dot()에서 sys.exit(3)를 호출했습니다" in ko and "called sys.exit" not in ko, ko
    en = formats.check_feedback(check, translator("en"), {})
    assert "called sys.exit(3) in dot()" in en, en


def test_an_exit_while_importing_is_told_in_dutch(spec, tmp_path):
    path = tmp_path / "exits_at_import.py"
    path.write_text("import sys\nsys.exit(2)\n", encoding="utf-8")
    rep = grade_path(path, spec, select=["VEC-DOT-01"])
    text = formats.render(rep, "text", lang="nl")
    assert "het importeren van de inzending: de inzending riep sys.exit(2) aan tijdens het " \
           "importeren" in text, text
    assert "importing" not in text and "called sys.exit" not in text, text


def _restart(spawn):
    """SubmissionProxy._ensure for a call of dot() whose worker is gone: `spawn` stands for
    starting the worker again."""
    from graders.grade.proxy import SubmissionProxy

    proxy = types.SimpleNamespace(_worker=None, restarts=0, _spawn=spawn, _kill=lambda: None)
    with pytest.raises(ImplementationFault) as exc:
        SubmissionProxy._ensure(proxy, "dot()")
    return exc.value


@pytest.mark.parametrize("lang, words", [
    ("nl", ["het opnieuw starten van de inzending voor dot()",
            "de inzending kon opnieuw niet worden geïmporteerd (name 'x' is not defined)"]),
    ("ko", ["dot()을(를) 위해 제출물을 다시 시작하는 중",
            "제출물을 다시 가져오지 못했습니다(name 'x' is not defined)"]),
])
def test_a_fault_while_restarting_reads_in_the_students_language(spec, lang, words):
    """Sixth red-team round: a worker started again for a call (after a crash) that stops, or
    whose import fails this time, was told in English whatever the language ("restarting the
    submission for dot(): ...", "the submission failed to import again: ...")."""
    from graders.conformance.faults import WorkerCrashed

    def stops(what):
        raise WorkerCrashed.said(M.FAULT_PIPE_CLOSED, what=what)

    crashed = _restart(stops)
    reimport = _restart(lambda what: {"import_error": {"msg": "name 'x' is not defined"}})
    assert str(crashed).startswith("restarting the submission for dot(): ")
    assert str(reimport) == ("dot(): the submission failed to import again (name 'x' is not "
                             "defined)")
    for fault, said in zip((crashed, reimport), words):
        check = next(c for c in _report(spec, fault, ["VEC-DOT-01"]).checks
                     if c.id == "dot_product")
        text = formats.check_feedback(check, translator(lang), {})
        assert said in text and "restarting" not in text and "again" not in text, text
