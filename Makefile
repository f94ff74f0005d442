# Two entry points (see README.md): `make reproduce` and `make test`; `make docs` builds the
# documentation site into output/site/ (offline), `make browser-test` checks it in Chromium.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed

.PHONY: reproduce test docs browser-test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,opendp,accounting]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[dev,opendp,docs]"
	touch $(DOCS_STAMP)

reproduce: $(STAMP)
	$(PY) -m garesearch reproduce --output output --figures figures

test: $(STAMP)
	$(PY) -m ruff check garesearch tests notebooks docs setup.py
	$(PY) -m pytest -n auto

docs: $(DOCS_STAMP)
	$(PY) -m garesearch reproduce --output output --figures figures
	$(PY) -m sphinx -b html -q docs output/site
	@echo "[docs] output/site/index.html"

browser-test: $(STAMP)
	$(PY) -m pytest -m browser tests/test_browser.py

bench: $(STAMP)
	$(PY) -m garesearch.bench

clean:
	rm -rf $(VENV) output docs/_generated
