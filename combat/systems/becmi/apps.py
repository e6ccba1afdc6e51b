"""Becmi's package as a Django app: it registers the system when the app is ready; its
templates and template tags are found from here."""

from __future__ import annotations

from django.apps import AppConfig


class BecmiConfig(AppConfig):
    name = "combat.systems.becmi"
    label = "fray_becmi"

    def ready(self) -> None:
        from combat import registry
        from combat.systems.becmi.system import SYSTEM

        registry.register(SYSTEM)
