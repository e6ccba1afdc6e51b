"""ASGI entry point: HTTP through Django, websockets through Channels behind a same-origin check."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "combat.site.settings")

import django
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.sessions import SessionMiddlewareStack

django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from combat.live.routing import websocket_urlpatterns  # noqa: E402
from combat.site.handler import Handler  # noqa: E402
from combat.site.middleware import SameOriginWebsocket  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": Handler(),
        # Websocket frames get no CSRF check: the defence is that the Origin is the very
        # origin of the page (scheme, host and port of the request, the host in ALLOWED_HOSTS),
        # so ALLOWED_HOSTS lists real names and addresses, never "*".
        "websocket": SameOriginWebsocket(SessionMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
