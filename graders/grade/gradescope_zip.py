"""`andrea-grade gradescope-zip`: the autograder zip Gradescope expects, in one command.

    andrea-grade gradescope-zip --output autograder.zip [--spec S] [--lang nl] [--profile grading]
                                [--sandbox container|auto|bwrap] [--check]

The zip holds, at its top level:

* ``setup.sh`` (executable): run once by Gradescope, as root, when it builds the image (Ubuntu
  22.04: Python 3.10; 24.04: Python 3.12 without ``python3-venv``). It uses the image's own
  ``python3`` (3.10 or newer), installs its ``venv`` module through apt where missing (never
  another interpreter: jammy's ``python3.11`` is a 2022 release candidate), installs bubblewrap
  and libseccomp, makes a virtual environment, installs the wheel into it, then
  ``python -m graders.grade.gradescope_zip setup-check`` prints what the sandbox will have
  (bubblewrap's features) and, for the container mode, makes the grader's files root-only;
* ``run_autograder`` (executable): run for every submission; grades ``/autograder/submission``
  with ``--sandbox container`` (the zip's ``--sandbox``; Gradescope's containers are disposable,
  one per submission, and need not allow namespaces) into
  ``/autograder/results/results.json``, checked against Gradescope's fields
  (:data:`RESULTS_SCHEMA`), and never leaves that file missing or invalid (on any failure it
  writes a valid result with score 0 and a message in the course's language). Its standard
  output, which Gradescope shows the staff only, starts with the staff summary (score, copy
  flags with their figures). Grading is stopped after ``ANDREA_GRADE_TIMEOUT`` seconds (540,
  inside Gradescope's default 10-minute limit), so the fallback result is still written;
* ``andrea_conformance-<version>-py3-none-any.whl``: this package, built from the source tree
  when the zip is made, so the image builds without a checkout;
* the spec file, when ``--spec`` is a path rather than a bundled name.

Gradescope unpacks the zip into ``/autograder/source`` and copies ``run_autograder`` to
``/autograder/run_autograder``; the scripts find the zip's files in ``$ROOT/source`` (or beside
themselves). ``ANDREA_AUTOGRADER_ROOT`` (default ``/autograder``) and ``ANDREA_VENV`` (default
``$ROOT/andrea-venv``) relocate both scripts, which is how the test suite and ``--check`` run
them. ``--check`` (:func:`check_zip`) unpacks the built zip into a scratch ``/autograder``
layout and runs its ``run_autograder`` on the bundled correct and buggy examples in the zip's
mode, validating each ``results.json``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .i18n import Translator
from . import messages as M

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("spec", "andrea_runtime", "andrea_ref", "andrea_gpu", "graders")
PROJECT_FILES = ("pyproject.toml", "README.md", "LICENSE")


class ZipError(Exception):
    """The zip cannot be made (no source tree, the wheel does not build, bad output path)."""


SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04 or
# 24.04 base). Made by andrea-grade gradescope-zip.
set -euo pipefail
ROOT="${ANDREA_AUTOGRADER_ROOT:-/autograder}"
# The zip is unpacked in $ROOT/source; run from there (or from beside this script).
cd "$ROOT/source" 2>/dev/null || cd "$(dirname "$0")"
VENV="${ANDREA_VENV:-$ROOT/andrea-venv}"
export DEBIAN_FRONTEND=noninteractive
UPDATED=""
apt_install() {
    command -v apt-get >/dev/null 2>&1 || { echo "setup.sh: no apt-get to install $*" >&2; return 1; }
    if [ -z "$UPDATED" ]; then apt-get update -qq; UPDATED=1; fi
    apt-get install -y -qq --no-install-recommends "$@"
}
# The image's own python3 (Ubuntu 22.04: 3.10, 24.04: 3.12); never another interpreter.
PY="${ANDREA_PYTHON:-python3}"
command -v "$PY" >/dev/null 2>&1 || apt_install python3
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "setup.sh: $("$PY" --version 2>&1) is older than Python 3.10, which andrea-grade needs;" \
         "choose Gradescope's Ubuntu 22.04 or 24.04 base image" >&2
    exit 1
fi
# Its venv module and pip (python3.X-venv brings ensurepip), where the image lacks them.
if ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
    VER="$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    apt_install "python$VER-venv" || apt_install python3-venv
fi
# libseccomp: the worker's seccomp filter; bubblewrap: the sandbox where namespaces can be made.
apt_install libseccomp2 || echo "setup.sh: could not install libseccomp2 (the grader will refuse)"
apt_install bubblewrap || echo "setup.sh: could not install bubblewrap (needed for --sandbox auto only)"
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip || true
"$VENV/bin/python" -m pip install -q ./andrea_conformance-*.whl
"$VENV/bin/andrea-grade" --help >/dev/null
# What the sandbox has here; for the container mode, the grader's files made root-only.
"$VENV/bin/python" -m graders.grade.gradescope_zip setup-check --sandbox @SANDBOX@ --source "$PWD"
echo "setup.sh: andrea-grade installed in $VENV with $("$VENV/bin/python" --version)"
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission. Made by andrea-grade gradescope-zip.
# It always leaves a valid results.json: on any failure, score 0 and a message for the student.
# Standard output is for the staff only (results.json says stdout_visibility: hidden): the
# staff summary (score, copy flags with their figures), then andrea-grade's own messages.
set -uo pipefail
ROOT="${ANDREA_AUTOGRADER_ROOT:-/autograder}"
# Gradescope copies this script to $ROOT/run_autograder; the zip's files are in $ROOT/source.
SRC="$ROOT/source"
[ -d "$SRC" ] || SRC="$(cd "$(dirname "$0")" && pwd)"
VENV="${ANDREA_VENV:-$ROOT/andrea-venv}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
TMP="$(mktemp "$ROOT/results/.results.XXXXXX")"
LOG="$(mktemp)"
# the zip's folder (the wheel, a spec file) is the grader's too: root-only in container mode;
# so is Gradescope's submission_metadata.json, which holds every earlier submission's
# results.json (hidden tests, their output, the staff's flags) and the submitters' names
export ANDREA_PROTECT="$SRC:$ROOT/submission_metadata.json"
status=0
timeout -k 15 "${ANDREA_GRADE_TIMEOUT:-@TIMEOUT@}" "$VENV/bin/andrea-grade" "$ROOT/submission" \
    --format gradescope --output "$TMP" --sandbox @SANDBOX@ @ARGS@ >"$LOG" 2>&1 || status=$?
if [ "$status" -eq 0 ] && "$VENV/bin/python" -m graders.grade.gradescope_zip staff-summary \
        "$TMP" --lang @LANG@ 2>>"$LOG"; then
    mv -f "$TMP" "$RESULTS"
    cat "$LOG"
    rm -f "$LOG"
    exit 0
fi
cat "$LOG"
[ "$status" -eq 124 ] && echo "run_autograder: grading was stopped after ${ANDREA_GRADE_TIMEOUT:-@TIMEOUT@} s"
echo "run_autograder: andrea-grade failed (exit status $status); wrote the fallback result"
cat > "$RESULTS" <<'FALLBACK'
@FALLBACK@
FALLBACK
rm -f "$TMP" "$LOG"
exit 0
"""

