"""Engram settings: everything comes from the environment (see .env.example and the README)."""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = env_bool("DJANGO_DEBUG", False)
# Production secrets have no default; a development server may run with a throwaway key.
SECRET_KEY = env_str("DJANGO_SECRET_KEY", None if not DEBUG else "dev-only-insecure-key-change-me")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # pgvector's index classes need it
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI assets served locally (closed networks)
    "guardian",
    "django_htmx",
    "django_celery_beat",
    "core",
    "accounts",
    "memory",
    "audit",
    "console",
    "privacy",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.middleware.ServiceUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "console.context_processors.console",
            ],
        },
    }
]

DATABASE_URL = env_str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/engram")
# Persistent connections are checked before each request reuses them: after a database
# restart a worker reconnects instead of failing on a dead socket.
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured(
        "Engram needs PostgreSQL with pgvector (DATABASE_URL=postgres://...)."
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "engram",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
}

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/console/"
LOGOUT_REDIRECT_URL = "login"
GUARDIAN_RAISE_403 = False
ANONYMOUS_USER_NAME = None  # guardian: no anonymous user row

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("ENGRAM_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = Path(env_str("ENGRAM_DATA_DIR", str(BASE_DIR / ".data" / "files")))

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Only behind a proxy that sets X-Forwarded-Proto itself; otherwise clients could spoof it.
if env_bool("DJANGO_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.AgentKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.IsAgent"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "accounts.schema.AgentApiSchema",
    "EXCEPTION_HANDLER": "core.exception_handler.api_exception_handler",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Engram API",
    "DESCRIPTION": (
        "Long-term memory for AI agents: events in, versioned memories and recall out. "
        "A mem0-compatible API is served under /mem0/ (a compatibility surface following "
        "mem0's own API; see the README, section 'The mem0-compatible API'). An MCP server "
        "(streamable HTTP, tools named like mem0's) is served at /mcp on the MCP port (README, "
        "'The MCP server'), and clients/python/ is a typed Python SDK for this v1 API "
        "(README, 'Python SDK')."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: JSON only, explicit time limits. Every task goes through the outbox (core/outbox.py),
# so publishing must fail fast when the broker is down: no connection retries (kombu would
# sleep ~2 s per publish), short timeouts; the message waits in PostgreSQL for the relay.
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_SOFT_TIME_LIMIT = env_int("ENGRAM_TASK_SOFT_TIME_LIMIT", 300, minimum=1)
CELERY_TASK_TIME_LIMIT = CELERY_TASK_SOFT_TIME_LIMIT + 60
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 0.5,
    "socket_timeout": 2,
    "max_retries": 0,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "core.beat:OutageTolerantDatabaseScheduler"
CELERY_TASK_ALWAYS_EAGER = False

# --- Engram ---
ENGRAM_MAX_EVENT_CHARS = env_int("ENGRAM_MAX_EVENT_CHARS", 20_000, minimum=1)
ENGRAM_MAX_EVENTS_PER_REQUEST = env_int("ENGRAM_MAX_EVENTS_PER_REQUEST", 500, minimum=1)
ENGRAM_EXTRACTOR = env_str("ENGRAM_EXTRACTOR", "rules")  # rules | llm
ENGRAM_EMBEDDER = env_str("ENGRAM_EMBEDDER", "use")  # use | openai | hashing
ENGRAM_EMBEDDING_DIM = 512
ENGRAM_AGENT_KEY_PEPPER = env_str("ENGRAM_AGENT_KEY_PEPPER", SECRET_KEY)
# Seals the audit chain (HMAC). Keep it apart from the database (an attacker who can write the
# table must not hold it). Rotating it: `manage.py audit_reseal` (docs/audit.md).
ENGRAM_AUDIT_HMAC_KEY = env_str("ENGRAM_AUDIT_HMAC_KEY", SECRET_KEY)
ENGRAM_WORKER_HEARTBEAT_TTL = env_int("ENGRAM_WORKER_HEARTBEAT_TTL", 120, minimum=10)
ENGRAM_PENDING_SWEEP_AGE = env_int("ENGRAM_PENDING_SWEEP_AGE", 60, minimum=0)
# An extraction claimed longer ago than this was abandoned (its worker died): above the task's
# hard time limit, so a live worker has always finished or failed it by then.
ENGRAM_EXTRACTION_LEASE = env_int("ENGRAM_EXTRACTION_LEASE", CELERY_TASK_TIME_LIMIT + 60, minimum=1)
OPENAI_API_KEY = env_str("OPENAI_API_KEY", "")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL", "")
ENGRAM_LLM_MODEL = env_str("ENGRAM_LLM_MODEL", "gpt-4o-mini")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("ENGRAM_LOG_LEVEL", "INFO")},
    "loggers": {"jieba": {"level": "WARNING"}},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("ENGRAM_MAX_REQUEST_BYTES", 10 * 1024 * 1024, minimum=1024)

# Memory lifecycle (decay and forgetting). Days and thresholds; see memory/lifecycle.py.
ENGRAM_DECAY_ARCHIVE_LOW_DAYS = env_int("ENGRAM_DECAY_ARCHIVE_LOW_DAYS", 30, minimum=1)
ENGRAM_DECAY_ARCHIVE_LOW_IMPORTANCE = env_float("ENGRAM_DECAY_ARCHIVE_LOW_IMPORTANCE", 0.3)
ENGRAM_DECAY_ARCHIVE_MID_DAYS = env_int("ENGRAM_DECAY_ARCHIVE_MID_DAYS", 90, minimum=1)
ENGRAM_DECAY_ARCHIVE_MID_IMPORTANCE = env_float("ENGRAM_DECAY_ARCHIVE_MID_IMPORTANCE", 0.5)
ENGRAM_DECAY_PURGE_DAYS = env_int("ENGRAM_DECAY_PURGE_DAYS", 180, minimum=1)
ENGRAM_DECAY_PURGE_CONFIDENCE = env_float("ENGRAM_DECAY_PURGE_CONFIDENCE", 0.7)
ENGRAM_PURGE_GRACE_DAYS = env_int("ENGRAM_PURGE_GRACE_DAYS", 30, minimum=0)
ENGRAM_LIFECYCLE_BATCH = env_int("ENGRAM_LIFECYCLE_BATCH", 5000, minimum=1)
# Half-life (days) of effective importance per category: plans fade fast, decisions slowest.
ENGRAM_DECAY_HALF_LIFE_DAYS = {
    "plan": env_int("ENGRAM_HALF_LIFE_PLAN", 30, minimum=1),
    "correction": env_int("ENGRAM_HALF_LIFE_CORRECTION", 90, minimum=1),
    "fact": env_int("ENGRAM_HALF_LIFE_FACT", 180, minimum=1),
    "preference": env_int("ENGRAM_HALF_LIFE_PREFERENCE", 240, minimum=1),
    "profile": env_int("ENGRAM_HALF_LIFE_PROFILE", 365, minimum=1),
    "decision": env_int("ENGRAM_HALF_LIFE_DECISION", 540, minimum=1),
    "episodic": env_int("ENGRAM_HALF_LIFE_EPISODIC", 365, minimum=1),
}

# Encryption at rest of raw event content: comma-separated Fernet keys, first one encrypts.
ENGRAM_ENCRYPTION_KEYS = env_list("ENGRAM_ENCRYPTION_KEYS", [])

# Privacy: export files (access requests) and erasure approvals.
ENGRAM_EXPORT_DIR = Path(env_str("ENGRAM_EXPORT_DIR", str(MEDIA_ROOT / "exports")))
ENGRAM_EXPORT_LINK_MAX_AGE = env_int("ENGRAM_EXPORT_LINK_MAX_AGE", 24 * 3600, minimum=60)
ENGRAM_EXPORT_RETENTION_HOURS = env_int("ENGRAM_EXPORT_RETENTION_HOURS", 72, minimum=1)
ENGRAM_ERASURE_REQUIRES_APPROVAL = env_bool("ENGRAM_ERASURE_REQUIRES_APPROVAL", False)
ENGRAM_PORTAL_LINK_MAX_AGE = env_int("ENGRAM_PORTAL_LINK_MAX_AGE", 15 * 60, minimum=30)

# Recall: optional LLM query rewriting (needs OPENAI_API_KEY); adds a model call per new query.
ENGRAM_RECALL_QUERY_REWRITE = env_bool("ENGRAM_RECALL_QUERY_REWRITE", False)
ENGRAM_RECALL_REWRITE_TIMEOUT = env_float("ENGRAM_RECALL_REWRITE_TIMEOUT", 3.0)
