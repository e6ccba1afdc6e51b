"""What ``host`` and ``serve`` share: Daphne with DEBUG off, a private data folder, access logs
without capabilities, and static files with hashed names, collected when they changed.

The static files' storage and middleware (named in settings) live here too: ``host`` and
``serve`` collect into the storage at startup, and the middleware serves what they collected.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

import django
from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.functional import empty
from django.utils.module_loading import import_string
from whitenoise import compress
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.storage import CompressedManifestStaticFilesStorage

# Settings that combat/site/settings.py computes from DEBUG when it is imported, with their value
# for DEBUG off. Forcing DEBUG off at run time must force these too; a test parses the
# settings module and fails when a new one is missing here.
DEBUG_DERIVED: dict[str, object] = {"WHITENOISE_AUTOREFRESH": False}

# Daphne's cap on a websocket message holds for what the server sends too: a referee's full
# snapshot of a large table is tens of kilobytes, so the cap stays Daphne's megabyte. What a
# browser may send is judged by the consumer (``combat.live.consumers.MAX_FRAME_CHARS``).
WEBSOCKET_MAX_MESSAGE_BYTES = 1024 * 1024

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600

# Beside the collected files: the digest of the sources they were collected from, and the lock
# that keeps two workers starting on one data folder from collecting into it at once.
SOURCES_DIGEST_FILE = ".fray-sources"
COLLECT_LOCK_FILE = ".fray-collect.lock"
# Bump to make every data folder collect again (a change in how files are processed).
COLLECT_RECIPE = "3"  # 2: comments left out of Fray's own CSS and JavaScript; 3: indentation

# What a browser never reads: CSS comments (strings kept as they are), JavaScript lines that
# hold a comment alone, and the indentation and blank lines of both (neither language reads
# a line's leading spaces, and neither string spans lines in Fray's files: no template
# literals, no continued strings). A phone's first load has a budget (issue 7), and the
# sources keep their comments and indentation for the people who read them.
_CSS_COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
_JS_COMMENT_LINE = re.compile(r"^[ \t]*//[^\n]*\n", re.M)
_INDENTATION_OR_BLANK_LINE = re.compile(r"^[ \t]+|^\n", re.M)


def lean(name: str, text: str) -> str:
    """``text`` of static file ``name`` without what only its readers need (see above); any
    other file, and minified ones, as they are."""
    if name.endswith(".css"):
        text = _CSS_COMMENT_OR_STRING.sub(
            lambda m: "" if m.group().startswith("/*") else m.group(), text
        )
    elif name.endswith(".js") and ".min." not in name.rpartition("/")[2]:  # "x.min.3f2a….js"
        text = _JS_COMMENT_LINE.sub("", text)
    else:
        return text
    return _INDENTATION_OR_BLANK_LINE.sub("", text)


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's hashed and pre-compressed files, or the plain names when not collected.

    ``host`` and ``serve`` collect at startup, so pages they serve name ``fray.3f2a….css``.
    The test suite, ``runserver`` and a bare ``check`` never collect: a name missing from the
    manifest stays as it is (WhiteNoise serves it from the app folders, WHITENOISE_USE_FINDERS)
    instead of failing the page, and no hash is ever computed while a request waits.
    """

    def _save(self, name: str, content: Any) -> str:
        # Every copy (the file, then its hashed name) is saved lean: leaning is idempotent,
        # so the hash is of what is served.
        if name.endswith((".css", ".js")):
            content.seek(0)  # the hashed copy's content was read for its hash already
            content = ContentFile(lean(name, content.read().decode()).encode())
        return super()._save(name, content)

    def stored_name(self, name: str) -> str:
        clean_name = urlsplit(unquote(name)).path.strip()
        if self.hash_key(clean_name) not in self.hashed_files:
            return name
        return super().stored_name(name)


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise with a year, not its ten, for hashed names: a year is what RFC 2616 allowed
    and what caches are known to honour; a new version gets a new name long before."""

    FOREVER = 60 * 60 * 24 * 365


def force_debug_off() -> None:
    """DEBUG off in this process, whatever the environment said: tracebacks with settings
    must never reach a phone on the LAN, and a server must not keep every query in memory."""
    settings.DEBUG = False
    for name, value in DEBUG_DERIVED.items():
        setattr(settings, name, value)


def _tighten(path: Path, mode: int) -> None:
    """Take away permissions beyond ``mode`` from ``path`` if it exists and is ours."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
        return  # not ours to change: a link, or a folder someone else shares with us
    if stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_ISVTX:
        return  # a shared sticky folder such as /tmp, named as the data folder by mistake
    current = stat.S_IMODE(info.st_mode)
    if current & ~mode:
        os.chmod(path, current & mode)


