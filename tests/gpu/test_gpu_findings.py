"""The CPU executor's findings are catalog sentences (andrea_gpu/executor/findings.py).

Cheap tests (no kernel build): every sentence the executor can emit has a Dutch and a Korean
translation; the executor raises its errors only from those templates (no sentence built at run
time); every message of the C++ runtime is read back into a template; and a finding forged in
the submission's process is used only when it is one of the executor's sentences.
"""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import pytest

from andrea_gpu.executor import findings as F
from andrea_gpu.executor.findings import Said
from graders.grade import messages as M
from graders.grade.i18n import _catalog, translator

EXECUTOR = Path(F.__file__).resolve().parent


@pytest.mark.parametrize("lang", ["nl", "ko"])
def test_every_executor_sentence_is_in_the_catalog(lang):
    cat = _catalog(lang)
    assert len(F.templates()) >= 30
    assert [m for m in F.templates() if m not in cat] == []


@pytest.mark.parametrize("path, classes, least", [
    (EXECUTOR / "launch.py", ("KernelError", "RaceError", "OutOfBoundsError"), 8),
    (EXECUTOR.parent / "host.py", ("KernelContractError",), 5),
], ids=["launch.py", "host.py"])
def test_the_executor_raises_only_catalog_sentences(path, classes, least):
    """Each KernelError / RaceError / OutOfBoundsError of launch.py (KernelContractError of
    host.py) is built from a Said whose template is a findings.MSG_* constant (or a choice
    between them)."""
    tree = ast.parse(path.read_text())
    raises = [n for n in ast.walk(tree) if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call)
              and getattr(n.exc.func, "id", None) in classes]
    assert len(raises) >= least
    for r in raises:
        (arg,) = r.exc.args
        assert isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "Said", r.lineno
        names = [n.attr for n in ast.walk(arg.args[0]) if isinstance(n, ast.Attribute)]
        assert names and all(n.startswith("MSG_") for n in names), r.lineno
        assert not any(isinstance(n, ast.JoinedStr) for n in ast.walk(r)), r.lineno


def _runtime_formats() -> list[str]:
    """The runtime's snprintf formats (adjacent C string literals joined)."""
    src = (EXECUTOR / "runtime.cpp").read_text()
    out = []
    for m in re.finditer(r"snprintf\(g_msg, sizeof g_msg,\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)", src):
        out.append("".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(1))))
    return out


def _fill(fmt: str) -> str:
    return (fmt.replace("%llu", "7").replace("%08x", "0000ffff").replace("%u", "3")
            .replace("%d", "12")
            .replace("%s", "k.cu").replace("%p", "0x10"))


def test_every_runtime_message_becomes_a_template():
    formats = _runtime_formats()
    assert len(formats) >= 10
    # read back in launch.py itself: the race checker's (status 6, 7) and faults (status 1)
    own = {"data race", "read of uninitialised shared memory", "%s at address %p",
           "more than %llu memory accesses in one launch"}  # status 8: MSG_TOO_MUCH_WORK
    for fmt in formats:
        if fmt in own:
            continue
        said = F.runtime_finding(_fill(fmt))
        assert said.msgid != F.MSG_RUNTIME_OTHER, fmt
        assert said.msgid in F.templates()
        str(said)  # every value the template names is there


def test_signal_faults_name_the_signal():
    said, addr = F.signal_fault("bus error at address 0x7f00")
    assert said.msgid == F.MSG_BUS and addr == "0x7f00"
    assert translator("ko")(said.msgid) == "버스 오류"


def _race() -> Said:
    who = Said(F.MSG_THREAD_WRITES, thread=F.thread((1, 0, 0), (5, 0, 0)))
    return Said(F.MSG_RACE, kernel="k", what=Said(F.MSG_SHARED_AT, offset=8),
                lines=Said(F.MSG_ONE_LINE, line="k.cu:9"), first=who, second=who)


def test_a_finding_is_told_in_each_language():
    data = _race().data()
    assert M.executor_said(data) == data
    assert M.said_text(data) == str(_race())
    nl, ko = (M.said_text(data, translator(lang)) for lang in ("nl", "ko"))
    assert "raceconditie op gedeeld geheugen op byte-offset 8 in regel k.cu:9" in nl
    assert "blok (1,0,0) thread (5,0,0) schrijft het" in nl
    assert "데이터 경쟁" in ko and "블록 (1,0,0) 스레드 (5,0,0)" in ko
    assert "data race" not in nl + ko


