"""``manage.py host``: serve Fray over the LAN, pages and websockets, in one process."""

from __future__ import annotations

import io
import ipaddress
import re
import socket
import subprocess
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError, CommandParser

from combat.logs import redact_path
from combat.site.serving import DaphneCommand

DEFAULT_PORT = 8000
DEFAULT_BIND = "0.0.0.0"
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
# A UDP "connect" only asks the kernel which interface would route there; no packet is sent.
# Several private targets, so a machine without a default route still finds its LAN address.
PROBE_TARGETS = ("10.255.255.255", "192.168.255.255", "172.31.255.255")
LOOKUP_TIMEOUT = 2.0

_IP_COMMAND_ADDRESS = re.compile(r"\binet\s+(\d{1,3}(?:\.\d{1,3}){3})/")
_FIB_TRIE_LEAF = re.compile(r"\|--\s+(\d{1,3}(?:\.\d{1,3}){3})\s*$")


def usable_ipv4(address: str) -> bool:
    """Whether a phone on the LAN could reach this machine at ``address``."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return (
        ip.version == 4
        and not ip.is_loopback
        and not ip.is_unspecified
        and not ip.is_multicast
        and not ip.is_link_local
    )


def addresses_from_ip_command(output: str) -> list[str]:
    """The IPv4 addresses in the output of ``ip -4 -o addr``."""
    return _IP_COMMAND_ADDRESS.findall(output)


def addresses_from_fib_trie(text: str) -> list[str]:
    """The machine's own IPv4 addresses in ``/proc/net/fib_trie``: leaves marked /32 LOCAL."""
    found = []
    leaf = None
    for line in text.splitlines():
        match = _FIB_TRIE_LEAF.search(line)
        if match:
            leaf = match.group(1)
        elif "+--" in line:
            leaf = None
        elif leaf and "/32 host LOCAL" in line:
            found.append(leaf)
    return list(dict.fromkeys(found))


def _with_timeout(lookup: Callable[[], list[str]], timeout: float) -> list[str]:
    """Run a lookup that may hang (a name resolver with no network) for at most ``timeout``."""
    result: list[str] = []

    def run() -> None:
        try:
            result.extend(lookup())
        except OSError:
            pass

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    return list(result) if not worker.is_alive() else []


def addresses_from_hostname(hostname: str, timeout: float = LOOKUP_TIMEOUT) -> list[str]:
    """The IPv4 addresses the machine's own name resolves to."""

    def lookup() -> list[str]:
        infos = socket.getaddrinfo(hostname, None, socket.AF_INET, socket.SOCK_STREAM)
        return [str(info[4][0]) for info in infos]

    return _with_timeout(lookup, timeout)


def outgoing_address(target: str) -> str | None:
    """The local address the kernel would use to reach ``target`` (sends nothing)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((target, 9))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def _ip_command_output() -> str:
    try:
        completed = subprocess.run(
            ["ip", "-4", "-o", "addr", "show"],
            capture_output=True,
            text=True,
            timeout=LOOKUP_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return completed.stdout if completed.returncode == 0 else ""


def _fib_trie_text() -> str:
    try:
        return Path("/proc/net/fib_trie").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def order_addresses(primary: Iterable[str | None], others: Iterable[str]) -> list[str]:
    """Usable addresses without repeats: the routed ones first, then private before public."""
    seen: dict[str, None] = {}
    for address in primary:
        if address and usable_ipv4(address):
            seen.setdefault(address, None)
    rest = [a for a in dict.fromkeys(others) if usable_ipv4(a) and a not in seen]
    rest.sort(key=lambda a: not ipaddress.ip_address(a).is_private)
    return [*seen, *rest]


def lan_addresses(hostname: str | None = None) -> list[str]:
    """Every non-loopback IPv4 address of this machine, the most likely one first.

    Uses no network and no extra package; each source may be missing, and then adds nothing.
    """
    hostname = socket.gethostname() if hostname is None else hostname
    primary = [outgoing_address(target) for target in PROBE_TARGETS]
    others = [
        *addresses_from_ip_command(_ip_command_output()),
        *addresses_from_fib_trie(_fib_trie_text()),
        *(addresses_from_hostname(hostname) if hostname else []),
    ]
    return order_addresses(primary, others)


def machine_names(hostname: str) -> list[str]:
    """Names a browser on the LAN may use for this machine: its hostname and mDNS name."""
    names = ["localhost"]
    name = hostname.strip().rstrip(".").lower()
    if name:
        short = name.split(".", 1)[0]
        names += [name, short, f"{short}.local"]
    return list(dict.fromkeys(names))


def extended_allowed_hosts(
    configured: Iterable[str], addresses: Iterable[str], names: Iterable[str], extra: Iterable[str]
) -> list[str]:
    """ALLOWED_HOSTS plus this machine's addresses and names, never the ``*`` wildcard.

    The websocket Origin check trusts the same list, so a wildcard here would let any web
    page open a socket to the table.
    """
    extra = [host.strip().lower() for host in extra if host.strip()]
    if "*" in extra:
        raise CommandError("--allowed-host '*' would trust every site; name the hosts instead")
    return list(dict.fromkeys([*configured, *names, *addresses, *extra]))


def apply_allowed_hosts(hosts: list[str]) -> None:
    """Make ``hosts`` the running process's ALLOWED_HOSTS, for requests and websockets alike."""
    if isinstance(settings.ALLOWED_HOSTS, list):
        # In place: anything that kept a reference to the list sees the new hosts too.
        settings.ALLOWED_HOSTS[:] = hosts
    else:
        settings.ALLOWED_HOSTS = hosts


