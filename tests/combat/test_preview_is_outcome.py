"""The odds are the roll's odds (issue 31): for every system and every kind of roll its panels
offer with odds, over seeded random cases (random stats, modifiers and a random situation:
ordinary, a helpless target or actor, the actor's side surprised in round 1, an immune
target), the preview the panel shows before the roll is exactly what the roll then does.

The preview is asked as the odds view asks it (``combat.views.panels.odds_of`` on the panel's
form); the roll is posted through the panel's view once for every face of its die, typed in
as a physical die. The share of faces that succeed is the preview's chance; a refusal in the
preview is a refusal of every roll; "hits automatically" or "slain outright" is what every
roll does; an immune target shown as taking no damage takes none."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from combat.access import Viewer
from combat.forms import SystemOdds
from combat.models import Combatant, Condition, Encounter, HelplessRule, Kind, LogEntry
from combat.odds import Odds, Refusal
from combat.views.panels import find, odds_of

from .conftest import character, monster

pytestmark = pytest.mark.django_db

CASES = 16  # random cases for each kind of roll
HELPLESS_CONDITIONS = ("asleep", "paralysed", "held")
HP = 500  # no ordinary hit kills: every face of the die meets the same target


@dataclass(frozen=True)
class Roll:
    """One kind of roll a panel offers: its system, panel, die, whether it has a target
    (an attack), and the form's values drawn at random for a case."""

    system: str
    panel: str
    sides: int
    attack: bool
    values: Callable[[random.Random], dict[str, Any]]


def _attack_values(rng: random.Random) -> dict[str, Any]:
    return {"mode": rng.choice(["melee", "missile"]), "modifier": rng.randint(-4, 4)}


def _becmi_attack_values(rng: random.Random) -> dict[str, Any]:
    values = _attack_values(rng)
    if values["mode"] == "missile":
        values["range_band"] = rng.choice(["", "short", "medium", "long"])
    values["cover"] = rng.choice(["none", "none", "quarter", "half", "three_quarters"])
    values["cover_material"] = rng.choice(["soft", "hard"])
    return values


def _save_values(categories: list[str]) -> Callable[[random.Random], dict[str, Any]]:
    def values(rng: random.Random) -> dict[str, Any]:
        found = {"category": rng.choice(categories), "modifier": rng.randint(-4, 4)}
        if rng.random() < 0.5:
            found["magical"] = "on"
        return found

    return values


def _check_values(limit: int) -> Callable[[random.Random], dict[str, Any]]:
    def values(rng: random.Random) -> dict[str, Any]:
        ability = rng.choice(["str", "int", "wis", "dex", "con", "cha"])
        return {
            "ability": ability,
            "score": rng.randint(3, 18),
            "modifier": rng.randint(-limit, limit),
        }

    return values


def _skill_values(rng: random.Random) -> dict[str, Any]:
    return {"skill": rng.choice(["listen", "search", "survival"]), "modifier": rng.randint(-2, 2)}


SAVES = ["death", "wands", "paralysis", "breath", "spells"]
ROLLS = [
    Roll("ose", "attack", 20, True, _attack_values),
    Roll("ose", "save", 20, False, _save_values(SAVES)),
    Roll("ose", "check", 20, False, _check_values(4)),
    Roll("becmi", "becmi_attack", 20, True, _becmi_attack_values),
    Roll("becmi", "becmi_save", 20, False, _save_values(SAVES)),
    Roll("dolmenwood", "dw_attack", 20, True, _attack_values),
    Roll(
        "dolmenwood", "dw_save", 20, False, _save_values(["doom", "ray", "hold", "blast", "spell"])
    ),
    Roll("dolmenwood", "dw_check", 6, False, _check_values(2)),
    Roll("dolmenwood", "dw_skill", 6, False, _skill_values),
]


def _situations(roll: Roll) -> list[str]:
    found = ["ordinary", "helpless", "surprised"]
    return [*found, "immune"] if roll.system == "dolmenwood" and roll.attack else found


def _stats(rng: random.Random, system: str) -> dict[str, Any]:
    stats: dict[str, Any] = {
        "ac": rng.randint(0, 9) if system == "dolmenwood" else rng.randint(-3, 9),
        "thac0": rng.randint(5, 19),
        "str_score": rng.randint(3, 18),
        "dex_score": rng.randint(3, 18),
        "wis_score": rng.choice([None, rng.randint(3, 18)]),
        "hp_max": HP,
        "hp": HP,
    }
    for name in ("save_death", "save_wands", "save_paralysis", "save_breath", "save_spells"):
        stats[name] = rng.randint(2, 19)
    if system == "dolmenwood":
        stats["attack_bonus"] = rng.randint(0, 8)
    return stats


@dataclass
class Case:
    encounter: Encounter
    actor: Combatant
    target: Combatant
    values: dict[str, Any]
    situation: str
    rule: str