@pytest.mark.parametrize("forged", [
    {"msgid": "{kernel.__class__.__init__.__globals__}", "fields": {"kernel": "k"}},
    {"msgid": F.MSG_ONE_LINE, "fields": {}},                              # a value missing
    {"msgid": F.MSG_ONE_LINE, "fields": {"line": [1, 2]}},                # not a plain value
    {"msgid": F.MSG_ONE_LINE, "fields": {"line": 1}, "extra": 1},
    {"msgid": F.MSG_RACE, "fields": {**_race().data()["fields"],
                                     "what": {"msgid": "not ours {x}", "fields": {"x": 1}}}},
    "kernel k: data race",
    None,
])
def test_a_forged_finding_is_not_used(forged):
    assert M.executor_said(forged) is None


def test_a_forged_finding_falls_back_to_the_english_message():
    from graders.grade.formats import check_message

    check = types.SimpleNamespace(
        template="{function}() raised {exception}: {error}", message="m",
        fields={"function": "f", "exception": "RaceError", "error": "kernel k: boom",
                "error_said": {"msgid": "{error.__class__}", "fields": {}}})
    assert check_message(check, translator("nl")) == "f() gaf een fout (RaceError): kernel k: boom"
    check.fields["error_said"] = _race().data()
    said = check_message(check, translator("nl"))   # a finding in words, without its class
    assert "raceconditie" in said and "RaceError" not in said and said.startswith("f(): ")


def _compile_feedback(tmp_path, text: str):
    from andrea_gpu.submission import compile_kernel_source

    cu = tmp_path / "k.cu"
    cu.write_text(text)
    return compile_kernel_source(cu)


def test_a_refused_kernel_file_is_told_in_each_language(tmp_path):
    """The kit's own refusal (before any compiler runs) is sentences of the catalogs; the
    English log is unchanged."""
    ok, log = _compile_feedback(tmp_path, '#include "../secret.h"\n#pragma GCC poison x\n'
                                          'extern "C" __global__ void k() { asm("nop"); }\n')
    assert not ok and "k.cu:1: error: #include" in log
    assert "k.cu:3: error: inline assembly ('asm')" in log and "__ldg()" in log   # what to use
    err = {"type": "CompileError", "msg": str(log), "said": log.translatable()}
    en = M.import_detail(_failed(err), kernel=True)
    assert en == M.KERNEL_REFUSED.format(log=str(log))
    for lang, words in (("nl", "niet toegestaan"), ("ko", "허용되지 않습니다")):
        text = M.import_detail(_failed(err), translator(lang), kernel=True)
        assert words in text and "k.cu:1:" in text and "k.cu:2:" in text and "k.cu:3:" in text
        assert "is not allowed" not in text and "error:" not in text, text


def test_missing_entry_points_are_told_in_each_language(tmp_path):
    ok, log = _compile_feedback(tmp_path, 'extern "C" __global__ void k() {}\n')
    assert not ok and "missing kernel entry points" in log
    err = {"type": "CompileError", "msg": str(log), "said": log.translatable()}
    nl = M.import_detail(_failed(err), translator("nl"), kernel=True)
    assert "kernel-ingangen ontbreken" in nl and "andrea_lookup(" in nl   # the signatures as is
    assert "missing" not in nl


def test_a_compiler_log_stays_verbatim_under_a_translated_sentence():
    log = 'k.cu(3): error: identifier "x" is undefined'
    err = {"type": "CompileError", "msg": log}
    assert M.import_detail(_failed(err), translator("nl"), kernel=True) == \
        f"Je kernelbestand compileert niet; de compiler meldt:\n{log}"
    # a forged refusal (not the kit's sentences) does not replace the log
    err["said"] = [{"msgid": "{log.__class__}", "fields": {"log": 1}}]
    assert M.import_detail(_failed(err), translator("ko"), kernel=True).endswith(log)
    # a Python submission's own exception named CompileError is not a compile step
    assert M.import_detail(_failed(err), translator("nl")) == f"Fout (CompileError): {log}"


def test_the_schedules_are_named_in_each_language():
    said = Said(F.MSG_SCHEDULES_DIFFER, kernel="k", argument=Said(F.MSG_ARGUMENT, index=2,
                name="out"), first=F.schedule("forward"), second=F.schedule("shuffle"),
                element=3, got="1.0", other="2.0")
    assert "'forward' and 'shuffle' schedules" in str(said)
    data = M.executor_said(said.data())
    nl, ko = (M.said_text(data, translator(lang)) for lang in ("nl", "ko"))
    assert "'oplopend' en 'willekeurig'" in nl and "'오름차순' 순서와 '무작위' 순서" in ko
    assert "forward" not in nl + ko and "shuffle" not in nl + ko
    assert F.schedule("sideways") == "sideways"


def _failed(err: dict):
    """An import failure with this error (its JSON form), as the report holds it."""
    from graders.grade.report import import_outcome_from_dict

    return import_outcome_from_dict({"ok": False, "kind": "import", "error": err,
                                     "fault": None, "fault_detail": None})