#: The zip's modes (``--sandbox``): container (the default: Gradescope's containers are
#: disposable and need not allow namespaces), or bubblewrap (auto, bwrap) where they do.
ZIP_MODES = ("container", "auto", "bwrap")
#: Seconds run_autograder lets andrea-grade run: inside Gradescope's default 10-minute limit,
#: with time left to write the fallback result.
GRADE_TIMEOUT = 540

#: Gradescope's results.json, as its autograder specification documents the fields (types and
#: the values it accepts); other top-level keys are kept by Gradescope and allowed here.
_FORMATS = ["text", "html", "simple_format", "md", "ansi"]
_VISIBILITY = ["hidden", "after_due_date", "after_published", "visible"]
RESULTS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Gradescope autograder results.json",
    "type": "object",
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "output_format": {"enum": _FORMATS},
        "test_output_format": {"enum": _FORMATS},
        "test_name_format": {"enum": _FORMATS},
        "visibility": {"enum": _VISIBILITY},
        "stdout_visibility": {"enum": _VISIBILITY},
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "score": {"type": "number"},
                "max_score": {"type": "number"},
                "status": {"enum": ["passed", "failed"]},
                "name": {"type": "string"},
                "name_format": {"enum": _FORMATS},
                "number": {"type": "string"},
                "output": {"type": "string"},
                "output_format": {"enum": _FORMATS},
                "tags": {"type": "array", "items": {"type": "string"}},
                "visibility": {"enum": _VISIBILITY},
                "extra_data": {"type": "object"},
            },
            "additionalProperties": False,
        }},
        "leaderboard": {"type": "array", "items": {
            "type": "object", "required": ["name", "value"],
            "properties": {"name": {"type": "string"}, "value": {"type": ["number", "string"]},
                           "order": {"enum": ["asc", "desc"]}},
            "additionalProperties": False,
        }},
    },
    # a score at the top, or one on every test
    "anyOf": [{"required": ["score"]},
              {"required": ["tests"],
               "properties": {"tests": {"items": {"required": ["score"]}}}}],
}


