# Two entry points (see README.md): `make reproduce` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: reproduce test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,opendp,accounting]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

reproduce: $(STAMP)
	$(PY) -m garesearch reproduce --output output

test: $(STAMP)
	$(PY) -m ruff check garesearch tests notebooks
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m garesearch.bench

clean:
	rm -rf $(VENV) output
