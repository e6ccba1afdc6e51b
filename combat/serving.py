"""What ``host`` and ``serve`` share: Daphne with DEBUG off, a private data folder, and access
logs without capabilities."""

from __future__ import annotations

import os
import signal
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.module_loading import import_string

# Settings that combat/settings.py computes from DEBUG when it is imported, with their value
# for DEBUG off. Forcing DEBUG off at run time must force these too; a test parses the
# settings module and fails when a new one is missing here.
DEBUG_DERIVED: dict[str, object] = {"WHITENOISE_AUTOREFRESH": False}

# The only frame a browser sends is {"type": "sync"}: a megabyte (Daphne's default) is room
# for nothing but abuse.
WEBSOCKET_MAX_MESSAGE_BYTES = 16 * 1024

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


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


def configured_sqlite_file() -> Path | None:
    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3":
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
        static_root = settings.STATIC_ROOT
        if static_root and Path(static_root).is_relative_to(settings.DATA_DIR):
            # WhiteNoise warns about a missing STATIC_ROOT; files come from the finders anyway.
            Path(static_root).mkdir(parents=True, exist_ok=True)

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
            endpoints=build_endpoint_description_strings(host=bind, port=port),
            signal_handlers=True,
            action_logger=action_logger,
            verbosity=verbosity,
            websocket_max_message_size=WEBSOCKET_MAX_MESSAGE_BYTES,
            ready_callable=lambda: ready(server),
            **forwarded,
        )
        server.run()
        if not server.listening_addresses:
            raise CommandError(f"Could not listen on {bind}:{port} (is the port in use?)")
        self.stdout.write("Fray stopped.")


def _server_class() -> type:
    from daphne.server import Server

    class FrayServer(Server):
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
