"""Websocket URL routes."""

from __future__ import annotations

from django.urls import path

from .consumers import EncounterConsumer

websocket_urlpatterns = [
    path("ws/e/<str:slug>/", EncounterConsumer.as_asgi()),
]
