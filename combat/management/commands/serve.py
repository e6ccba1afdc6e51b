"""``manage.py serve``: one ASGI worker for a scale-out deployment, behind a reverse proxy.

What ``host`` does without the table-side conveniences: no migrations (run ``migrate`` once,
not in every worker), no LAN addresses, no QR code. DEBUG is off whatever the environment
says, and the optional access log never shows a referee key or join token, which Daphne's
own ``--access-log`` would.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from combat.logs import RedactedAccessLog
from combat.site.serving import DaphneCommand

# What Django trusts to mean "the browser used HTTPS" once --proxy-headers says a proxy sets it.
FORWARDED_PROTO = ("HTTP_X_FORWARDED_PROTO", "https")


class Command(DaphneCommand):
    help = "Serve Fray as one ASGI worker (for several workers behind a reverse proxy)."

    default_port = 8000
    default_bind = "127.0.0.1"
    bind_help = "address to listen on; the reverse proxy connects here"

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--access-log",
            nargs="?",
            const="-",
            metavar="FILE",
            help="write an access log, every capability link redacted ('-' or no FILE: "
            "standard output)",
        )
        parser.add_argument(
            "--proxy-headers",
            action="store_true",
            help="trust the proxy's X-Forwarded-For, -Port and -Proto headers (only behind a "
            "proxy that sets them): client addresses in the log, HTTPS detection",
        )

    def serve(self, options: dict[str, Any]) -> None:
        bind: str = options["bind"].strip() or self.default_bind
        self.prepare_data_folder()
        if options["proxy_headers"]:
            # Requests and the websocket Origin check (combat/site/middleware.py) both read it.
            settings.SECURE_PROXY_SSL_HEADER = FORWARDED_PROTO
        log_stream = self._open_log(options["access_log"])
        try:
            self.run_daphne(
                bind=bind,
                port=options["port"],
                verbosity=options["verbosity"],
                action_logger=RedactedAccessLog(log_stream) if log_stream else None,
                ready=lambda server: self._announce(server, bind),
                proxy_headers=options["proxy_headers"],
            )
        finally:
            if log_stream is not None and log_stream is not sys.stdout:
                log_stream.close()

    def _open_log(self, target: str | None) -> TextIO | None:
        if target is None:
            return None
        if target == "-":
            return sys.stdout
        try:
            return open(target, "a", encoding="utf-8", buffering=1)  # closed in serve()
        except OSError as error:
            raise CommandError(f"Cannot write the access log {target}: {error}") from None

    def _announce(self, server: Any, bind: str) -> None:
        port = server.listening_addresses[0][1] if server.listening_addresses else "?"
        host = f"[{bind.strip('[]')}]" if ":" in bind else bind
        self.stdout.write(f"Fray worker listening on http://{host}:{port}/")
        self.stdout.flush()