def results_problems(data) -> list[str]:
    """What in `data` (a parsed results.json) Gradescope's documented fields do not allow:
    one line per problem, naming the field (empty: valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(RESULTS_SCHEMA)
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))[:20]:
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        out.append(f"{where}: {err.message[:200]}")
    return out


def staff_summary(data: dict, lang: str = "en") -> str:
    """What run_autograder prints first for the staff: the score and each copy flag with its
    figure, in the course's language (numbers in its style)."""
    from .formats import _num

    t = Translator(lang)
    tests = data.get("tests") or []
    max_score = sum(x.get("max_score", 0) for x in tests if isinstance(x, dict))
    flags = [f for f in (data.get("extra_data") or {}).get("flags", []) if isinstance(f, dict)]
    lines = [t(M.STAFF_SUMMARY, score=t.number(_num(data.get("score", 0))),
               max_score=t.number(_num(round(max_score, 2))), n=len(flags))]
    for f in flags:
        lines.append(f"- {f.get('kind', '?')}: {f.get('message', '')}")
    return "\n".join(lines)


def _check_output(path: Path) -> None:
    parent = path.resolve().parent
    if not parent.is_dir():
        raise ZipError(f"--output {path}: the folder {parent} does not exist")
    if path.suffix != ".zip":
        raise ZipError(f"--output {path}: give a file name ending in .zip")


def build_wheel(dest: Path, *, root: Path = PROJECT_ROOT, packages=PACKAGES,
                pyproject: str | None = None, extra_files: dict | None = None,
                left_out: tuple = ()) -> Path:
    """Build a wheel of `packages` of the source tree `root` into `dest` (``pip wheel``).

    The sources are copied to a temporary folder first, so the build leaves nothing in the tree.
    `pyproject` replaces the tree's pyproject.toml; `extra_files` maps names to text;
    `left_out`: files of `packages` (relative to `root`) that the wheel does not hold.
    """
    if not (root / "pyproject.toml").is_file() or not all((root / p).exists() for p in packages):
        raise ZipError(f"the project's source tree is needed to build the wheel, and {root} is "
                       "not one (run this from a checkout or an unpacked source distribution)")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.o", ".*")
    with tempfile.TemporaryDirectory(prefix="andrea-wheel-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for p in packages:
            (src / p).parent.mkdir(parents=True, exist_ok=True)
            if (root / p).is_dir():
                shutil.copytree(root / p, src / p, ignore=ignore)
            else:
                shutil.copy(root / p, src / p)
        for f in left_out:
            (src / f).unlink(missing_ok=True)
        for f in PROJECT_FILES:
            if (root / f).is_file():
                shutil.copy(root / f, src / f)
        if pyproject is not None:
            (src / "pyproject.toml").write_text(pyproject, encoding="utf-8")
        for name, text in (extra_files or {}).items():
            (src / name).write_text(text, encoding="utf-8")
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
               "--disable-pip-version-check", "-w", str(out), str(src)]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        wheels = sorted(out.glob("*.whl")) if out.is_dir() else []
        if p.returncode != 0 or not wheels:
            last = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
            raise ZipError(f"building the wheel failed: {last}")
        dest.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy(wheels[0], dest / wheels[0].name))


