"""graders/conformance/submission.py: the one reading of a submission, behind the grader
(``grading.load_submission``) and the self-check (``runner.load_impl``).

A corpus of the shapes students hand in, built here (a module, a notebook, a kernel, a folder
with helpers, a package, a zipped hw3/ folder, a notebook in a folder, a kernel folder,
several candidates, none, a helper named like a package of the kit, names that are not UTF-8
or start with a space, links, hidden folders, too large, too many entries), each with what
it is; and, for each of them and for every submission the project bundles (tests/corpus,
tests/workflow/corpus, examples/, the kernel corpus), the proof that the self-check and the
grader choose the same file and the same problem. The self-check's choice is observed where
it imports (nothing of a submission runs here: the hostile examples are in the corpus)."""

from __future__ import annotations

import json
import os
import types
from pathlib import Path

import nbformat
import pytest

from graders.conformance import runner, submission as S
from graders.conformance.messages import (MSG_KIT_NAME, MSG_MANY_MODULES, MSG_NO_MODULE,
                                          MSG_NOT_A_NOTEBOOK)
from graders.conformance.runner import ImplementationLoadError, load_impl
from graders.conformance.sources import SOURCE_SUFFIXES, notebook_source
from graders.conformance.submission import (NOTEBOOK_MODULE, SubmissionError, printable_name,
                                            read_submission)
from graders.grade.grading import GraderError, load_submission
from tests.corpus import BASE

ROOT = Path(__file__).resolve().parents[2]
BODY = BASE.read_text(encoding="utf-8")
KERNEL = "// a kernel\n__global__ void embed_forward() {}\n"


# ----------------------------------------------------------------------------- the corpus
def _write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _notebook(*cells: str) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Homework 3")] + [
        nbformat.v4.new_code_cell(c) for c in cells]
    return nbformat.writes(nb)


def _helpers(d: Path) -> Path:
    cut = BODY.index("def dot(")
    _write(d / "vecmath.py", "import numpy as np\n\n" + BODY[cut:])
    _write(d / "solution.py", BODY[:cut] + "\nfrom vecmath import cosine_similarity, dot, norm\n")
    _write(d / "test_solution.py", "from solution import *\n")
    return d


def _package(d: Path) -> Path:
    _write(d / "__init__.py", "from .layer import *\n")
    _write(d / "layer.py", BODY)
    _write(d / "notes.py", "X = 1\n")
    return d


def _nested(d: Path) -> Path:
    _write(d / "hw3" / "my_embedding.py", BODY)
    _write(d / "__MACOSX" / "hw3" / "._my_embedding.py", b"\0\5\26\7")
    return d


def _notebook_folder(d: Path) -> Path:
    _write(d / "nb_helpers.py", "def twice(x):\n    return 2 * x\n")
    _write(d / "Homework 3.ipynb", _notebook("from nb_helpers import twice", BODY, "%time 1"))
    return d


def _kernel_folder(d: Path) -> Path:
    _write(d / "embed.cu", KERNEL)
    _write(d / "README.txt", "my kernels\n")
    return d


def _several(d: Path) -> Path:
    for n in ("a.py", "b.py", "test_a.py"):
        _write(d / n, BODY)
    return d


def _none(d: Path) -> Path:
    _write(d / "notes.txt", "nothing to grade\n")
    return d


def _kit_name(d: Path) -> Path:
    _write(d / "spec.py", "D_MODEL = 768\n")
    _write(d / "solution.py", "import spec\n" + BODY)
    return d


def _kit_name_unused(d: Path) -> Path:
    _write(d / "spec.py", "D_MODEL = 768\n")
    _write(d / "solution.py", BODY)
    return d


def _odd_names(d: Path) -> Path:
    d.mkdir(parents=True)
    (d / os.fsdecode(b"caf\xe9.py")).write_text(BODY, encoding="utf-8")   # latin-1 bytes
    _write(d / " helper.txt", "x\n")
    return d


def _leading_space(d: Path) -> Path:
    _write(d / " bob.py", BODY)
    return d


