"""Becmi's package as a Django app: its templates and template tags are found from here."""

from __future__ import annotations

from django.apps import AppConfig


class BecmiConfig(AppConfig):
    name = "combat.systems.becmi"
    label = "fray_becmi"