SELFCHECK_DIR = PROJECT_ROOT / "packaging" / "selfcheck"
SELFCHECK_PATHS = ("spec", "andrea_runtime", "graders/__init__.py", "graders/conformance")
#: Left out of the student kit: the contract's argument checks, which the kernel runtime runs in
#: the grader's sandbox, are the reference's answer to the error clauses (andrea-conform does
#: not use them).
SELFCHECK_LEFT_OUT = ("andrea_runtime/validate.py",)


def build_selfcheck_wheel(dest: str | Path) -> Path:
    """The student kit (andrea-selfcheck): checks, spec and andrea-conform, no reference."""
    if not (SELFCHECK_DIR / "pyproject.toml").is_file():
        raise ZipError(f"{SELFCHECK_DIR}/pyproject.toml is missing: the student kit is built "
                       "from the project's source tree")
    return build_wheel(Path(dest), packages=SELFCHECK_PATHS, left_out=SELFCHECK_LEFT_OUT,
                       pyproject=(SELFCHECK_DIR / "pyproject.toml").read_text(encoding="utf-8"),
                       extra_files={"README.md": (SELFCHECK_DIR / "README.md").read_text(
                           encoding="utf-8")})


def fallback_result(lang: str) -> str:
    t = Translator(lang)
    flags = [{"kind": "grader_failed", "message": t(M.AUTOGRADER_FAILED)}]
    return json.dumps({"score": 0, "output": t(M.AUTOGRADER_FAILED), "tests": [],
                       "visibility": "visible", "stdout_visibility": "hidden",
                       "extra_data": {"flags": flags}, "flags": flags}, ensure_ascii=False)


def build_zip(output: str | Path, *, spec_arg: str | None = None, lang: str = "en",
              profile: str = "grading", wheel: str | Path | None = None,
              sandbox: str = "container") -> Path:
    """Write the autograder zip; returns its path. `wheel`: a wheel of this package already
    built (else one is built from the source tree). `sandbox`: the mode run_autograder passes
    (:data:`ZIP_MODES`)."""
    if sandbox not in ZIP_MODES:
        raise ZipError(f"--sandbox {sandbox}: the zip grades with one of {', '.join(ZIP_MODES)}")
    from spec import SPEC_DIR, load_spec

    output = Path(output)
    _check_output(output)
    spec = load_spec(spec_arg)  # SpecError for a bad spec: the caller reports it
    args = ["--lang", shlex.quote(lang), "--profile", shlex.quote(profile)]
    spec_file = None
    if spec.path.parent.resolve() == SPEC_DIR.resolve():
        args += ["--spec", shlex.quote(spec.name)]
    else:
        spec_file = spec.path
        args += ["--spec", '"$SRC"/' + shlex.quote(spec.path.name)]
    run = (RUN_AUTOGRADER.replace("@ARGS@", " ".join(args))
           .replace("@SANDBOX@", sandbox).replace("@TIMEOUT@", str(GRADE_TIMEOUT))
           .replace("@LANG@", shlex.quote(lang))
           .replace("@FALLBACK@", fallback_result(lang)))
    setup = SETUP_SH.replace("@SANDBOX@", sandbox)
    with tempfile.TemporaryDirectory(prefix="andrea-zip-") as tmp:
        wheel = Path(wheel) if wheel is not None else build_wheel(Path(tmp))
        part = output.with_name(f".{output.name}.part")
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in (("setup.sh", setup), ("run_autograder", run)):
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, text)
            z.write(wheel, wheel.name)
            if spec_file is not None:
                z.write(spec_file, spec_file.name)
        os.replace(part, output)
    return output