def _linked(d: Path) -> Path:
    """The only module is a link (to a file outside the folder): never followed."""
    secret = _write(d.parent / f"{d.name}-secret" / "answer.py", BODY)
    d.mkdir(parents=True)
    (d / "answer.py").symlink_to(secret)
    (d / "more").symlink_to(secret.parent, target_is_directory=True)
    return d


def _hidden(d: Path) -> Path:
    _write(d / "my_layer.py", BODY)
    _write(d / ".my_layer.py", BODY)              # an editor's copy: not a second candidate
    _write(d / ".git" / "hooks" / "x.py", "X = 1\n")
    _write(d / ".ipynb_checkpoints" / "hw-checkpoint.ipynb", _notebook("X = 1"))
    _write(d / "__pycache__" / "my_layer.cpython-311.py", "X = 1\n")
    return d


def _broken_notebook(d: Path) -> Path:
    _write(d / "hw.ipynb", "{ this is not JSON")
    return d


def _latin_module(d: Path) -> Path:
    return _write(d / "latin.py", ("# opgave: caf\xe9\n" + BODY).encode("latin-1"))


def _deep(d: Path) -> Path:
    """A module at a path longer than MAX_PATH_CHARS is no helper: left out."""
    _write(d / "solution.py", BODY)
    deep = d
    for i in range(5):
        deep = deep / (f"{i}" * 250)
    _write(deep / "helper.py", "X = 1\n")
    return d


# name -> (builder, what the submission is: entry, module, kind, problem)
SHAPES = {
    "module": (lambda d: _write(d / "hw.py", BODY), ("hw.py", "hw.py", "python", None)),
    "notebook": (lambda d: _write(d / "hw.ipynb", _notebook(BODY, "!pip install numpy")),
                 ("hw.ipynb", NOTEBOOK_MODULE, "python", None)),
    "kernel": (lambda d: _write(d / "embed.cu", KERNEL), ("embed.cu", "embed.cu", "kernel", None)),
    "helpers": (_helpers, ("solution.py", "solution.py", "python", None)),
    "package": (_package, ("__init__.py", "__init__.py", "python", None)),
    "nested_hw3": (_nested, ("my_embedding.py", "my_embedding.py", "python", None)),
    "notebook_in_folder": (_notebook_folder,
                           ("Homework 3.ipynb", NOTEBOOK_MODULE, "python", None)),
    "kernel_folder": (_kernel_folder, ("embed.cu", "embed.cu", "kernel", None)),
    "several": (_several, (None, None, "python", MSG_MANY_MODULES)),
    "none": (_none, (None, None, "python", MSG_NO_MODULE)),
    "kit_name": (_kit_name, ("solution.py", None, "python", MSG_KIT_NAME)),
    "kit_name_unused": (_kit_name_unused, ("solution.py", "solution.py", "python", None)),
    "not_utf8_name": (_odd_names, ("caf\\xe9.py", "caf\\xe9.py", "python", None)),
    "leading_space": (_leading_space, ("\\x20bob.py", "\\x20bob.py", "python", None)),
    "linked": (_linked, (None, None, "python", MSG_NO_MODULE)),
    "hidden": (_hidden, ("my_layer.py", "my_layer.py", "python", None)),
    "broken_notebook": (_broken_notebook, ("hw.ipynb", None, "python", MSG_NOT_A_NOTEBOOK)),
    "latin_module": (_latin_module, ("latin.py", "latin.py", "python", None)),
    "deep": (_deep, ("solution.py", "solution.py", "python", None)),
}


def _build(name: str, tmp_path: Path) -> Path:
    make, _ = SHAPES[name]
    folder = tmp_path / name
    made = make(folder)
    return made if made.is_file() else folder


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_is_what_the_contract_says(name, tmp_path):
    path = _build(name, tmp_path)
    sub = read_submission(path)
    assert (sub.entry, sub.module, sub.kind, sub.problem) == SHAPES[name][1]
    assert sub.name == printable_name(path.name)
    if sub.entry is not None:     # the student's own file, on disk, by its real name
        on_disk = Path(sub.entry_path)
        assert on_disk.is_file() and printable_name(on_disk.name) == sub.entry
        assert on_disk.read_bytes() == (sub.files.get(sub.entry) or path.read_bytes())


