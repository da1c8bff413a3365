# make demo  - create .venv, install, run the conformance suite on the bundled correct and buggy submissions
# make test  - create .venv, install (and bubblewrap, as root with apt), run the whole test suite
# make pythons - the grading path under Python 3.10 and 3.13 (.venv-py3.X; PYVERSIONS=...)
# make selfcheck-wheel - the students' kit (andrea-selfcheck, no reference) in dist/
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
EXTRAS ?= test,gpu,cluster,fast

.PHONY: venv bytecode bwrap chromium demo test pythons bench bench-gpu selfcheck-wheel clean
PYVERSIONS ?= 3.10 3.13

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

venv: $(VENV)/.installed bytecode

# Byte-compile the project (an editable install is not, and where PYTHONDONTWRITEBYTECODE is set
# every command would compile its modules again: ~50-100 ms per andrea-* command). Stale files
# are recompiled; Python ignores a .pyc whose source changed since.
bytecode: $(VENV)/.installed
	@$(PY) -m compileall -q andrea_runtime andrea_ref andrea_gpu graders spec benchmarks

demo: venv
	$(PY) -m graders.demo

# andrea-grade runs untrusted code only in bubblewrap; install it where we can (root with apt).
bwrap:
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null) || true; \
	  fi; \
	  command -v bwrap >/dev/null 2>&1 || echo "note: bubblewrap is not installed: andrea-grade \
	refuses untrusted code here, and the tests that need isolation are skipped"; \
	fi

# The report pages (summary.html, similarity.html, HTML feedback) are checked in a real headless
# browser; install Debian's chromium where we can (root with apt), else those tests are skipped.
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends chromium \
	      fonts-dejavu-core fonts-nanum >/dev/null) || true; \
	  fi; \
	  command -v chromium >/dev/null 2>&1 || echo "note: chromium is not installed: the tests \
	that load the report pages in a headless browser are skipped"; \
	fi

# Two pytest processes share the tests file by file (pytest-xdist); the tests marked serial
# (the container mode changes the modes of the grader's files) run after them, alone.
TEST_JOBS ?= 2
test: venv bwrap chromium
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_JOBS) --dist loadfile -m "not serial"
	$(PY) -m pytest -q -p no:cacheprovider -m serial

# The oldest and newest Python the project supports: a correct, a buggy and a notebook submission
# graded end to end, and the fast unit tests (.ci/python-version; CI runs it after make test).
pythons: bwrap
	@for v in $(PYVERSIONS); do .ci/python-version $$v || exit 1; done

bench: venv
	$(PY) -m pip install -q -e ".[bench]"
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(PY) benchmarks/bench_reference.py

bench-gpu: venv
	$(PY) benchmarks/bench_gpu.py

selfcheck-wheel: venv
	$(VENV)/bin/andrea-grade student-kit --output dist

clean:
	rm -rf $(VENV) .venv-py3.* .hypothesis .pytest_cache build dist *.egg-info
	find andrea_runtime andrea_ref andrea_gpu graders spec benchmarks tests -name __pycache__ -prune -exec rm -rf {} +
