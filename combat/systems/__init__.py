"""The rules systems a table can play, one package each (``ose``, ``becmi``, ``dolmenwood``).

``PACKAGES`` is the one list that names them: the settings install each as a Django app (so its
templates and template tags are found) and each app's ``ready()`` registers its
:class:`~combat.registry.System`. Generic code asks ``combat.registry`` and never
names a system. A fourth system is one new package and one line below: the encounter's choice
of system is the registry's (no migration).

This module imports nothing, so the settings can read it.
"""

from __future__ import annotations

PACKAGES = (
    "combat.systems.ose",
    "combat.systems.becmi",
    "combat.systems.dolmenwood",
)