# ----------------------------------------------------------------------------- --check
#: The bundled examples --check grades: (file, what its score must be).
CHECK_EXAMPLES = (("correct_student.py", "full"), ("buggy_student.py", "partial"))


def _examples_dir() -> Path:
    return PROJECT_ROOT / "examples" / "submissions"


def _check_venv(layout: Path, wheel: Path) -> Path:
    """A virtual environment for the check, made in seconds and without the network: this
    interpreter, the zip's own wheel unpacked into its site-packages, and the packages of this
    environment (NumPy, ...) after it on sys.path (a ``.pth`` line)."""
    import sysconfig

    venv = layout / "andrea-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   capture_output=True)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    with zipfile.ZipFile(wheel) as w:
        w.extractall(site)
    mine = [p for p in dict.fromkeys([sysconfig.get_paths()["purelib"],
                                      sysconfig.get_paths()["platlib"]]) if os.path.isdir(p)]
    (site / "zz_andrea_check_deps.pth").write_text("\n".join(mine) + "\n", encoding="utf-8")
    script = venv / "bin" / "andrea-grade"
    script.write_text(f"#!{py}\nimport sys\nfrom graders.grade.cli import main\n"
                      "sys.exit(main())\n", encoding="utf-8")
    script.chmod(0o755)
    for d in (layout, venv):
        d.chmod(0o755)
    return venv


#: Top-level folders of the system, never replaced by the check's wrapper.
SYSTEM_TOPS = frozenset({"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
                         "/mnt", "/proc", "/root", "/run", "/sbin", "/sys", "/usr", "/var"})


def _container_wrapper(keep: Path, alone: Path | None = None) -> list[str] | None:
    """As root with CAP_SYS_ADMIN: a private mount namespace whose /tmp, /var/tmp and /dev/shm
    are new (the container mode closes them to others, and must not close this machine's) and
    where a home folder that hides this interpreter from other users (pyenv under /root) is
    made passable (a tmpfs of mode 0711 over it, the interpreter's folder bound back), then
    CAP_SYS_ADMIN dropped as in a container with Docker's default privileges. `keep` and this
    environment (`sys.prefix`) are bound back into whatever was replaced above them (a
    checkout cloned under /tmp). `alone`: a folder that is all there is of the machine's own
    folders there (the test suite's checkout, beside other checkouts of the project that a
    container for one course would not hold): every top-level folder that is not the
    system's (`SYSTEM_TOPS`) is replaced by an empty one, and `alone` bound back. None where
    this cannot be done here."""
    from .sandbox.features import _python
    from .sandbox.probe import _has_cap_sys_admin

    unshare, setpriv = shutil.which("unshare"), shutil.which("setpriv")
    if os.geteuid() != 0 or not _has_cap_sys_admin() or not unshare or not setpriv:
        return None
    prefix = Path(_python()[1])
    closed = [a for a in reversed(prefix.parents) if not os.stat(a).st_mode & 0o001]
    if not os.stat(prefix).st_mode & 0o001:
        closed.append(prefix)
    if len(closed) > 1 or closed and closed[0] == prefix:
        return None
    over, child = "", ""
    if closed:
        over = str(closed[0])
        child = str(prefix.relative_to(closed[0]).parts[0])
    fresh = ("/tmp", "/var/tmp", "/dev/shm")
    # what stays visible under the new folders: `keep`, this environment (the check's venv
    # reads its packages) and `alone`, bound back after the folders above them are replaced
    keeps = sorted({str(Path(p)) for p in (keep, sys.prefix, alone) if p is not None},
                   key=len)
    # with `alone`: every other top-level folder that is not the system's is replaced by an
    # empty one (other checkouts of the project on this machine: /work, /home, /srv, ...)
    hides = []
    if alone is not None:
        tops = {"/" + Path(p).parts[1] for p in (prefix, over or "/root")
                if len(Path(p).parts) > 1}
        hides = [str(d) for d in sorted(Path("/").iterdir())
                 if d.is_dir() and not d.is_symlink() and str(d) not in SYSTEM_TOPS
                 and str(d) not in fresh and str(d) not in tops]
    script = ('set -e; over="$1"; child="$2"; n="$3"; shift 3; '
              'mount -t tmpfs -o mode=0700 tmpfs /mnt; mkdir /mnt/child; '
              'i=0; while [ $i -lt $n ]; do mkdir /mnt/k$i; mount --bind "$1" /mnt/k$i; '
              'printf %s "$1" > /mnt/p$i; shift; i=$((i+1)); done; '
              'if [ -n "$over" ]; then mount --bind "$over/$child" /mnt/child; '
              'mount -t tmpfs -o mode=0711 tmpfs "$over"; mkdir "$over/$child"; '
              'mount --bind /mnt/child "$over/$child"; fi; '
              'h="$1"; shift; while [ "$h" -gt 0 ]; do '
              'mount -t tmpfs -o mode=0755 tmpfs "$1"; shift; h=$((h-1)); done; '
              'for d in /tmp /var/tmp /dev/shm; do [ -d $d ] && mount -t tmpfs -o mode=1777 '
              'tmpfs $d; done; '
              'i=0; while [ $i -lt $n ]; do k="$(cat /mnt/p$i)"; mkdir -p "$k"; '
              'mount --bind /mnt/k$i "$k"; i=$((i+1)); done; '
              f'exec {setpriv} --bounding-set=-sys_admin --inh-caps=-sys_admin "$@"')
    return [unshare, "--mount", "--propagation", "private", "sh", "-c", script, "sh",
            over, child, str(len(keeps)), *keeps, str(len(hides)), *hides]


