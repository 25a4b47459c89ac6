# The README's commands. Each target sets up .venv by itself, so it works on a fresh clone.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTHON ?= python3
# The port `make dashboard` serves on: `make dashboard PORT=8600`.
PORT   ?= 8501

.PHONY: dashboard test bench lint screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Prints the address the page is served at (http://127.0.0.1:$(PORT)); open it in a browser.
dashboard: $(STAMP)
	$(VENV)/bin/compaction-lab dashboard --port $(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
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
