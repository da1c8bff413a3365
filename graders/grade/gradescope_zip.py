"""`andrea-grade gradescope-zip`: the autograder zip Gradescope expects, in one command.

    andrea-grade gradescope-zip --output autograder.zip [--spec S] [--lang nl] [--profile grading]

The zip holds, at its top level:

* ``setup.sh`` (executable): run once by Gradescope when it builds the image (Ubuntu 22.04 base
  images ship Python 3.10; this package needs 3.11+, so it installs ``python3.11`` and
  ``python3.11-venv`` from the distribution when no Python 3.11+ is there), installs bubblewrap
  for the sandbox, makes a virtual environment and installs the wheel into it;
* ``run_autograder`` (executable): run for every submission; grades ``/autograder/submission``
  into ``/autograder/results/results.json`` and never leaves that file missing or invalid (on
  any failure it writes a valid result with score 0 and a message in the course's language, and
  prints the reason for the staff);
* ``andrea_conformance-<version>-py3-none-any.whl``: this package, built from the source tree
  when the zip is made, so the image builds without a checkout;
* the spec file, when ``--spec`` is a path rather than a bundled name.

Gradescope unpacks the zip into ``/autograder/source`` and copies ``run_autograder`` to
``/autograder/run_autograder``; the scripts find the zip's files in ``$ROOT/source`` (or beside
themselves). ``ANDREA_AUTOGRADER_ROOT`` (default ``/autograder``) and ``ANDREA_VENV`` (default
``$ROOT/andrea-venv``) relocate both scripts, which is how the test suite runs them.
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
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04 base).
# Made by andrea-grade gradescope-zip.
set -euo pipefail
ROOT="${ANDREA_AUTOGRADER_ROOT:-/autograder}"
# The zip is unpacked in $ROOT/source; run from there (or from beside this script).
cd "$ROOT/source" 2>/dev/null || cd "$(dirname "$0")"
VENV="${ANDREA_VENV:-$ROOT/andrea-venv}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
PY=""
for cand in python3.13 python3.12 python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 \
       && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
       && "$cand" -c 'import ensurepip' 2>/dev/null; then
        PY="$cand"; break
    fi
done
if [ -z "$PY" ]; then
    # Ubuntu 22.04 ships Python 3.10; python3.11 is in its universe component.
    apt-get install -y -qq python3.11 python3.11-venv
    PY=python3.11
fi
# bubblewrap isolates each submission (without it the grader refuses to run submissions).
apt-get install -y -qq bubblewrap || echo "setup.sh: bubblewrap not installed; grading will be refused"
"$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q ./andrea_conformance-*.whl
"$VENV/bin/andrea-grade" --help >/dev/null
echo "setup.sh: andrea-grade installed in $VENV with $("$VENV/bin/python" --version)"
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission. Made by andrea-grade gradescope-zip.
# It always leaves a valid results.json: on any failure, score 0 and a message for the student;
# the reason is printed on standard output, which only the staff see.
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
status=0
timeout -k 30 "${ANDREA_GRADE_TIMEOUT:-1500}" "$VENV/bin/andrea-grade" "$ROOT/submission" \
    --format gradescope --output "$TMP" @ARGS@ >"$LOG" 2>&1 || status=$?
cat "$LOG"
if [ "$status" -eq 0 ] && "$VENV/bin/python" - "$TMP" <<'CHECK' 2>>"$LOG"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
ok = (isinstance(data, dict) and isinstance(data.get("score"), (int, float))
      and isinstance(data.get("tests", []), list))
sys.exit(0 if ok else 1)
CHECK
then
    mv -f "$TMP" "$RESULTS"
    exit 0
fi
echo "run_autograder: andrea-grade failed (exit status $status); wrote the fallback result"
cat > "$RESULTS" <<'FALLBACK'
@FALLBACK@
FALLBACK
rm -f "$TMP" "$LOG"
exit 0
"""


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
              profile: str = "grading", wheel: str | Path | None = None) -> Path:
    """Write the autograder zip; returns its path. `wheel`: a wheel of this package already
    built (else one is built from the source tree)."""
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
           .replace("@FALLBACK@", fallback_result(lang)))
    with tempfile.TemporaryDirectory(prefix="andrea-zip-") as tmp:
        wheel = Path(wheel) if wheel is not None else build_wheel(Path(tmp))
        part = output.with_name(f".{output.name}.part")
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in (("setup.sh", SETUP_SH), ("run_autograder", run)):
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | 0o755) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, text)
            z.write(wheel, wheel.name)
            if spec_file is not None:
                z.write(spec_file, spec_file.name)
        os.replace(part, output)
    return output
