"""The file formats page: what an exported encounter, party and bestiary hold, field by field.

The fields are those the exporters write (``combat.transfer.exported_fields``), each with its
label, its JSON type, the values it takes and whether a file must give it (what the importer's
own ``full_clean`` asks of an empty record), so a field added to a model shows here as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from combat import bestiary, monsters, party, transfer
from combat.labels import IMMUNITIES
from combat.models import Combatant, Condition, Encounter
from rules.rounds import ROUNDS_PER_TURN

# Labels for the fields whose model gives none of its own (Django's default, the name with
# spaces, is English only); the rest are the fields' own translated names.
LABELS = {"zones": _("body zones: each zone's hit points, wounds and timers")}


@dataclass(frozen=True)
class Field:
    name: str
    label: Any
    type: Any
    values: tuple[str, ...]  # the values it takes, when it names them
    required: bool  # a file must give it: it has no default


def _type(field: models.Field) -> Any:
    if isinstance(field, models.JSONField):
        kind = _("list") if isinstance(field.get_default(), list) else _("object")
    elif isinstance(field, models.BooleanField):
        kind = _("true or false")
    elif isinstance(field, models.DecimalField):
        kind = _("decimal, as text")
    elif isinstance(field, models.IntegerField):
        kind = _("whole number")
    else:
        kind = _("text")
    return _("%(type)s, or null") % {"type": kind} if field.null else kind


def _fields(model: type[models.Model], excluded: Iterable[str], **fixed: Any) -> list[Field]:
    try:  # as the importer checks a record (transfer.build): what an empty one lacks
        model(**fixed).full_clean(
            exclude=list(fixed), validate_unique=False, validate_constraints=False
        )
        lacking: set[str] = set()
    except ValidationError as error:
        lacking = set(error.message_dict)
    return [
        Field(
            f.name,
            LABELS.get(f.name, f.verbose_name),
            _type(f),
            tuple(str(value) for value, _label in f.choices or ()),
            f.name in lacking,
        )
        for f in transfer.exported_fields(model, excluded)
    ]


@dataclass(frozen=True)
class Table:
    anchor: str
    title: Any
    fields: list[Field]


@require_GET
def formats(request: HttpRequest) -> HttpResponse:
    tables = [
        Table(
            "settings",
            _("An encounter's settings"),
            _fields(Encounter, transfer.ENCOUNTER_EXCLUDED | party.FIGHT_STATE),
        ),
        Table(
            "combatant",
            _("A combatant's fields"),
            _fields(Combatant, transfer.COMBATANT_EXCLUDED, encounter=Encounter()),
        ),
        Table(
            "condition",
            _("A condition's fields"),
            _fields(Condition, transfer.CONDITION_EXCLUDED, combatant=Combatant()),
        ),
    ]
    return render(
        request,
        "combat/formats.html",
        {
            "tables": tables,
            "immunities": list(IMMUNITIES),
            # What a bestiary entry leaves out of a combatant's fields (its name is its own).
            "fight_only": sorted(
                bestiary.STAT_EXCLUDED - transfer.COMBATANT_EXCLUDED - set(bestiary.ENTRY_KEYS)
            ),
            "limits": {
                "combatants": transfer.MAX_COMBATANTS,
                "conditions": transfer.MAX_CONDITIONS,
                "depth": transfer.MAX_DEPTH,
                "entries": bestiary.MAX_ENTRIES,
                "name": bestiary.NAME_LIMIT,
                "source": bestiary.SOURCE_LIMIT,
                "rounds_per_turn": ROUNDS_PER_TURN,
                "attack_count": monsters.COUNT_LIMIT,
            },
        },
    )
