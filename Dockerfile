# The Cuarenta table server: one asyncio process per container; run several behind a proxy.
# Build context: the repository (see .dockerignore). `docker compose up` builds and runs it.
# The two base images are build arguments, so a machine without a registry builds it from local
# images (`make deploy-test` gives podman ones made from Debian's packages, deploy/images/).
ARG NODE_IMAGE=node:20-bookworm-slim
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- browser libraries of the web client, pinned by package-lock.json ---------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /src/clients/web
COPY clients/web/package.json clients/web/package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev

# --- the Python package, pinned by requirements.lock ----------------------------------------------
FROM ${PYTHON_IMAGE} AS server
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY pyproject.toml requirements.lock README.md LICENSE ./
COPY engine/ engine/
COPY protocol/ protocol/
COPY server/ server/
COPY clients/ clients/
COPY bench/ bench/
COPY --from=web /src/clients/web/node_modules/ clients/web/node_modules/
# `python3 -m pip`: the official image's python3 and Debian's /usr/bin/python3 alike. Then the
# pocket's files (the engine's sources zipped for the browser's Pyodide, clients/pocket.py): built
# here as `make` builds them, so the image's /pocket.html plays offline too.
RUN python3 -m pip install -c requirements.lock . \
    && python3 clients/pocket.py clients/web/offline \
    && useradd --system --uid 10001 --home-dir /app cuarenta
USER cuarenta

# Settings come from CUARENTA_* variables (see `cuarenta serve --help`); the store is Redis here.
# The web client is served from the tree copied here (its node_modules, the pocket's zip), not
# from the installed package, which holds only the client's own sources.
ENV CUARENTA_HOST=0.0.0.0 \
    CUARENTA_PORT=8765 \
    CUARENTA_LOG_FORMAT=json \
    CUARENTA_WEB_ROOT=/app/clients/web
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('CUARENTA_PORT', '8765') + '/readyz', timeout=3)"]
# SIGTERM (docker stop) is a graceful shutdown: tables are handed over, clients told to reconnect.
STOPSIGNAL SIGTERM
ENTRYPOINT ["cuarenta"]
CMD ["serve"]
