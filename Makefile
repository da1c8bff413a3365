# make demo  - create .venv, install, run the conformance suite on the bundled correct and buggy submissions
# make test  - create .venv, install, run the whole test suite
# make selfcheck-wheel - the students' kit (andrea-selfcheck, no reference) in dist/
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
EXTRAS ?= test,gpu,cluster

.PHONY: venv demo test bench bench-gpu selfcheck-wheel clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(PY) -m graders.demo

test: venv
	$(PY) -m pytest -q -p no:cacheprovider

bench: venv
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) benchmarks/bench_reference.py

bench-gpu: venv
	$(PY) benchmarks/bench_gpu.py

selfcheck-wheel: venv
	$(VENV)/bin/andrea-grade student-kit --output dist

clean:
	rm -rf $(VENV) .hypothesis .pytest_cache build dist *.egg-info