def sqlite_files(database: Path) -> list[Path]:
    """The database file and the two files SQLite keeps next to it in WAL mode."""
    return [database, Path(f"{database}-wal"), Path(f"{database}-shm")]


def make_data_folder_private(data_dir: Path, database: Path | None) -> None:
    """The data folder 0700; the SQLite files and the generated secret key 0600. Creates the
    folder (and an empty database file) when missing, and tightens a referee's older ones."""
    data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    if os.name != "posix":
        return
    _tighten(data_dir, PRIVATE_DIR)
    _tighten(data_dir / "secret_key", PRIVATE_FILE)
    if database is None:
        return
    database.parent.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    # SQLite creates -wal and -shm with the database file's mode, so the database file is
    # made first, private (an empty file is an empty SQLite database).
    try:
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        pass
    for path in sqlite_files(database):
        _tighten(path, PRIVATE_FILE)


def static_sources() -> dict[str, tuple[Any, str]]:
    """Every file ``collectstatic`` would collect, by its name under STATIC_URL: the first
    finder's file wins, as in ``collectstatic``."""
    ignore_patterns = apps.get_app_config("staticfiles").ignore_patterns
    found: dict[str, tuple[Any, str]] = {}
    for finder in finders.get_finders():
        for path, storage in finder.list(ignore_patterns):
            prefix = getattr(storage, "prefix", None)
            name = f"{prefix.strip('/')}/{path}" if prefix else path
            found.setdefault(name.replace(os.sep, "/"), (storage, path))
    return found


def static_sources_digest(sources: dict[str, tuple[Any, str]]) -> str:
    """A digest of every source file's name and content, and of what turns them into the
    collected files. Content, not modification times: an upgraded package's files keep the
    times in its wheel (or the installer's cache), which may be older than the last collect.
    Reading them all (under a megabyte) takes milliseconds."""
    digest = hashlib.sha256()
    recipe = [
        COLLECT_RECIPE,
        django.get_version(),
        settings.STORAGES["staticfiles"]["BACKEND"],
        settings.STATIC_URL,
        str(compress.brotli_installed),
        str(getattr(settings, "WHITENOISE_KEEP_ONLY_HASHED_FILES", False)),
    ]
    digest.update("\0".join(recipe).encode())
    for name in sorted(sources):
        storage, path = sources[name]
        digest.update(b"\0" + name.encode() + b"\0")
        with storage.open(path) as source:
            digest.update(source.read())
    return digest.hexdigest()


def _collected_files_present(root: Path, manifest_name: str) -> bool:
    """Whether the manifest is there and names only files that are there too."""
    try:
        manifest = json.loads((root / manifest_name).read_text(encoding="utf-8"))
        hashed = manifest["paths"].values()
    except (OSError, ValueError, KeyError, AttributeError):
        return False
    return all((root / name).is_file() for name in hashed)