def player_urls(bind: str, port: int, addresses: Iterable[str]) -> list[str]:
    """The addresses players open: every LAN address when listening on all interfaces."""
    if bind in WILDCARD_BINDS:
        return [f"http://{address}:{port}/" for address in addresses]
    host = f"[{bind.strip('[]')}]" if ":" in bind else bind
    return [f"http://{host}:{port}/"]


class Command(DaphneCommand):
    help = "Start Fray for your table: migrate, then serve pages and websockets on the LAN."

    default_port = DEFAULT_PORT
    default_bind = DEFAULT_BIND
    bind_help = "address to listen on; 0.0.0.0 is every IPv4 interface"

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--allowed-host",
            action="append",
            default=[],
            dest="allowed_hosts",
            metavar="NAME",
            help="another name players may use for this machine (repeatable)",
        )

    def serve(self, options: dict[str, Any]) -> None:
        port: int = options["port"]
        bind: str = options["bind"].strip() or DEFAULT_BIND
        verbosity: int = options["verbosity"]

        self.prepare_data_folder()
        call_command("migrate", interactive=False, verbosity=max(verbosity - 1, 0))

        hostname = socket.gethostname()
        addresses = lan_addresses(hostname)
        hosts = extended_allowed_hosts(
            settings.ALLOWED_HOSTS, addresses, machine_names(hostname), options["allowed_hosts"]
        )
        apply_allowed_hosts(hosts)

        self.run_daphne(
            bind=bind,
            port=port,
            verbosity=verbosity,
            action_logger=self._log_action if verbosity >= 2 else None,
            ready=lambda server: self._announce(server, bind, port, addresses),
        )

    def _announce(self, server: Any, bind: str, port: int, addresses: list[str]) -> None:
        if server.listening_addresses:
            port = server.listening_addresses[0][1]
        urls = player_urls(bind, port, addresses)
        # The referee usually opens localhost; the join link and QR code must name the LAN.
        settings.FRAY_PLAYER_URLS[:] = urls
        write = self.stdout.write
        write(f"Fray is running. Data folder: {settings.DATA_DIR}")
        if urls:
            write("Players open:")
            for url in urls:
                write(f"  {url}")
            write("")
            self._print_qr(urls[0])
        else:
            write("No network address found: players cannot join until this machine is on a LAN.")
        write(f"On this machine: http://localhost:{port}/")
        write("Stop with Ctrl-C.")
        self.stdout.flush()

    def _print_qr(self, url: str) -> None:
        import segno

        qr = segno.make(url)
        drawing = io.StringIO()
        qr.terminal(out=drawing, compact=True)
        try:
            self.stdout.write(drawing.getvalue(), ending="")
        except UnicodeEncodeError:
            # A console without Unicode block characters: ANSI colours draw it instead.
            drawing = io.StringIO()
            qr.terminal(out=drawing)
            self.stdout.write(drawing.getvalue(), ending="")

    def _log_action(self, protocol: str, action: str, details: dict[str, Any]) -> None:
        # Capability links hold secrets in their paths: never printed (combat/logs.py).
        path = redact_path(str(details.get("path", "")))
        if protocol == "http" and action == "complete":
            self.stdout.write(
                f"HTTP {details['method']} {path} {details['status']} [{details['client']}]"
            )
        elif protocol == "websocket" and action in {"connected", "disconnected", "rejected"}:
            self.stdout.write(f"WebSocket {action} {path} [{details['client']}]")
