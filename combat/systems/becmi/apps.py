"""Becmi's package as a Django app: its templates and template tags are found from here."""

from __future__ import annotations

from django.apps import AppConfig


class BecmiConfig(AppConfig):
    name = "combat.systems.becmi"
    label = "fray_becmi"

    def ready(self) -> None:
        # An undo puts back what a special action changed besides hit points (a knock-out, a
        # hold, a ship's state): the toolkit asks, never imports, this system.
        from combat import table
        from combat.systems.becmi import special

        table.undoing(special.undo)
