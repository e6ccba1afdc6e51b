"""OSE's package as a Django app: it registers the system when the app is ready."""

from __future__ import annotations

from django.apps import AppConfig


class OseConfig(AppConfig):
    name = "combat.systems.ose"
    label = "fray_ose"

    def ready(self) -> None:
        from combat import registry
        from combat.systems.ose.system import SYSTEM

        registry.register(SYSTEM)
