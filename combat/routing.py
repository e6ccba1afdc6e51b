"""Websocket URL routes; any other path gets a clean close instead of a routing error."""

from __future__ import annotations

from django.urls import path, re_path

from .consumers import EncounterConsumer, NoSuchSocket

websocket_urlpatterns = [
    path("ws/e/<str:slug>/", EncounterConsumer.as_asgi()),
    # Last: without it Channels raises "No route found", a 500 and a traceback per probe.
    re_path(r"", NoSuchSocket.as_asgi()),
]