def check_zip(zip_path: str | Path, *, out=print) -> bool:
    """Unpack `zip_path` into a scratch ``/autograder`` layout and run its ``run_autograder``
    on the bundled correct and buggy examples in the zip's own mode, validating each
    results.json against :data:`RESULTS_SCHEMA` and its score (the correct one full marks, the
    buggy one partial). Prints what it finds (`out`); True when everything held."""
    zip_path = Path(zip_path)
    ok = True
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        run_text = z.read("run_autograder").decode("utf-8") if "run_autograder" in names else ""
    wheels = [n for n in names if n.endswith(".whl") and "/" not in n]
    if not {"setup.sh", "run_autograder"} <= set(names) or len(wheels) != 1:
        out(f"check: {zip_path} lacks setup.sh, run_autograder or its one wheel")
        return False
    mode = next((m for m in ZIP_MODES if f"--sandbox {m} " in run_text), "auto")
    with tempfile.TemporaryDirectory(prefix="andrea-check-") as tmp:
        os.chmod(tmp, 0o755)          # the worker's uid passes through to its own folder
        layout = Path(tmp) / "autograder"
        src = layout / "source"
        src.mkdir(parents=True)
        with zipfile.ZipFile(zip_path) as z:
            infos = {i.filename: i for i in z.infolist()}
            z.extractall(src)
        for name in ("setup.sh", "run_autograder"):
            os.chmod(src / name, (infos[name].external_attr >> 16) & 0o777 or 0o755)
        shutil.copy(src / "run_autograder", layout / "run_autograder")
        venv = _check_venv(layout, src / wheels[0])
        wrapper = _container_wrapper(Path(tmp)) if mode == "container" else []
        if wrapper is None:
            out("check: the zip grades in container mode, which needs root with "
                "CAP_SYS_ADMIN here (to give it a private /tmp, then drop the capability as "
                "Docker does); running it with bubblewrap (--sandbox auto) instead")
            wrapper = []
            (layout / "run_autograder").write_text(
                (layout / "run_autograder").read_text().replace("--sandbox container ",
                                                                "--sandbox auto "))
        for example, want in CHECK_EXAMPLES:
            sub = layout / "submission"
            shutil.rmtree(sub, ignore_errors=True)
            shutil.rmtree(layout / "results", ignore_errors=True)
            sub.mkdir()
            shutil.copy(_examples_dir() / example, sub / "submission.py")
            for d in (layout, sub):
                d.chmod(0o755)
            env = {**os.environ, "ANDREA_AUTOGRADER_ROOT": str(layout),
                   "ANDREA_VENV": str(venv)}
            env.pop("PYTHONPATH", None)
            try:
                p = subprocess.run(wrapper + [str(layout / "run_autograder")], env=env,
                                   capture_output=True, text=True, timeout=GRADE_TIMEOUT + 60,
                                   cwd=str(layout))
                stdout = p.stdout
            except subprocess.TimeoutExpired:
                stdout = "(run_autograder did not finish)"
            problems = []
            try:
                data = json.loads((layout / "results" / "results.json").read_text("utf-8"))
            except (OSError, ValueError) as exc:
                data, problems = None, [f"results.json is missing or not JSON ({exc})"]
            if data is not None:
                problems = results_problems(data)
                score = data.get("score") if isinstance(data, dict) else None
                if "andrea-grade failed" in stdout:
                    problems.append("run_autograder wrote its fallback result (score 0)")
                elif want == "full" and score != 100:
                    problems.append(f"score {score}, expected 100")
                elif want == "partial" and not (isinstance(score, (int, float))
                                                and 0 < score < 100):
                    problems.append(f"score {score}, expected partial credit")
            if problems:
                ok = False
                out(f"check: {example}: FAILED: " + "; ".join(problems))
                tail = "\n".join(stdout.strip().splitlines()[-8:])
                if tail:
                    out(tail)
            else:
                out(f"check: {example}: results.json valid, score {data['score']} "
                    f"(mode {mode if wrapper or mode != 'container' else 'auto'})")
    return ok


