# Two entry points (see README.md): `make reproduce` and `make test`; `make docs` builds the
# documentation site into output/site/ (offline), `make browser-test` checks it in Chromium.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed

.PHONY: reproduce test test-quick test-full docs browser-test lint bench erratum clean git-filter lab

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,opendp,accounting,docs]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	$(MAKE) --no-print-directory git-filter
	touch $(STAMP)

# the docs extra comes with the set-up (tests/test_docs.py reads docs/conf.py)
$(DOCS_STAMP): $(STAMP)
	touch $(DOCS_STAMP)

# what the main job reads: `make docs` runs it again only when one of these changed since the
# last `make reproduce` (output/.reproduced records that run)
REPRO_INPUTS := pyproject.toml setup.py $(shell find garesearch notebooks examples -type f \
	-not -path '*/__pycache__/*' -not -name '*.pyc' 2>/dev/null)
REPRO_STAMP := output/.reproduced

reproduce: $(STAMP)
	$(PY) -m garesearch reproduce --output output --figures figures
	touch $(REPRO_STAMP)

$(REPRO_STAMP): $(STAMP) $(REPRO_INPUTS)
	$(PY) -m garesearch reproduce --output output --figures figures
	touch $(REPRO_STAMP)

# the test command (README): the linter and the suite, with each slow sweep sampled
# (pytest keeps its rewritten test modules in __pycache__ even where the environment asks
# Python not to write bytecode: each worker saves about 4 s on every run after the first)
test: $(STAMP)
	$(PY) -m ruff check garesearch tests notebooks docs setup.py
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n auto --dist loadgroup

# the edit-test loop: the core formulas' tests (under 10 s)
test-quick: $(STAMP)
	$(PY) -m pytest -n auto tests/test_bound.py tests/test_noise.py \
	  tests/test_mechanisms.py tests/test_accuracy.py tests/test_conventions.py

# every sweep in full, the notebooks under pytest and the slow checks (about 15 min on 2 cores)
test-full: $(STAMP)
	$(PY) -m ruff check garesearch tests notebooks docs setup.py
	GARESEARCH_FULL_SWEEPS=1 $(PY) -m pytest -n auto --dist loadgroup -m "not browser"

docs: $(DOCS_STAMP) $(REPRO_STAMP)
	$(PY) -m sphinx -b html -q -W --keep-going docs output/site
	@echo "[docs] output/site/index.html"

browser-test: $(STAMP)
	$(PY) -m pytest -m browser tests/test_browser.py tests/test_docs_links.py

# git stores the notebooks without outputs whatever JupyterLab saved (.gitattributes)
git-filter:
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  git config filter.nbstrip.clean "$(PY) -m garesearch.app.nbclean" && \
	  git config filter.nbstrip.smudge cat && \
	  echo "[git-filter] notebooks are committed without outputs"; fi

# JupyterLab on copies of the notebooks in lab/ (git-ignored; existing copies are kept)
lab: $(STAMP)
	$(PY) -m garesearch notebooks --output lab
	$(VENV)/bin/jupyter lab lab/notebooks

bench: $(STAMP)
	$(PY) -m garesearch.app.bench

# the paper's erratum from the claims report: output/erratum.tex (and .md); the PDF too where
# latexmk or pdflatex is installed
erratum: $(STAMP)
	$(PY) -m garesearch erratum --output output --pdf

clean:
	rm -rf $(VENV) output docs/_generated
