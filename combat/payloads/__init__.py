"""Typed log payloads: what each kind of log entry says, as a class with its JSON form.

``base`` holds the machinery (:class:`Payload`, :func:`read`, which class reads an entry, the
nested rolls); ``table`` the kinds every system's actions write (attacks, saves, checks, hit
points, rest, free rolls, undo), ``rounds`` the round's course, ``zones`` hit locations. A rules
system's own payloads live in its package and are given to the registry
(``System.payloads``). Like the registry, this package imports nothing of the table's: the
models, the toolkit, the systems and the templates all read it.
"""

from __future__ import annotations

from combat.payloads.base import (
    STRICT,
    DamageRoll,
    Payload,
    Raw,
    Roll,
    Shown,
    UnknownKeys,
    class_of,
    kind,
    omitted,
    read,
)

# The shared kinds register themselves (``kind``) when imported.
from combat.payloads import table  # noqa: F401  isort: skip

__all__ = [
    "STRICT",
    "DamageRoll",
    "Payload",
    "Raw",
    "Roll",
    "Shown",
    "UnknownKeys",
    "class_of",
    "kind",
    "omitted",
    "read",
]
