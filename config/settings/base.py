"""Settings shared by every environment, read from the environment with safe defaults.

Without ``DATABASE_URL`` the project runs on SQLite (WAL, immediate transactions);
without ``REDIS_URL`` it expects the embedded Redis-compatible server that
``manage.py runall`` starts and whose URL it exports as ``REDIS_URL``.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from config.secret_key import local_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("COLONIA_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    """A boolean environment variable ("1", "true", "yes", "on" are true)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated environment variable."""
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# Without DJANGO_SECRET_KEY, a random key made once in var/secret_key (never a published
# one); production.py refuses to start without a strong key of its own.
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or local_secret_key(VAR_DIR)
# Off unless asked for (`DJANGO_DEBUG=true make run`): users get real 404/500 pages.
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# A form whose token no longer matches (e.g. after a log-in in another tab): our page, in
# the reader's language, with the way back (config/error_views.py), with DEBUG as well.
CSRF_FAILURE_VIEW = "config.error_views.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Compresses its responses where BREACH cannot apply (see its docstring).
    "config.middleware.SafeGZipMiddleware",
    "config.middleware.RejectNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # 413 / 408 for bodies over the limits, in the form the client reads (JSON, HTMX, page).
    "config.middleware.BoundedRequestMiddleware",
    "config.middleware.BackendUnavailableMiddleware",
    # Last, as django-axes asks: it sees the outcome of authentication.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's layout and shared partials, then each feature's own templates
        # (games/<feature>/templates/, template names unchanged: "games/play.html"...).
        "DIRS": [BASE_DIR / "templates", *sorted(BASE_DIR.glob("games/*/templates"))],
        "OPTIONS": {
            # Each game's board package brings its own templates (games/boards/loader.py).
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "django.template.loaders.filesystem.Loader",
                        "django.template.loaders.app_directories.Loader",
                        "games.boards.loader.Loader",
                    ],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "games.turns.context_processors.turns",
            ],
        },
    },
]

# --- Content Security Policy (Django 6) -------------------------------------------------------
# Everything from this origin, nothing inline: no inline <script>, no style="" attributes
# (templates put positions in data- attributes that static/js/colonia.js applies).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],  # same-origin WebSockets included
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
#: Connections a web or worker process keeps open to PostgreSQL at most (``DB_POOL=off``:
#: none kept, one per request).
DB_POOL_MAX = int(os.environ.get("DB_POOL_MAX", "8"))


def database_from_url(url: str) -> dict:
    """The ``default`` database of ``DATABASE_URL``, PostgreSQL with a connection pool.

    Under ASGI every request runs in a thread of its own, so Django's persistent
    connections (``CONN_MAX_AGE``) are never reused: each request connected to PostgreSQL
    anew (a backend process forked per request, on every move).  psycopg's pool keeps a
    few connections per process instead; a request borrows one and gives it back at its
    end.  Celery's prefork children close their pool after each task.
    """
    database = dj_database_url.parse(url, conn_max_age=60)
    if database["ENGINE"] == "django.db.backends.postgresql" and env_bool("DB_POOL", True):
        database["CONN_MAX_AGE"] = 0  # the pool keeps them (Django refuses both at once)
        database.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1, "max_size": max(1, DB_POOL_MAX), "timeout": 10,
        }
    return database


if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(VAR_DIR / "colonia.sqlite3")),
            "OPTIONS": {
                # IMMEDIATE takes the write lock at BEGIN, so two writers queue up
                # instead of failing with "database is locked" halfway through.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL;"
                    "PRAGMA synchronous=NORMAL;"
                    "PRAGMA busy_timeout=20000;"
                    "PRAGMA foreign_keys=ON;"
                ),
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, Celery broker, cache ------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        # Pub/sub channels ignore Redis's database numbers: stacks sharing one Redis
        # (deploy/stack.py next to the tests) keep apart by prefix.
        "CONFIG": {"hosts": [REDIS_URL],
                   "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi")},
    }
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True  # tasks write to the database; nobody reads results
# Redis redelivers a task that was taken but never acknowledged (its worker died) only
# after this many seconds.  Set on purpose: well above the AI task's hard time limit
# (75 s), so a slow search is never handed to a second worker while it runs; the quick
# recovery of a lost turn is the sweep's job (below), not redelivery's.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "300")),
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
# Publishing a task when Redis is down must not hold a request for long: two quick
# retries, then the caller logs it and the sweep re-enqueues the turn later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5,
}
# AI turns that stay pending (task lost with a killed worker, broker down at enqueue
# time) are re-enqueued: by a periodic sweep (Celery beat, started with the worker by
# `make run`), when a worker starts, and when someone opens the game (page, API, socket).
# A duplicate task is a no-op (the version has moved on).
AI_STALL_SECONDS = int(os.environ.get("AI_STALL_SECONDS", "15"))
AI_SWEEP_SECONDS = float(os.environ.get("AI_SWEEP_SECONDS", "5"))
# After this many failed attempts at one turn the seat plays the greedy bot's move.
AI_MAX_ATTEMPTS = int(os.environ.get("AI_MAX_ATTEMPTS", "3"))
# Clocks: deadlines are kept in the database; this sweep applies the ones that passed
# (pages and API reads apply their game's too).  Each seat times out at most once.
CLOCK_SWEEP_SECONDS = float(os.environ.get("CLOCK_SWEEP_SECONDS", "5"))
# Open tables that never started are closed after this long (checked every few minutes).
OPEN_TABLE_EXPIRY_SECONDS = int(float(os.environ.get("OPEN_TABLE_EXPIRY_HOURS", "72")) * 3600)
OPEN_TABLE_SWEEP_SECONDS = float(os.environ.get("OPEN_TABLE_SWEEP_SECONDS", "300"))
CELERY_BEAT_SCHEDULE = {
    "sweep-stalled-ai": {
        "task": "games.tasks.sweep_stalled_ai",
        "schedule": AI_SWEEP_SECONDS,
        # A sweep that waited behind AI turns longer than a period is useless: drop it.
        "options": {"expires": AI_SWEEP_SECONDS},
    },
    "sweep-stalled-analyses": {
        "task": "games.tasks.sweep_stalled_analyses",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    "sweep-clocks": {
        "task": "games.tasks.sweep_clocks",
        "schedule": CLOCK_SWEEP_SECONDS,
        "options": {"expires": CLOCK_SWEEP_SECONDS},
    },
    "expire-open-tables": {
        "task": "games.tasks.expire_open_tables",
        "schedule": OPEN_TABLE_SWEEP_SECONDS,
        "options": {"expires": OPEN_TABLE_SWEEP_SECONDS},
    },
}

# --- Ratings (OpenSkill, Plackett-Luce; accounts/ratings.py) ---------------------------------
RATING_MU = 25.0
RATING_SIGMA = 25.0 / 3
# Shown rating = RATING_DISPLAY_BASE + RATING_DISPLAY_SCALE * (mu - 3 sigma): a newcomer 1500.
RATING_DISPLAY_BASE = 1500
RATING_DISPLAY_SCALE = 40

# Post-game analysis (games/analysis/, ai/analysis.py): ISMCTS iterations per decision
# (scaled per game like the AI levels), playouts per estimate, worlds to tell a draw; the
# task runs chunks of about ANALYSIS_CHUNK_SECONDS; an analysis with no progress for
# ANALYSIS_STALL_SECONDS is queued again; a chunk taken up ANALYSIS_MAX_ATTEMPTS times
# without progress fails the analysis.
ANALYSIS_ITERATIONS = int(os.environ.get("ANALYSIS_ITERATIONS", "300"))
ANALYSIS_SAMPLES = int(os.environ.get("ANALYSIS_SAMPLES", "16"))
ANALYSIS_WORLDS = int(os.environ.get("ANALYSIS_WORLDS", "3"))
ANALYSIS_CHUNK_SECONDS = float(os.environ.get("ANALYSIS_CHUNK_SECONDS", "2"))
ANALYSIS_STALL_SECONDS = int(os.environ.get("ANALYSIS_STALL_SECONDS", "60"))
ANALYSIS_MAX_ATTEMPTS = int(os.environ.get("ANALYSIS_MAX_ATTEMPTS", "3"))

# Practice help (games/practice/): a hint searches this many ISMCTS iterations (0: the
# hard level's budget for the game) for at most PRACTICE_HINT_SECONDS on the worker.
PRACTICE_HINT_ITERATIONS = int(os.environ.get("PRACTICE_HINT_ITERATIONS", "0"))
PRACTICE_HINT_SECONDS = float(os.environ.get("PRACTICE_HINT_SECONDS", "4"))

# Rules editor: a draft publishes after a passing simulation of at least this many games;
# a check plays in chunks of about this many seconds on the worker (AI turns wait at most
# one chunk); a check nobody advanced for this long is given up (its worker died).
EDITOR_MIN_SIMULATION_GAMES = int(os.environ.get("EDITOR_MIN_SIMULATION_GAMES", "10"))
EDITOR_MAX_SIMULATION_GAMES = int(os.environ.get("EDITOR_MAX_SIMULATION_GAMES", "1000"))
EDITOR_SIMULATION_CHUNK_SECONDS = float(os.environ.get("EDITOR_SIMULATION_CHUNK_SECONDS", "2"))
EDITOR_SIMULATION_STALE_SECONDS = int(os.environ.get("EDITOR_SIMULATION_STALE_SECONDS", "900"))

# --- Auth -------------------------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# django-axes: lock a (username, address) pair after repeated failures, for a cool-off.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_HOURS", "0.25"))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True

# Sign-ups allowed per client address per hour (the page; the API has the "register" throttle).
SIGNUP_RATE_LIMIT = int(os.environ.get("SIGNUP_RATE_LIMIT", "10"))

# Password reset: requests allowed per client address and per e-mail address per hour.
PASSWORD_RESET_RATE_LIMIT = int(os.environ.get("PASSWORD_RESET_RATE_LIMIT", "5"))

# Moves a signed-in player may submit per minute through the play page (the API has its
# own DRF throttle, "moves").
MOVE_RATE_LIMIT_PER_MINUTE = int(os.environ.get("MOVE_RATE_LIMIT_PER_MINUTE", "240"))

# Table chat: the longest message (characters), messages per person per minute.
CHAT_MAX_LENGTH = int(os.environ.get("CHAT_MAX_LENGTH", "500"))
CHAT_RATE_LIMIT = int(os.environ.get("CHAT_RATE_LIMIT", "10"))

# --- REST API ---------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "common.api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "register": os.environ.get("THROTTLE_REGISTER", "20/hour"),
        "token": os.environ.get("THROTTLE_TOKEN", "30/minute"),
        "moves": os.environ.get("THROTTLE_MOVES", "240/minute"),
        "analysis": os.environ.get("THROTTLE_ANALYSIS", "30/hour"),
    },
    # Every error in one shape: {"detail", "code", "errors"?} (common/api/errors.py).
    "EXCEPTION_HANDLER": "common.api.errors.exception_handler",
    # JSON only; the browsable API only while developing (DEBUG).
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
}
# How many proxies of ours append to X-Forwarded-For (0: trust only the socket's address).
# One rule for every per-address limit -- lockout, sign-up, API throttles: see
# common/client_ip.py.
TRUSTED_PROXIES = int(os.environ.get("NUM_PROXIES") or 0)
AXES_CLIENT_IP_CALLABLE = "common.client_ip.client_ip"
AXES_LOCKOUT_CALLABLE = "accounts.views.lockout"
# No uploads here: keep request bodies small.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
SPECTACULAR_SETTINGS = {
    "TITLE": "Colonia API",
    "DESCRIPTION": "Play New Haven and Nouvelle-France: tables, seats, views and moves.",
    "VERSION": "1",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.add_error_responses",
    ],
    # Swagger UI from this server (drf-spectacular-sidecar), never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several APIs have a "status" field with different choice sets: name each set once.
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.Game.Status",
        "VariantVersionStatusEnum": "games.models.VariantVersion.Status",
        "JobStatusEnum": "games.models.JobStatus",
        "AILevelEnum": "games.models.AI_LEVELS",
    },
}

# --- Cache (rate limits, throttles) -----------------------------------------------------------
CACHES = {
    "default": {
        "BACKEND": "config.cache.SharedRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "colonia",
        # Fail fast when Redis is down or hung: rate limits then fail open (logged).
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
    }
}

# --- E-mail (password reset, "your turn" notices) ----------------------------------------------
# The console by default (`make run` prints mails); EMAIL_BACKEND=smtp (with EMAIL_HOST...)
# in production, EMAIL_BACKEND=filebased + EMAIL_FILE_PATH for the browser tests.
_EMAIL_BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "filebased": "django.core.mail.backends.filebased.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
}
EMAIL_BACKEND = _EMAIL_BACKENDS.get(
    os.environ.get("EMAIL_BACKEND", "console"), os.environ.get("EMAIL_BACKEND", "")
)
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(VAR_DIR / "mail"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Colonia <noreply@localhost>")
# The public address of the site, for links in mails sent outside a request (turn notices).
SITE_URL = os.environ.get("SITE_URL", "http://localhost:8000")

# --- i18n -------------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("de", _("German")), ("fr", _("French")), ("it", _("Italian"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- Static files -----------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
# Compressed (gzip) copies and hashed names, made by collectstatic (`make run` runs it).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