def _case(rng: random.Random, roll: Roll, situation: str) -> Case:
    rule = rng.choice([HelplessRule.HIT, HelplessRule.SLAIN])
    encounter = Encounter.objects.create(
        name="Preview", system=roll.system, helpless_rule=rule, round=1
    )
    hero = character(encounter, "Aldric", **_stats(rng, roll.system))
    foe = monster(encounter, "Ogre", **_stats(rng, roll.system))
    actor, target = (hero, foe) if rng.random() < 0.5 else (foe, hero)
    if roll.system == "dolmenwood" and actor.kind == Kind.MONSTER and rng.random() < 0.5:
        actor.wis_score = None  # a monster's saves take no WIS
        actor.save(update_fields=["wis_score"])
    values = {"actor": actor.pk, **roll.values(rng)}
    if roll.attack:
        values |= {"target": target.pk, "damage": "1d6"}
        if roll.system == "dolmenwood":
            values["weapon"] = rng.choice(["mundane", "silver", "cold_iron", "magic", "fire"])
    if situation == "helpless":  # an attack's target; a check's or save's actor
        who = target if roll.attack else actor
        Condition.objects.create(combatant=who, kind=rng.choice(HELPLESS_CONDITIONS))
    elif situation == "surprised":
        encounter.turn = {"surprised": rng.choice([actor.side, "both"])}
        encounter.save(update_fields=["turn"])
    elif situation == "immune":
        immunities = {values["weapon"], *rng.sample(["mundane", "silver", "magic", "fire"], 1)}
        target.immunities = sorted(immunities)
        target.save(update_fields=["immunities"])
    return Case(encounter, actor, target, values, situation, rule)


def _preview(case: Case, roll: Roll) -> Any:
    """The odds the panel shows for the form's values, as its odds view works them out."""
    _, panel = find(roll.panel)
    viewer = Viewer(case.encounter, is_referee=True, seat=None)
    return odds_of(panel, panel.form(_strings(case.values), viewer=viewer))


def _strings(values: dict[str, Any]) -> dict[str, str]:
    return {key: str(value) for key, value in values.items()}


@dataclass(frozen=True)
class Outcome:
    refused: str | None = None  # the refusal's message, when nothing was rolled
    success: bool | None = None  # the roll succeeded (hit, saved, passed)
    helpless: str | None = None  # the helpless rule that decided an attack
    hp_lost: int = 0  # what the target lost
    data: dict[str, Any] | None = None


def _post(client: Client, case: Case, roll: Roll, natural: int) -> Outcome:
    before = LogEntry.objects.filter(encounter=case.encounter).count()
    url = reverse(roll.panel, args=[case.encounter.slug])
    values = case.values | {"natural": natural}
    if roll.attack:
        values["damage_dice"] = "6"  # more than any STR penalty: a hit always hurts
    response = client.post(url, _strings(values), HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.status_code
    entries = LogEntry.objects.filter(encounter=case.encounter).order_by("-seq")
    target = Combatant.objects.get(pk=case.target.pk)
    lost = HP - target.hp
    Combatant.objects.filter(pk=target.pk).update(hp=HP)  # the next face meets it unhurt
    if entries.count() == before:
        return Outcome(refused=response.content.decode())
    data = entries.first().data
    rolled = data.get("roll") or {}
    return Outcome(
        success=rolled.get("success"),
        helpless=data.get("helpless") or None,
        hp_lost=lost,
        data=data,
    )


def _referee(case: Case) -> Client:
    client = Client()
    client.get(reverse("referee_link", args=[case.encounter.referee_key]))
    return client


def _check_case(case: Case, roll: Roll) -> None:
    preview = _preview(case, roll)
    assert preview is not None, "the form says enough: the panel shows its odds"
    client = _referee(case)
    where = f"{roll.panel} {case.situation} {case.values}: {preview}"
    if isinstance(preview, Refusal):  # whatever the die shows: its lowest and highest face
        for natural in (1, roll.sides):
            outcome = _post(client, case, roll, natural)
            assert outcome.refused is not None, where
            assert preview.refused.replace("'", "&#x27;") in outcome.refused, where
        return
    outcomes = [_post(client, case, roll, natural) for natural in range(1, roll.sides + 1)]
    for outcome in outcomes:
        assert outcome.refused is None, f"{where}: refused {outcome.refused!r:.400}"

    helpless = getattr(preview, "helpless", None)
    if helpless is not None:
        for outcome in outcomes:
            assert outcome.helpless == helpless, where
            if helpless == HelplessRule.SLAIN:
                assert outcome.hp_lost == HP, where  # to 0: slain
        assert preview.chance == 1, where
    else:
        assert isinstance(preview, Odds | SystemOdds), where
        successes = sum(1 for outcome in outcomes if outcome.success)
        assert Fraction(successes, roll.sides) == preview.chance, where
        for outcome in outcomes:
            assert outcome.helpless is None, where

    if roll.attack:
        immune = any("immune" in note for note in preview.notes)
        assert immune == (case.situation == "immune"), where
        for outcome in outcomes:
            hit = outcome.helpless == HelplessRule.HIT or (
                outcome.helpless is None and outcome.success
            )
            if immune and outcome.helpless != HelplessRule.SLAIN:
                assert outcome.hp_lost == 0, where  # a hit deals no damage
            elif hit:
                assert outcome.hp_lost > 0, where
            elif outcome.helpless is None:
                assert outcome.hp_lost == 0, where


@pytest.mark.parametrize("roll", ROLLS, ids=lambda roll: roll.panel)
def test_the_preview_is_what_the_roll_does(roll: Roll) -> None:
    rng = random.Random(f"issue-31 {roll.panel}")
    situations = _situations(roll)
    for index in range(CASES):
        situation = situations[index % len(situations)]
        _check_case(_case(rng, roll, situation), roll)
