"""Dolmenwood's package as a Django app: it registers the system when the app is ready; its
templates and template tags are found from here."""

from __future__ import annotations

from django.apps import AppConfig


class DolmenwoodConfig(AppConfig):
    name = "combat.systems.dolmenwood"
    label = "fray_dolmenwood"

    def ready(self) -> None:
        from combat import registry
        from combat.systems.dolmenwood.system import SYSTEM

        registry.register(SYSTEM)
