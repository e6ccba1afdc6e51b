"""The encounter app: models, views, the websocket consumer and the host command."""

from __future__ import annotations

from django.apps import AppConfig


class CombatConfig(AppConfig):
    name = "combat"
    default_auto_field = "django.db.models.BigAutoField"
