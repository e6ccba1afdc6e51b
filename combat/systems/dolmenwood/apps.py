"""Dolmenwood's package as a Django app: its templates and template tags are found from here."""

from __future__ import annotations

from django.apps import AppConfig


class DolmenwoodConfig(AppConfig):
    name = "combat.systems.dolmenwood"
    label = "fray_dolmenwood"
