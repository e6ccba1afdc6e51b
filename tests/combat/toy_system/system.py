"""A toy fourth rules system, all of it in this test package: one panel (a luck roll on a d6,
4 or more is lucky) and one kind of log entry with its payload, registered through the registry
alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from combat import payloads, table
from combat.forms import RollForm
from combat.models import Combatant, EntryKind
from combat.registry import Panel, System

KEY = "toy"


class LuckForm(RollForm):
    """Who tests their luck, and the d6 rolled at the table (empty: the server rolls)."""

    sides = 6
    kept = ("actor",)

    def __init__(self, *args: Any, viewer: Any, **kwargs: Any) -> None:
        super().__init__(*args, viewer=viewer, **kwargs)
        self.without_dice_fields()


@dataclass(kw_only=True)
class Luck(payloads.Payload):
    """A luck roll: the d6 (``entered``: typed in) and whether it was ``lucky``."""

    system: str = KEY
    natural: int = 0
    entered: bool = False
    lucky: bool = False


@transaction.atomic
def test_luck(
    viewer: Any,
    *,
    actor: Combatant,
    natural: int | None = None,
    secret: bool = False,
    once: str = "",
    **_ignored: Any,
) -> Any:
    actor = table.alive(table.locked(viewer, actor))
    rolled = natural if natural is not None else table.RNG.randint(1, 6)
    data = Luck(natural=rolled, entered=natural is not None, lucky=rolled >= 4)
    return table.record(
        viewer, EntryKind.CHECK, data, secret=table.kept_secret(viewer, secret, actor), once=once
    )


SYSTEM = System(
    key=KEY,
    label="Toy",
    panels=(Panel("toy_luck", LuckForm, test_luck, "toy/luck/", "Test your luck", odds=False),),
    attack_panel="toy_luck",
    buttons="toy/_buttons.html",
    log="toy/_log.jinja",
    payloads={EntryKind.CHECK: Luck},
)
