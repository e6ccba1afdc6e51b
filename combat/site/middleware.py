"""Middleware: private pages stay out of caches, refusals are answers, sockets are same-origin,
HTTPS answers carry what HTTPS needs.

Four Django middlewares (``HttpsOnlyMiddleware``, ``PrivatePagesMiddleware``,
``QuietRefusalsMiddleware``, ``ContentSecurityPolicyMiddleware``) and one ASGI guard for
websockets (``SameOriginWebsocket``), which ``combat/site/asgi.py`` puts in front of every socket.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.exceptions import DisallowedHost, PermissionDenied
from django.core.handlers.exception import get_exception_response
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.http.request import split_domain_port, validate_host
from django.urls import get_resolver, get_urlconf
from django.utils.cache import patch_cache_control

from combat.capabilities import prefix_pattern

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Any]

# An encounter's pages and every capability link (combat/capabilities.py): what they show
# depends on who asks, and a shared or back-button cache would show it to the next person on
# that phone or proxy. A capability link's every answer counts, its redirect to the clean URL,
# a slash appended and a 404 included: a cached redirect replays the exchange of the secret.
_PRIVATE_PATH = re.compile(rf"^/(?:e|{prefix_pattern()})/", re.IGNORECASE)
DEFAULT_PORTS = {"http": 80, "https": 443}


class HttpsOnlyMiddleware:
    """On an answer to an HTTPS request, every cookie it sets ``Secure`` and
    ``Strict-Transport-Security`` for ``FRAY_HSTS_SECONDS`` (none when 0).

    A club behind a proxy that terminates HTTPS and says so (``X-Forwarded-Proto``, trusted
    with ``serve --proxy-headers``) gets them; a LAN table over plain HTTP never does, since a
    browser would not send a Secure cookie back over HTTP. Django's own settings for both are
    all-or-nothing, so they stay off (``check --deploy``'s silenced warnings)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.is_secure():
            return response
        for morsel in response.cookies.values():
            morsel["secure"] = True
        seconds = settings.FRAY_HSTS_SECONDS
        if seconds and "Strict-Transport-Security" not in response:
            response["Strict-Transport-Security"] = f"max-age={seconds}"
        return response


class PrivatePagesMiddleware:
    """``Cache-Control: no-store`` on private pages; COOP only where a browser honours it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if _PRIVATE_PATH.match(request.path_info):
            patch_cache_control(response, private=True, no_store=True)
        # Over plain HTTP a browser ignores Cross-Origin-Opener-Policy and logs a console error
        # on every page, which is every page on a LAN table; so it is sent on HTTPS only
        # (SECURE_CROSS_ORIGIN_OPENER_POLICY is None in settings for that reason).
        if request.is_secure() and "Cross-Origin-Opener-Policy" not in response:
            response["Cross-Origin-Opener-Policy"] = "same-origin"
        return response


class QuietRefusalsMiddleware:
    """A ``PermissionDenied`` becomes its 403 page here, as Django would make it, so the log
    gets Django's one ``Forbidden: /path`` line instead of a traceback: a player who tries a
    referee's action is not a server error."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, PermissionDenied):
            return get_exception_response(request, get_resolver(get_urlconf()), 403, exception)
        return None


def websocket_origin(request: HttpRequest) -> str | None:
    """The origin of this page's own websocket, as the page opens it: ``ws://`` and the very
    host and port the page came from (``wss://`` over HTTPS). None for a host a policy cannot
    name (an IPv6 literal), or one Django does not serve."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    if host.startswith("["):
        return None
    return f"{'wss' if request.is_secure() else 'ws'}://{host}"


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's policy, with websockets allowed to the page's own origin only.

    ``connect-src 'self'`` (settings) matches the page's own ``ws:`` and ``wss:`` origin in
    CSP Level 3 browsers; Safari before 16 reads it as the page's ``http(s):`` origin alone, so
    the socket's origin is named too: the host and port of this very request, never another.
    """

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        origin = websocket_origin(request)
        if origin is not None:
            update = dict(parts.update or {})
            update["connect-src"] = [*update.get("connect-src", ()), origin]
            parts.update = update
        return parts


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            try:
                return value.decode("latin-1")
            except (AttributeError, UnicodeDecodeError):
                return None
    return None


def _is_secure(scope: Scope) -> bool:
    """Whether the page this socket belongs to was served over HTTPS: ``wss``, or the proxy
    header Django trusts for requests (SECURE_PROXY_SSL_HEADER, set by ``serve
    --proxy-headers``) says so."""
    if scope.get("scheme") == "wss":
        return True
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        if meta_name.startswith("HTTP_"):
            header = meta_name[len("HTTP_") :].lower().replace("_", "-").encode("latin-1")
            value = _header(scope, header)
            if value is not None:
                return value.split(",", 1)[0].strip() == secure_value
    return False


def _host_and_port(netloc: str, scheme: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``host[:port]``, the port defaulted by the scheme; None if bad."""
    try:
        parts = urlsplit(f"//{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host or parts.username is not None or parts.password is not None or parts.path:
        return None
    return host.rstrip(".").lower(), port if port is not None else DEFAULT_PORTS[scheme]


def _allowed_hosts() -> Iterable[str]:
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:  # as Django's own request.get_host() does
        return [".localhost", "127.0.0.1", "[::1]"]
    return allowed


def same_origin(scope: Scope) -> bool:
    """Whether a websocket comes from a page Fray served: its Origin is the very origin of the
    request (``http`` for ``ws``, ``https`` for ``wss``; the host and port of the Host header)
    and that host is allowed. A page on another port or scheme of an allowed host is another
    site, as far as the browser is concerned, and gets no socket."""
    scheme = "https" if _is_secure(scope) else "http"
    origin = _header(scope, b"origin")
    host = _header(scope, b"host")
    if settings.USE_X_FORWARDED_HOST:  # the same host Django's requests would see
        host = _header(scope, b"x-forwarded-host") or host
    if not origin or not host:
        return False
    try:
        origin_parts = urlsplit(origin)
    except ValueError:
        return False
    if origin_parts.scheme.lower() != scheme or origin_parts.path not in {"", "/"}:
        return False
    origin_host = _host_and_port(origin_parts.netloc, scheme)
    request_host = _host_and_port(host, scheme)
    if origin_host is None or origin_host != request_host:
        return False
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, _allowed_hosts())


class SameOriginWebsocket:
    """Refuse a websocket handshake unless ``same_origin``: websocket frames get no CSRF
    check, so this is what keeps another site's page from opening a socket to the table."""

    def __init__(self, application: ASGIApp) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not same_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