# ----------------------------------------------------------------------------- in the image
def setup_check(sandbox: str, source: str | None = None, out=print) -> int:
    """setup.sh's last step, in the image as root: what bubblewrap offers there, and for the
    container mode the grader's files (the kit in the environment, the zip's folder) made
    root-only and the image's world-writable folders closed to others."""
    from . import sandbox as sb

    exe = sb.bwrap_path()
    if exe:
        version, opts = sb.bwrap_features(exe)
        lacking = sb.features._lacking(exe)
        out(f"setup.sh: bubblewrap {version} at {exe}: --size {'yes' if '--size' in opts else 'no'}"
            f"; {lacking or 'has what the sandbox needs'}")
    else:
        out("setup.sh: bubblewrap is not installed")
    if sandbox != "container":
        if not exe or sb.features._lacking(exe):
            out("setup.sh: warning: this zip grades with bubblewrap, which cannot run here; "
                "every submission would get the fallback result. Make the zip with "
                "--sandbox container")
        return 0
    if os.geteuid() == 0:
        subprocess.run(["find", "/", "-xdev", "-type", "d", "-perm", "-0002",
                        "-not", "-path", "/proc/*", "-exec", "chmod", "o-rw", "{}", "+"],
                       capture_output=True, timeout=300)
    try:
        sb.prepare_container([source] if source else [])
    except sb.IsolationUnavailable as exc:
        out(f"setup.sh: container mode will refuse to grade here: {exc}")
        return 1
    out("setup.sh: container mode ready: the grader's files are readable by root only")
    return 0


def _main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m graders.grade.gradescope_zip")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("staff-summary", help="validate a results.json, print the staff summary")
    s.add_argument("results")
    s.add_argument("--lang", default="en")
    c = sub.add_parser("setup-check", help="setup.sh's last step")
    c.add_argument("--sandbox", default="container", choices=ZIP_MODES)
    c.add_argument("--source", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "setup-check":
        return setup_check(args.sandbox, args.source)
    try:
        with open(args.results, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"run_autograder: {args.results} is not valid JSON ({exc})", file=sys.stderr)
        return 1
    problems = results_problems(data)
    if problems:
        print(f"run_autograder: results.json does not follow Gradescope's fields: {problems[0]}",
              file=sys.stderr)
        return 1
    print(staff_summary(data, args.lang))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