def test_what_a_folder_holds_after_the_walk(tmp_path):
    nested = read_submission(_build("nested_hw3", tmp_path))
    assert list(nested.files) == ["my_embedding.py"]           # hw3/ and __MACOSX set aside
    assert nested.entry_path.endswith(os.path.join("hw3", "my_embedding.py"))
    hidden = read_submission(_build("hidden", tmp_path))
    assert list(hidden.files) == ["my_layer.py"]
    linked = read_submission(_build("linked", tmp_path))
    assert linked.files == {}                                  # neither link was followed
    deep = read_submission(_build("deep", tmp_path))
    assert list(deep.files) == ["solution.py"]
    odd = read_submission(_build("not_utf8_name", tmp_path))
    assert sorted(odd.files) == ["\\x20helper.txt", "caf\\xe9.py"]
    helpers = read_submission(_build("helpers", tmp_path))
    assert sorted(helpers.files) == ["solution.py", "test_solution.py", "vecmath.py"]
    several = read_submission(_build("several", tmp_path))
    assert several.problem_fields == {"names": "a.py, b.py"}     # its own test never counts
    kit = read_submission(_build("kit_name", tmp_path))
    assert kit.problem_fields == {"names": "spec.py", "package": "spec"}


def test_a_notebook_keeps_its_source_and_cells(tmp_path):
    path = _build("notebook", tmp_path)
    sub = read_submission(path)
    want = notebook_source(path.read_bytes(), "hw.ipynb")
    got = sub.notebook_source()
    assert sub.files[NOTEBOOK_MODULE].decode() == want.text == got.text
    assert (got.origin, got.line_map, got.dropped) == (want.origin, want.line_map, want.dropped)
    assert got.locate(len(want.text.splitlines()) - 1) == want.locate(
        len(want.text.splitlines()) - 1)
    assert sub.source["cells"] and sub.source["dropped"][0]["kind"] == "shell"
    assert sub.target == "hw.ipynb" and sub.notebook_source() is not None
    assert read_submission(_build("module", tmp_path)).notebook_source() is None
    broken = read_submission(_build("broken_notebook", tmp_path))
    assert broken.problem_fields == {"name": "hw.ipynb"}
    assert broken.problem_detail.startswith("hw.ipynb: not a Jupyter notebook (")


def test_the_digest_is_the_content_not_the_name(tmp_path):
    a = _write(tmp_path / "a" / "alice.py", BODY)
    b = _write(tmp_path / "b" / "bob.py", BODY)
    assert read_submission(a).sha256 == read_submission(b).sha256
    assert read_submission(a).sha256 != read_submission(_write(tmp_path / "c.py", BODY + "\n"))\
        .sha256
    one, two = _helpers(tmp_path / "one"), _helpers(tmp_path / "two")
    assert read_submission(one).sha256 == read_submission(two).sha256
    _write(two / "vecmath.py", "# changed\n")
    assert read_submission(one).sha256 != read_submission(two).sha256
    # a zipped folder is the same content as the folder it holds, plus its own prefix
    assert read_submission(_nested(tmp_path / "z1")).sha256 == \
        read_submission(_nested(tmp_path / "z2")).sha256


def _refusals(tmp_path) -> dict:
    big = _write(tmp_path / "big.py", b"#" * (S.MAX_SUBMISSION_BYTES + 1))
    big_folder = tmp_path / "big_folder"
    for i in range(6):
        _write(big_folder / f"data{i}.py", b"#" * (1 << 20))
    crowded = tmp_path / "crowded"
    _write(crowded / "solution.py", BODY)
    for i in range(S.MAX_FOLDER_ENTRIES):
        _write(crowded / "data" / f"{i}.txt", b"")
    return {
        "missing": (tmp_path / "missing.py", "no such file or folder"),
        "not_a_source": (_write(tmp_path / "notes.txt", "x"), "not a .py, .ipynb or .cu file"),
        "too_large": (big, "the submission is larger than 5 MiB, the most the grader accepts"),
        "too_large_folder": (big_folder, "larger than 5 MiB"),
        "too_many": (crowded, f"the submission holds more than {S.MAX_FOLDER_ENTRIES} files "
                              "and folders, the most the grader accepts"),
    }


