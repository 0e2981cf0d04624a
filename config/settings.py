"""Settings, read from the environment through django-environ (see README: Configuration)."""

import os
import secrets
import sys
from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent
# A checkout keeps the site-wide templates/ and static/ beside the code (and its data under var/); an installed
# wheel carries them inside this package (setup.py) and keeps its data under the working directory.
IS_CHECKOUT = (BASE_DIR / "manage.py").is_file()
SITE_DIR = BASE_DIR if IS_CHECKOUT else Path(__file__).resolve().parent
VAR_DIR = BASE_DIR / "var" if IS_CHECKOUT else Path.cwd() / "var"

env = environ.Env(
    DEBUG=(bool, False),
    ALLOWED_HOSTS=(list, ["localhost", "127.0.0.1", "[::1]", "testserver"]),
    LORE_SWEEP_CRONTAB=(str, "0 3 * * *"),
    SECURE_SSL_REDIRECT=(bool, False),
)
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env("DEBUG")
SECRET_KEY = env("SECRET_KEY", default="")
if not SECRET_KEY:
    if DEBUG:
        # Development only: the prefix makes `check --deploy` flag it.
        SECRET_KEY = "django-insecure-development-only-" + "x" * 40
    elif "pytest" in sys.modules:
        # The test suite: a random key per run, inherited by the processes the tests start.
        SECRET_KEY = os.environ["SECRET_KEY"] = secrets.token_urlsafe(50)
    else:
        sys.exit("Lore Explorer refuses to start: SECRET_KEY is not set and DEBUG is off (set SECRET_KEY).")
ALLOWED_HOSTS = env("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",  # throttles failed sign-ins per username and per address
    "template_partials",
    "csp",  # the Content-Security-Policy header (CONTENT_SECURITY_POLICY below)
    "ninja",  # serves Swagger UI for /api/v1/docs from its own static files, never a CDN
    "lore",
    "policies",
    "explorer",
    "members",
]

MIDDLEWARE = [
    "config.metrics.RequestLatencyMiddleware",  # first: times everything below (only while /metrics is on)
    "django.middleware.security.SecurityMiddleware",
    "lore.access.AccountPathMiddleware",  # /a/<slug>/… → the account of the URL, carried by reverse()
    "lore.timeouts.StatementTimeoutMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: answers a locked-out sign-in
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out username or address before any check
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "config.urls"
# A request body Django reads whole (lore/limits.py: REQUEST_BODY_MAX; an import streams under IMPORT_BODY_MAX).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=5 * 1024 * 1024)
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "lore.context_processors.account",
            ],
        },
    }
]
WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'lore.sqlite3'}")}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # WAL lets the web process read while the Celery worker writes a sweep.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update(
        {"timeout": 30, "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# lore.Lesson's covering index (lesson_active_facts) carries INCLUDE columns on PostgreSQL; SQLite keeps its key only.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sessions expire: two weeks after sign-in by default, or when the browser closes if asked.
# Flash messages live in the (database-backed) session, never in a cookie: Django's cookie storage trusts a
# message its signature marks as safe HTML, so anyone holding the key could make a page render raw HTML.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=14 * 24 * 3600)
SESSION_EXPIRE_AT_BROWSER_CLOSE = env.bool("SESSION_EXPIRE_AT_BROWSER_CLOSE", default=False)
# Failed sign-ins (django-axes): after AXES_FAILURE_LIMIT failures a username, and separately an address, is locked
# out for AXES_COOLOFF_MINUTES; a successful sign-in clears that username's count.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# The address throttled is REMOTE_ADDR (gunicorn's peer): a forwarded header is never trusted.
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"  # the account home: the one account, or a chooser
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [SITE_DIR / "static"]
STATIC_ROOT = env("STATIC_ROOT", default=str((BASE_DIR if IS_CHECKOUT else Path.cwd()) / "staticfiles"))

# Security headers (production values come from the environment; see `manage.py check --deploy`).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): scripts, styles and everything else from this site only. No template
# carries an inline script or an on*= handler (tests/reliability/test_csp.py); JavaScript lives in static/js.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
    }
}
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env("SECURE_SSL_REDIRECT")
# The container healthcheck and a Prometheus inside the compose network ask over plain HTTP from inside.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
# Behind a proxy that terminates TLS: the header it sets, e.g. SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https
_proxy_ssl_header = env.list("SECURE_PROXY_SSL_HEADER", default=[])
SECURE_PROXY_SSL_HEADER = tuple(_proxy_ssl_header) if len(_proxy_ssl_header) == 2 else None
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)

# Celery: Redis when configured; otherwise kombu's filesystem transport so `make run` needs nothing but Python.
REDIS_URL = env("REDIS_URL", default="")
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "filesystem://")
CELERY_BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
        "processed_folder": str(CELERY_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),  # kombu's default is ./control, in the repo
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {"visibility_timeout": 3600}
)
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
LORE_SWEEP_CRONTAB = env("LORE_SWEEP_CRONTAB")
# The semantic gardener (possible duplicates, docs/gardener.md): off by default; needs the `semantic` extra on the
# worker. A deployment setting, not an account's: whether the model is installed is the host's business.
LORE_GARDEN_SEMANTIC = env.bool("LORE_GARDEN_SEMANTIC", default=False)
# After a fold of buffered reads (lore.reads), a plain VACUUM of the lessons marks their pages all-visible again;
# off by default: autovacuum does it too (docs/architecture.md, "Reads").
LORE_READS_FOLD_VACUUM = env.bool("LORE_READS_FOLD_VACUUM", default=False)
# The decay score halves every this many days without an agent open (docs/decay.md).
LORE_DECAY_HALF_LIFE_DAYS = env.float("LORE_DECAY_HALF_LIFE_DAYS", default=35.0)
# Dashboard exports and imports (lore.transfer_jobs): their files, an export until TRANSFER_EXPIRES.
LORE_TRANSFER_DIR = env("LORE_TRANSFER_DIR", default=str(VAR_DIR / "transfers"))

# The Prometheus endpoint /metrics (config/metrics.py): off (404) until this token is set; a scraper sends it as
# `Authorization: Bearer …`. No default: a short one is refused at start, like a missing SECRET_KEY.
LORE_METRICS_TOKEN = env("LORE_METRICS_TOKEN", default="")
METRICS_TOKEN_MIN_LENGTH = 32
if LORE_METRICS_TOKEN and len(LORE_METRICS_TOKEN) < METRICS_TOKEN_MIN_LENGTH:
    sys.exit(
        f"Lore Explorer refuses to start: LORE_METRICS_TOKEN has fewer than {METRICS_TOKEN_MIN_LENGTH} characters "
        '(make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"), or leave it unset.'
    )

# Mail (invitations): sent only when EMAIL_HOST is set; otherwise the one-time link is shown to the admin only.
EMAIL_HOST = env("EMAIL_HOST", default="")
EMAIL_PORT = env.int("EMAIL_PORT", default=587)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="lore@localhost")
# The address people reach the dashboard at, for links printed by commands and sent in mail (no request to ask).
LORE_BASE_URL = env("LORE_BASE_URL", default="http://127.0.0.1:8000").rstrip("/")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="WARNING")},
}
