"""Fray's one settings module.

Defaults suit a laptop on a LAN: SQLite and the in-memory channel layer, data in a folder
outside version control. The environment switches to the scale-out parts: ``DATABASE_URL``
(PostgreSQL) and ``REDIS_URL`` (channels-redis). Every environment value is parsed by a typed
helper that fails loudly on a bad value.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
import tempfile
from pathlib import Path
from typing import NoReturn
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parents[2]


def env_str(name: str, default: str = "") -> str:
    """A string from the environment, or from the file named by ``NAME_FILE``.

    A ``NAME_FILE`` that names no readable file, or an empty one, stops the process with one
    line on standard error and status 1: a worker started without its secret key must not
    start at all (a traceback would say less), nor make up a key of its own."""
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            value = Path(file_name).read_text(encoding="utf-8").strip()
        except OSError as error:
            _refuse(_missing_file_message(name, file_name, error))
        if not value:
            _refuse(_missing_file_message(name, file_name, None))
        return value
    return os.environ.get(name, default)


# One command an operator can paste to make the shared key file (README, "Past one machine").
SECRET_KEY_COMMAND = (
    "(umask 077; python3 -c 'import secrets; print(secrets.token_urlsafe(50))' > {path})"
)


def _missing_file_message(name: str, file_name: str, error: OSError | None) -> str:
    if isinstance(error, FileNotFoundError):
        problem = "does not exist"
    elif error is not None:
        problem = f"cannot be read ({error.strerror or error})"
    else:
        problem = "is empty"
    if name != "SECRET_KEY":
        return f"{name}_FILE={file_name} {problem}."
    return (
        f"SECRET_KEY_FILE={file_name} {problem}. Create it once with "
        f"{SECRET_KEY_COMMAND.format(path=file_name)}, readable by the user the workers run "
        "as, and give every worker the same file: workers with different keys do not know "
        "each other's sessions."
    )


def _refuse(message: str) -> NoReturn:
    """Stop before Django starts: one line for the operator, status 1 for systemd."""
    sys.stderr.write(f"Fray cannot start: {message}\n")
    sys.stderr.flush()
    raise SystemExit(1)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}") from None


# Where the embedded SQLite database and the generated secret key live: outside git.
DATA_DIR = Path(env_str("FRAY_DATA_DIR", str(BASE_DIR / ".fray-data")))


def _secret_key() -> str:
    """The secret key from the environment, else one generated once into the data folder."""
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    key_file = DATA_DIR / "secret_key"
    try:
        return key_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        DATA_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)  # private: the key, the database
        key = secrets.token_urlsafe(50)
        # O_EXCL: two processes starting at once agree on the first key written.
        try:
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return key_file.read_text(encoding="utf-8").strip()
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(key)
        return key


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)

# The ``host`` command adds the machine's LAN addresses and names before serving.
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

from combat.systems import PACKAGES as SYSTEM_PACKAGES  # noqa: E402

INSTALLED_APPS = [
    "daphne",
    "django.contrib.sessions",
    "django.contrib.messages",
    "combat.apps.FrayStaticFilesConfig",  # django.contrib.staticfiles, with less to collect
    "channels",
    "django_htmx",
    "django.forms",  # its widget templates, for the form renderer that reads the project's
    "combat",
    *SYSTEM_PACKAGES,  # one app per rules system: its templates and template tags
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Secure cookies and HSTS on HTTPS answers only (FRAY_HSTS_SECONDS below).
    "combat.site.middleware.HttpsOnlyMiddleware",
    "combat.site.middleware.PrivatePagesMiddleware",
    "combat.site.middleware.QuietRefusalsMiddleware",
    # Static files answer here, before anything below runs: pre-compressed at collect time,
    # so GZipMiddleware never sees them (combat/site/serving.py).
    "combat.site.serving.StaticFilesMiddleware",
    # Compresses every other response, so it sits above everything that reads or writes a body
    # (Django's ordering advice). Pages carry CSRF tokens, hence BREACH: Django masks the token
    # afresh on every response, and since 4.2 this middleware adds "Heal the Breach" padding,
    # a random 0-99 byte file name in each gzip header (GZipMiddleware.max_random_bytes = 100,
    # django/utils/text.py compress_string). Websockets never pass through here.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's, naming the page's own websocket origin in connect-src (combat.site.middleware).
    "combat.site.middleware.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "combat.site.urls"
ASGI_APPLICATION = "combat.site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # Fray's own templates without the indentation they are written with
            # (combat.templates_loader), then third-party apps' as they are; each compiled once
            # per process, as Django's default loaders are.
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "combat.templates_loader.Loader",
                        "django.template.loaders.app_directories.Loader",
                    ],
                ),
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The log's entries (``.jinja``), drawn on the live path once per audience and language:
        # Jinja2 draws them several times faster than Django's engine (combat.jinja). Its
        # folders: templates/jinja2/ and each installed app's jinja2/ (the rules systems').
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": True,
        "OPTIONS": {"environment": "combat.jinja.environment"},
    },
]
# Forms and fields drawn by the project's templates (combat/forms/), widgets by Django's.
FORM_RENDERER = "combat.renderer.FormRenderer"


def _database_from_url(url: str) -> dict[str, object]:
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(f"DATABASE_URL must be postgres://…, not {parts.scheme!r}")
    return {
        # Django's, with a connection a request has just used not checked again
        # (combat.db.postgresql.base).
        "ENGINE": "combat.db.postgresql",
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
        # Kept between requests (see the note above ``DATABASES``), checked before reuse
        # once idle for a second.
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


# Persistent connections under ASGI: Django's documentation advises against them because
# sync code may run on many threads, each keeping a connection. Here requests run on a few
# kept threads (``combat.site.handler``), every consumer's database work on the one thread asgiref
# keeps for thread-sensitive code, and the live renderer on one thread of its own
# (``combat.live.hub``): a handful of connections per process, whatever the load. Reconnecting
# for every request cost about 1.2 ms of CPU on SQLite and more on PostgreSQL, against 0.5 ms
# for a typical query.
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": _database_from_url(DATABASE_URL)}
else:
    DATABASES = {
        "default": {
            # Django's, with each query's placeholders rewritten once (combat.db.sqlite.base).
            "ENGINE": "combat.db.sqlite",
            "NAME": DATA_DIR / "fray.sqlite3",
            "OPTIONS": {
                # Without IMMEDIATE a transaction that reads then writes fails at once with
                # "database is locked" under two writers; the pragmas give WAL's concurrency.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL;"
                    "PRAGMA synchronous=NORMAL;"
                    "PRAGMA foreign_keys=ON;"
                    "PRAGMA busy_timeout=20000;"
                ),
            },
            # Kept open between requests: see the note above ``DATABASES``.
            "CONN_MAX_AGE": None,
            # A file, not memory, so tests in several processes share one database.
            # One per test run (forked workers inherit it), outside the data folder, so two
            # runs in one checkout never share it.
            "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"fray-test-{os.getpid()}.sqlite3")},
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")
# What every channel and group name of this installation starts with in Redis. Pub/Sub channels
# belong to the whole server, whatever database number REDIS_URL names (/0, /1...): two
# installations sharing one Redis are kept apart by this prefix alone (channels_redis's
# ``prefix``, "asgi" by default).
CHANNEL_PREFIX = env_str("FRAY_CHANNEL_PREFIX", "asgi")
if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", CHANNEL_PREFIX):
    raise ImproperlyConfigured(
        f"FRAY_CHANNEL_PREFIX must be 1-64 letters, digits, '_', '.' or '-', not {CHANNEL_PREFIX!r}"
    )
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Pub/Sub: measured to keep up with bursts where the list-based layer dropped.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_PREFIX},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Seats are bound to the browser through the session; signed cookies need no table.
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 60
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("cs", "Čeština"),
    ("ru", "Русский"),
    ("uk", "Українська"),
]
LOCALE_PATHS = [BASE_DIR / "combat" / "locale"]
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
LANGUAGE_COOKIE_SAMESITE = "Lax"
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# `host` and `serve` collect here at startup, only when the sources changed: hashed names
# (fray.3f2a….css) cached for a year, with gzip and brotli copies. Nobody runs
# collectstatic by hand (combat/site/serving.py).
STATIC_ROOT = DATA_DIR / "static"
try:  # whitenoise warns about a missing folder, even when nothing was collected
    DATA_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
except OSError:
    pass
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Without a collect (tests, runserver) it names the plain files instead of failing.
    "staticfiles": {"BACKEND": "combat.site.serving.StaticFilesStorage"},
}
# Half the collect time: the plain-named copies are never linked from a page.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
# Pages and their files come from one origin (the laptop): no "Access-Control-Allow-Origin: *"
# on every file, 31 bytes a request of a phone's first load.
WHITENOISE_ALLOW_ALL_ORIGINS = False
# Plain names come straight from the app folders: for the test suite and runserver, which
# never collect, and for anyone who asks for /static/fray.css by name.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG  # host and serve force it off with DEBUG (combat/site/serving.py)

# Security headers that make sense on plain-HTTP LAN hosting; the HTTPS ones are documented
# as deliberately off in README (``check --deploy`` warns about exactly those).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Browsers ignore COOP over plain HTTP and log an error on every page; combat.site.middleware sends
# it on HTTPS requests only.
SECURE_CROSS_ORIGIN_OPENER_POLICY = None
# Over HTTPS (a club's proxy that sets X-Forwarded-Proto: https to workers run with
# ``serve --proxy-headers``): every cookie Secure, and HSTS for this many seconds, a year unless
# FRAY_HSTS_SECONDS says otherwise (0: none). Sent by combat.site.middleware.HttpsOnlyMiddleware
# on HTTPS answers alone, so a LAN table over plain HTTP never gets them; Django's own
# SECURE_HSTS_SECONDS and *_COOKIE_SECURE would apply to plain HTTP too, and stay off.
FRAY_HSTS_SECONDS = env_int("FRAY_HSTS_SECONDS", 60 * 60 * 24 * 365)
if FRAY_HSTS_SECONDS < 0:
    raise ImproperlyConfigured(f"FRAY_HSTS_SECONDS must be 0 or more, not {FRAY_HSTS_SECONDS}")
# --- `check --deploy` on plain HTTP (owned by the host command's author; see README) ---
# Fray is served over plain HTTP on a LAN, so these four HTTPS-only settings must stay off:
# secure-only cookies would never reach the server, and an SSL redirect or HSTS would lock
# phones out. Silenced on purpose, exactly these; a test asserts nothing else is reported.
SILENCED_SYSTEM_CHECKS = [
    "security.W004",  # SECURE_HSTS_SECONDS
    "security.W008",  # SECURE_SSL_REDIRECT
    "security.W012",  # SESSION_COOKIE_SECURE
    "security.W016",  # CSRF_COOKIE_SECURE
]
# --- end `check --deploy` ---

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        # Scripts and styles from this server only: default-src says it for them (a directive
        # of its own each would be the same words in every page's answer again).
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        # Websockets to the page's own origin only: 'self' covers ws:/wss: of the same host and
        # port in CSP Level 3; the middleware names that origin too, for older Safari.
        "connect-src": ["'self'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Capability links hold secrets in URL paths (/r/<key>/, /join/<token>/, /d/<token>/):
    # every handler redacts them, so no log line hands out the table (combat/logs.py).
    "filters": {
        "redact_capabilities": {"()": "combat.logs.RedactCapabilities"},
        "one_line": {"()": "combat.site.logfilters.OneLine"},
    },
    "formatters": {
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["redact_capabilities"]},
        # runserver's access log, as Django configures it, but redacted.
        "django.server": {
            "class": "logging.StreamHandler",
            "formatter": "django.server",
            "level": "INFO",
            "filters": ["redact_capabilities"],
        },
        # Refusals of what a client sent: one line each, never a traceback.
        "refusals": {
            "class": "logging.StreamHandler",
            "filters": ["one_line", "redact_capabilities"],
        },
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    "loggers": {
        # Django's own console handler (DEBUG only) would print every line a second time,
        # unredacted; its lines reach the root handler anyway.
        "django": {"handlers": [], "level": "INFO"},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
        # What Django refuses as suspicious (a request naming a host not in ALLOWED_HOSTS, a
        # body too large): the client gets its 400, the log one line, "Invalid HTTP_HOST
        # header: 'x'...". No handler at all is not silence: Python's last-resort handler then
        # printed each with its 14-line traceback.
        "django.security": {"handlers": ["refusals"], "propagate": False},
    },
}

# Where players reach this machine (``http://192.168.1.20:8000/``): links and QR codes shown to
# a referee who opened Fray as localhost use the first. ``host`` fills it with the LAN
# addresses it found; behind a reverse proxy, set FRAY_PLAYER_URL.
FRAY_PLAYER_URLS = env_list("FRAY_PLAYER_URL", [])
FRAY_LOG_PAGE = 30  # roll-log entries shown live; older ones on the log page
