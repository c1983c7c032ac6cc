"""Test settings: speed overrides only. Real PostgreSQL + pgvector and real Redis."""

import os

os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-secret-key-not-for-production")
os.environ.setdefault("ENGRAM_EMBEDDER", "hashing")

from .base import *  # noqa: F403
from .base import DATABASES, REDIS_URL

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Django empties tables with TRUNCATE between transactional tests; the audit table's TRUNCATE
# guard lets its owner do that only with this session setting (audit migration 0004).
DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c engram.audit_truncate=allow"


# Tests use db 15 of the configured Redis so they never touch real data; a second suite
# running beside the first (another checkout) picks another db with ENGRAM_TEST_REDIS_DB.
TEST_REDIS_DB = os.environ.get("ENGRAM_TEST_REDIS_DB", "15")


def _redis_test_db(url: str) -> str:
    base, _, last = url.rpartition("/")
    return f"{base}/{TEST_REDIS_DB}" if last.isdigit() else url.rstrip("/") + f"/{TEST_REDIS_DB}"


REDIS_TEST_URL = _redis_test_db(REDIS_URL)
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_TEST_URL,
        "KEY_PREFIX": "engram-test",
    }
}
CELERY_BROKER_URL = REDIS_TEST_URL
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

# One directory per test run, removed by tests/conftest.py at the end of the session.
ENGRAM_EXPORT_DIR = Path(tempfile.mkdtemp(prefix="engram-test-exports-"))
STATIC_ROOT = Path(tempfile.gettempdir()) / "engram-test-static"
STATIC_ROOT.mkdir(exist_ok=True)
