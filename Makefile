# The README's commands. Each target sets up .venv by itself, so it works on a fresh clone.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTHON ?= python3

.PHONY: dashboard test bench lint screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

dashboard: $(STAMP)
	$(VENV)/bin/streamlit run dashboard/app.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: lint
	$(VENV)/bin/pytest

# Refresh the README's pictures: the browser test, writing its screenshots into docs/screenshots.
screenshots: $(STAMP)
	COMPACTION_LAB_SCREENSHOTS=$(CURDIR)/docs/screenshots $(VENV)/bin/pytest tests/e2e -q

bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