def test_what_cannot_be_read_is_one_error_naming_the_path_in_grader_and_kit(tmp_path):
    for name, (path, what) in _refusals(tmp_path).items():
        with pytest.raises(SubmissionError) as err:
            read_submission(path)
        assert str(err.value).startswith(f"{path}: ") and what in str(err.value), name
        assert err.value.path == str(path)
        with pytest.raises(GraderError) as graded:
            load_submission(path)
        with pytest.raises(ImplementationLoadError) as checked:
            load_impl(path, submission_rules=True)
        assert str(graded.value) == str(checked.value) == str(err.value), name


# ----------------------------------------------------------------------------- parity
KIT_WORDS = {   # what the self-check's refusal says, for each problem of the model
    MSG_NO_MODULE: "no Python module or notebook in this folder",
    MSG_MANY_MODULES: "several candidates (",
    MSG_KIT_NAME: "has the name of one of the grader's own packages",
    MSG_NOT_A_NOTEBOOK: "not a Jupyter notebook",
}


@pytest.fixture
def kit_choice(monkeypatch):
    """(file, problem) as ``load_impl(path, submission_rules=True)`` finds them: the file it
    imports (by its printable name) or the problem its refusal names. Nothing is run: the
    import itself, the kernel build and the import rule are stood in for."""
    seen: list = []
    monkeypatch.setattr(runner, "_exec_source",
                        lambda source, p, work=None: seen.append(p) or types.ModuleType("chosen"))
    monkeypatch.setattr(runner, "_load_kernel",
                        lambda p, target: seen.append(p) or types.SimpleNamespace())
    monkeypatch.setattr(runner, "install_import_rule", lambda folder, own=None: None)
    monkeypatch.setattr(runner, "forbidden_imports", lambda text: [])

    def choice(path: Path) -> tuple[str | None, str | None]:
        seen.clear()
        try:
            load_impl(path, submission_rules=True)
        except ImplementationLoadError as exc:
            msg = str(exc)
            if msg.endswith("not UTF-8 text (nor in the encoding a coding line declares)"):
                return printable_name(Path(msg.rsplit(": not UTF-8", 1)[0]).name), None
            found = [p for p, words in KIT_WORDS.items() if words in msg]
            assert len(found) == 1, msg
            return None, found[0]
        assert len(seen) == 1, seen
        return printable_name(Path(seen[0]).name), None

    return choice


def _grader_choice(path: Path) -> tuple[str | None, str | None]:
    sub = load_submission(path)
    return (sub.target, None) if sub.module is not None else (None, sub.problem)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_kit_and_the_grader_read_each_shape_alike(name, tmp_path, kit_choice):
    path = _build(name, tmp_path)
    assert kit_choice(path) == _grader_choice(path)


def _bundled() -> list[Path]:
    """Every submission the project bundles, and the folders that hold them (several
    candidates, each)."""
    out: list[Path] = []
    for folder in ("tests/corpus/correct", "tests/corpus/buggy", "tests/workflow/corpus",
                   "examples/submissions", "examples/hostile", "tests/gpu/kernels/submissions"):
        d = ROOT / folder
        out.append(d)
        out += sorted(p for p in d.iterdir()
                      if p.name != "__init__.py" and not p.name.startswith((".", "__"))
                      and (p.is_dir() or p.suffix in SOURCE_SUFFIXES))
    return out


def test_every_bundled_submission_is_read_alike_by_the_kit_and_the_grader(kit_choice):
    subs = _bundled()
    assert len(subs) > 150
    differ = {str(p.relative_to(ROOT)): (kit, graded) for p in subs
              if (kit := kit_choice(p)) != (graded := _grader_choice(p))}
    assert differ == {}
    kinds = {_grader_choice(p)[1] for p in subs}
    assert {None, MSG_MANY_MODULES} <= kinds      # the corpus folders themselves: several