@contextlib.contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) until the block ends; the
    system releases it when the process dies, so a crash never leaves it stale."""
    with open(path, "a+b") as handle:
        _lock(handle)
        yield


def _lock(handle: IO[bytes]) -> None:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # retries for ten seconds
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)


def collect_static_if_needed() -> bool:
    """Collect the static files into STATIC_ROOT, hashed and compressed, unless what is there
    was collected from exactly the current sources. True when it collected.

    A second start costs a few milliseconds (reading the sources to compare their digest);
    a fresh data folder, or new sources after ``git pull`` or an upgrade, a collect (a few
    tenths of a second).
    """
    manifest_name = _manifest_name()
    if manifest_name is None or not settings.STATIC_ROOT:
        return False  # nothing to collect for: plain names are served from the app folders
    root = Path(settings.STATIC_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(root / COLLECT_LOCK_FILE):
        sources = static_sources()
        digest = static_sources_digest(sources)
        marker = root / SOURCES_DIGEST_FILE
        try:
            collected_from = marker.read_text(encoding="utf-8").strip()
        except OSError:
            collected_from = ""
        if collected_from == digest and _collected_files_present(root, manifest_name):
            return False
        # What the collect must not trust: an old manifest (the storage refuses a damaged one
        # before collecting anything), and plain-named copies an interrupted collect left,
        # which collectstatic would not replace if they look newer than their source (as an
        # upgraded package's file may, keeping its wheel's time).
        forget_collected_static()
        for name in sources:
            (root / name).unlink(missing_ok=True)
        # Hashed files of earlier collects stay: a worker still running on this folder may
        # have sent pages that name them.
        call_command("collectstatic", interactive=False, verbosity=0)
        _write_atomically(marker, digest)
    return True


def forget_collected_static() -> None:
    """Remove the manifest and the digest, so pages name the plain files until the next
    collect; the storage reloads its (now empty) manifest on next use."""
    root = Path(settings.STATIC_ROOT)
    (root / SOURCES_DIGEST_FILE).unlink(missing_ok=True)
    manifest_name = _manifest_name()
    if manifest_name:
        (root / manifest_name).unlink(missing_ok=True)
    staticfiles_storage._wrapped = empty


def _manifest_name() -> str | None:
    """The configured storage's manifest file, None if it keeps none. From the class: an
    instance would load the manifest, and refuse a damaged one."""
    backend = import_string(settings.STORAGES["staticfiles"]["BACKEND"])
    if not issubclass(backend, ManifestFilesMixin):
        return None
    return str(backend.manifest_name)


def _write_atomically(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def configured_sqlite_file() -> Path | None:
    database = settings.DATABASES["default"]
    if database["ENGINE"] not in ("combat.db.sqlite", "django.db.backends.sqlite3"):
        return None
    return Path(database["NAME"])


class DaphneCommand(BaseCommand):
    """A management command that serves Fray with Daphne until Ctrl-C or SIGTERM."""

    default_port = 8000
    default_bind = "0.0.0.0"
    bind_help = "address to listen on"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--port",
            type=int,
            default=self.default_port,
            help=f"TCP port (default {self.default_port}; 0 picks one)",
        )
        parser.add_argument(
            "--bind",
            default=self.default_bind,
            help=f"{self.bind_help} (default {self.default_bind})",
        )

    def execute(self, *args: Any, **options: Any) -> Any:
        # Before the system checks, which build the template engines from DEBUG.
        force_debug_off()
        return super().execute(*args, **options)

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0 <= options["port"] <= 65535:
            raise CommandError(f"--port must be between 0 and 65535, not {options['port']}")
        in_main_thread = threading.current_thread() is threading.main_thread()
        if in_main_thread:
            previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
            # Ctrl-C stops the server even when a launcher started us with SIGINT ignored (a
            # background job); until the server installs its own handlers, SIGTERM stops as
            # quietly as Ctrl-C.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
        try:
            self.serve(options)
        except KeyboardInterrupt:
            self.stdout.write("\nFray stopped.")
        finally:
            if in_main_thread:
                for sig, handler in previous.items():
                    if handler is not None:
                        signal.signal(sig, handler)

    def serve(self, options: dict[str, Any]) -> None:
        raise NotImplementedError

    def prepare_data_folder(self) -> None:
        make_data_folder_private(Path(settings.DATA_DIR), configured_sqlite_file())
        try:
            collect_static_if_needed()
        except Exception as error:
            # The pages still work: every name falls back to the plain one, served from the app
            # folders. A referee at the table is better served by a slower page than by none.
            with contextlib.suppress(OSError):
                forget_collected_static()
            self.stderr.write(
                f"Static files could not be collected ({error}); serving them uncompressed."
            )

    def run_daphne(
        self,
        *,
        bind: str,
        port: int,
        verbosity: int,
        action_logger: Callable[[str, str, dict[str, Any]], None] | None,
        ready: Callable[[Any], None],
        proxy_headers: bool = False,
    ) -> None:
        """Serve ``settings.ASGI_APPLICATION`` until stopped; ``ready`` gets the server once
        it listens (its ``listening_addresses`` name the real port when ``port`` is 0)."""
        # Imported only now, after settings are final: the ASGI module builds the middleware
        # (and importing Daphne's server installs Twisted's reactor).
        from daphne.endpoints import build_endpoint_description_strings

        forwarded: dict[str, str] = {}
        if proxy_headers:
            forwarded = {
                "proxy_forwarded_address_header": "X-Forwarded-For",
                "proxy_forwarded_port_header": "X-Forwarded-Port",
                "proxy_forwarded_proto_header": "X-Forwarded-Proto",
            }
        application = import_string(settings.ASGI_APPLICATION)
        server = _server_class()(
            application=application,
            endpoints=[
                f"{endpoint}:backlog={LISTEN_BACKLOG}"
                for endpoint in build_endpoint_description_strings(host=bind, port=port)
            ],
            signal_handlers=True,
            action_logger=action_logger,
            verbosity=verbosity,
            websocket_max_message_size=WEBSOCKET_MAX_MESSAGE_BYTES,
            ready_callable=lambda: ready(server),
            **forwarded,
        )
        connect_ahead()
        settle_memory()
        server.run()
        if not server.listening_addresses:
            raise CommandError(f"Could not listen on {bind}:{port} (is the port in use?)")
        self.stdout.write("Fray stopped.")


# Connections the kernel holds for the server to accept. Twisted's default is 50: a crowd of
# phones connecting at once (a table of 200 sockets, or every page reconnecting after a
# restart) overflowed it, and the kernel dropped the rest, which browsers retried a second
# later (the last of 200 had its first state after 1.2 s instead of 0.6 s).
LISTEN_BACKLOG = 1024


def connect_ahead() -> None:
    """Open before listening the database connections the live parts keep open: the render
    thread's (``combat.live.hub``) and that of the thread asgiref runs sockets' database work on
    (their sessions). A fresh worker's first sockets otherwise waited for both to connect,
    one after the other (on PostgreSQL, tens of milliseconds)."""
    from asgiref.sync import sync_to_async
    from django.db import connection

    from combat.live.hub import RENDER_THREAD

    def connect() -> None:
        connection.ensure_connection()  # the connection of the thread this runs on

    RENDER_THREAD.submit(connect).result()
    # From an event loop of its own on a thread of its own: asyncio.run would leave the main
    # thread without the loop Daphne's reactor set up there.
    thread = threading.Thread(target=lambda: asyncio.run(sync_to_async(connect)()))
    thread.start()
    thread.join()


def settle_memory() -> None:
    """Do before listening what the first requests and sockets would otherwise do, and keep
    the collector's full passes short while serving.

    Every view module is imported and the URL patterns worked out, and every template is
    compiled: a live render reverses URLs, so a process's first one, on a worker that had
    served no page yet, imported every view (measured in-process: 0.24 s against 0.02 s for
    the next; 0.06 s after this). The channel layer is made: the first socket made it
    otherwise, on the event loop, and channels_redis's import alone held the loop 0.4-0.5 s
    while every other socket waited (a second worker's first sockets, scaled out).

    What starting built lives as long as the process, so it is left out of every pass
    (``gc.freeze``), and passes run less often. A full pass over a warm process took some
    100 ms, a pause every socket of every table felt at once."""
    from channels.layers import get_channel_layer
    from django.template.loader import get_template
    from django.urls import get_resolver

    get_resolver().reverse_dict  # noqa: B018 -- read for what reading it builds
    for name in _template_names():
        get_template(name)
    get_channel_layer()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _template_names() -> list[str]:
    """Every template of the project's template folders, by the name views ask for."""
    return [
        path.relative_to(folder).as_posix()
        for engine in settings.TEMPLATES
        for folder in map(Path, engine.get("DIRS", ()))
        for path in sorted(folder.rglob("*.html"))
    ]


# Young objects collected after 10,000 allocations rather than 700: a change allocates tens
# of thousands, and most of them are gone by the end of it anyway.
GC_THRESHOLDS = (10_000, 10, 10)


def _server_class() -> type:
    from daphne.server import Server
    from twisted.web import http

    class FrayServer(Server):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # No "Server: daphne" on every answer: a phone's first load has a budget.
            kwargs.setdefault("server_name", "")
            super().__init__(*args, **kwargs)

        def protocol_connected(self, protocol: Any) -> None:
            if isinstance(protocol, http.Request):
                # Twisted parses a form's body into ``request.args`` before Daphne gets the
                # request (the content type through the email package, 1 % of the CPU a
                # change costs); Daphne passes the raw body on and Django parses it.
                protocol._parsePOSTFormSubmission = False  # Request(parsePOSTFormSubmission=)
            super().protocol_connected(protocol)

        def kill_all_applications(self) -> Any:
            # Daphne 4.2 drops a connection's "application_instance" once the application
            # ends but keeps the connection until the client goes, then reads that key for
            # every connection at shutdown: a KeyError traceback on Ctrl-C (shown at -v 2).
            everything = self.connections
            self.connections = {
                protocol: details
                for protocol, details in everything.items()
                if details.get("application_instance") is not None
            }
            try:
                return super().kill_all_applications()
            finally:
                self.connections = everything

    return FrayServer


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
