"""Websocket URL routes; any other path gets a clean close instead of a routing error."""

from __future__ import annotations

import os

from django.urls import path, re_path

from combat.live.consumers import DisplayConsumer, EncounterConsumer, NoSuchSocket

websocket_urlpatterns = [
    path("ws/e/<slug:slug>/", EncounterConsumer.as_asgi()),
    path("ws/e/<slug:slug>/display/", DisplayConsumer.as_asgi()),
]

# Only in servers that `manage.py bench_live` starts (it sets FRAY_BENCH=1): a bare broadcast
# to compare Fray's live updates with. Never routed in normal serving.
if os.environ.get("FRAY_BENCH") == "1":
    from combat.live.bench_socket import BenchSocket

    websocket_urlpatterns.append(path("ws/bench/<str:group>/", BenchSocket.as_asgi()))

# Last: without it Channels raises "No route found", a 500 and a traceback per probe.
websocket_urlpatterns.append(re_path(r"", NoSuchSocket.as_asgi()))