def test_the_kit_imports_the_file_the_grader_chose(tmp_path):
    """Really imported (our own correct module): under a name that is not UTF-8, one that
    starts with a space, from a zipped hw3/, a package, a notebook beside its helper."""
    for name in ("not_utf8_name", "leading_space", "nested_hw3", "package",
                 "notebook_in_folder", "helpers"):
        impl = load_impl(_build(name, tmp_path), submission_rules=True)
        assert callable(impl.lookup), name
        assert impl.__andrea_submission__.entry == SHAPES[name][1][0], name
    runner.remove_import_rules()


def test_where_the_kit_and_the_grader_disagreed_the_grader_wins(tmp_path):
    """The self-check used to walk a folder its own way: it imported a module that is only a
    link (the grader never follows one), counted a hidden module as a second candidate,
    imported any file whatever its suffix, had no size cap, and did not take a folder of
    kernels for a kernel. Now it says what the grader says."""
    with pytest.raises(ImplementationLoadError, match="no Python module or notebook"):
        load_impl(_build("linked", tmp_path), submission_rules=True)
    assert callable(load_impl(_build("hidden", tmp_path), submission_rules=True).lookup)
    with pytest.raises(ImplementationLoadError, match="not a .py, .ipynb or .cu file"):
        load_impl(_write(tmp_path / "mine.txt", BODY))
    big = _write(tmp_path / "big" / "solution.py", BODY + "#" * S.MAX_SUBMISSION_BYTES)
    with pytest.raises(ImplementationLoadError, match="larger than 5 MiB"):
        load_impl(big.parent)
    runner.remove_import_rules()


def test_a_module_name_still_imports_by_name(tmp_path, monkeypatch):
    import andrea_ref

    monkeypatch.chdir(tmp_path)           # no folder of that name here
    assert load_impl("andrea_ref") is andrea_ref
    with pytest.raises(ImplementationLoadError, match="cannot import"):
        load_impl("nope_not_a_module")
    with pytest.raises(ImplementationLoadError, match="missing.cu: no such file or folder"):
        load_impl("missing.cu")


def test_the_model_is_plain_data_the_worker_and_a_batch_can_carry(tmp_path):
    """What crosses to a pool process (batch._payload) rebuilds the same Submission for
    grading: the entry and its place on disk stay with the reader."""
    sub = read_submission(_build("notebook_in_folder", tmp_path))
    data = {k: getattr(sub, k) for k in ("name", "files", "module", "kind", "problem",
                                         "problem_fields", "source", "digest")}
    json.dumps({**data, "files": {k: v.decode("latin-1") for k, v in data["files"].items()}})
    again = S.Submission(**data)
    assert (again.sha256, again.target, again.notebook_source().text) == (
        sub.sha256, sub.target, sub.notebook_source().text)


def test_andrea_conform_checks_a_kernel_folder_on_what_a_kernel_implements(
        tmp_path, monkeypatch, capsys):
    """A folder of kernels is a kernel for andrea-conform as for the grader: the checks of the
    kernel contract's groups only, without the Python call limits (the kernel build is stood
    in for by the reference's functions)."""
    import andrea_ref
    from graders.conformance.cli import main
    from spec import load_spec

    spec = load_spec()
    built: list = []
    monkeypatch.setattr(runner, "_load_kernel", lambda p, target: built.append(p) or
                        types.SimpleNamespace(**{n: getattr(andrea_ref, n)
                                                 for n in spec.contract.names}))
    rc = main([str(_build("kernel_folder", tmp_path)), "--format", "json", "--profile", "dev"])
    data = json.loads(capsys.readouterr().out)
    group = {c.id: c.group for c in spec.clauses}
    assert rc == 0 and [Path(p).name for p in built] == ["embed.cu"]
    assert data["results"] and {group[c] for r in data["results"] for c in r["clauses"]} <= set(
        spec.kernels.groups)
