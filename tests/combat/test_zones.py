"""Hit locations at the table: bodies, attacks that land in a zone, the referee's zone
damage, treatment and healing, the round's bleeding, undo and who sees what.

Facts from the rules used here (``rules/hit-location.md``, part B): a humanoid from the front
is head 01–10, chest 11–40, abdomen 41–60, left arm 61–68, right arm 69–76, left leg 77–88,
right leg 89–100; an arm holds 20% of the creature's hit points, a head 15%, a chest 80%.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from combat import zones
from combat.models import Encounter, LogEntry
from rules import hit_location as hl

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _post(client: Client, name: str, encounter: Encounter, data: dict, *args):
    return client.post(_url(name, encounter, *args), data, **HTMX)


def _turn_on(referee: Client, encounter: Encounter) -> None:
    page = referee.get(_url("encounter", encounter)).content.decode()
    values = form_values(page, _url("encounter_settings", encounter))
    values["settings-hit_locations"] = "on"
    response = referee.post(_url("encounter_settings", encounter), values)
    assert response.status_code == 302
    encounter.refresh_from_db()
    assert encounter.hit_locations


@pytest.fixture
def table(encounter, referee, player):
    """Hit locations on; Bára (a player's character, 20 hp) and a goblin the referee runs."""
    bara = character(encounter, "Bára", seat=player.seat)
    goblin = monster(encounter, "Goblin", hp_max=6, hp=6)
    _turn_on(referee, encounter)
    bara.refresh_from_db()
    goblin.refresh_from_db()
    return encounter, referee, player, bara, goblin


def _attack(client, encounter, actor, target, **extra):
    values = {
        "actor": actor.pk,
        "target": target.pk,
        "mode": "melee",
        "natural": 18,
        "damage": "1d6",
        "damage_dice": "4",
        "direction": "front",
    }
    return _post(client, "attack", encounter, values | {k: str(v) for k, v in extra.items()})


# --- the stored state ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"body": "humanoid", "tail": True, "wings": True},
        {"body": "reptile", "wings": True, "legs": 4},
        {"body": "insectoid", "wings": 6, "legs": 8},
        {"body": "bird"},
        {"body": "fish"},
        {"body": "snake"},
    ],
)
def test_the_zone_state_reads_back_as_it_was_stored(options):
    plan = zones._plan(options)
    state = hl.new_zone_state(plan, 40)
    first = plan.zones[0].zone
    limb = next(s.zone for s in plan.zones if s.limb) if any(s.limb for s in plan.zones) else first
    dice = random.Random(9)
    state, _ = hl.apply_zone_damage(state, limb, 30, rng=dice)
    state, _ = hl.end_round(state, rng=dice)
    state, _ = hl.treat_wound(state)
    stored = zones.to_dict(state, options)
    assert zones.from_dict(stored) == state
    assert zones.to_dict(zones.from_dict(stored), options) == stored


def test_a_stored_state_that_does_not_fit_its_body_is_refused():
    stored = zones.to_dict(hl.new_zone_state(zones._plan({"body": "snake"}), 10), {"body": "snake"})
    stored["damage"] = [0]
    with pytest.raises(ValueError):
        zones.from_dict(stored)


def test_turning_hit_locations_on_gives_every_combatant_its_zones(table):
    _encounter, _referee, _player, bara, goblin = table
    state = zones.state_of(bara)
    assert state.plan.body is hl.BodyType.HUMANOID
    assert (
        state.max_of("head") == 3 and state.max_of("left_arm") == 4 and state.max_of("chest") == 16
    )
    assert zones.state_of(goblin).max_hp == 6


def test_hit_locations_are_off_by_default_and_the_attack_form_has_no_direction(
    encounter, player, fighter, goblin
):
    assert not encounter.hit_locations
    html = player.get(_url("attack", encounter), **HTMX).content.decode()
    assert 'name="direction"' not in html
    fighter.refresh_from_db()
    assert fighter.zones == {}


# --- an attack that lands in a zone -------------------------------------------------------------


def test_a_hit_with_typed_dice_lands_in_the_left_arm_and_severs_it(table):
    encounter, referee, _player, bara, goblin = table
    response = _attack(referee, encounter, goblin, bara, location=65)
    assert response.status_code == 200
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["location"]["zone"] == "left_arm"
    assert entry.data["location"]["natural"] == 65 and entry.data["location"]["entered"]
    kinds = [e["kind"] for e in entry.data["zone_effects"]]
    assert kinds == ["damaged", "zone_lost", "limb_severed"]
    bara.refresh_from_db()
    assert bara.hp == 16
    state = zones.state_of(bara)
    assert state.damage_to("left_arm") == 4 and state.bleeding == {hl.Zone.LEFT_ARM}
    text = re.sub(r"\s+", " ", response.content.decode())
    assert "Goblin hits Bára in the left arm (d100: 65): 4 damage" in text
    assert "the left arm is lost" in text and "bleeds 1 hp per round" in text


def test_the_direction_offers_only_what_the_targets_body_allows(table):
    encounter, referee, _player, bara, goblin = table
    html = referee.get(_url("attack", encounter) + f"?actor={goblin.pk}&target={bara.pk}", **HTMX)
    options = re.findall(r'<option value="(\w+)"', _select(html.content.decode(), "direction"))
    assert options == ["front", "left", "right", "rear"]  # a humanoid: no above or below
    response = _attack(referee, encounter, goblin, bara, direction="above", location=5)
    assert "direction" in _errors(response)
    assert not LogEntry.objects.filter(encounter=encounter, kind="attack").exists()
    bird = monster(encounter, "Crow", body="bird", hp_max=4, hp=4, height_ft=Decimal(1))
    url = _url("attack", encounter) + f"?actor={bara.pk}&target={bird.pk}"
    options = re.findall(
        r'<option value="(\w+)"', _select(referee.get(url, **HTMX).content.decode(), "direction")
    )
    assert options == ["front", "left", "right", "rear", "above", "below"]


def _select(html: str, name: str) -> str:
    match = re.search(rf'<select name="{name}".*?</select>', html, re.S)
    assert match, f"no {name} field"
    return match.group(0)


def _errors(response) -> str:
    return " ".join(re.findall(r'class="errors"[^>]*>(.*?)</', response.content.decode(), re.S)) + (
        response.content.decode()
    )


def test_the_odds_before_the_roll_give_each_zone_exactly(table):
    encounter, _referee, player, bara, goblin = table
    query = f"?actor={bara.pk}&target={goblin.pk}&mode=melee&direction=front"
    html = player.get(_url("odds", encounter, "attack") + query).content.decode()
    chances = dict(re.findall(r'<li data-zone="(\w+)">[^<]*?([\d.]+)%</li>', html))
    # 6 ft against 6 ft: band N, the whole front table.
    assert chances == {
        "head": "10",
        "chest": "30",
        "abdomen": "20",
        "left_arm": "8",
        "right_arm": "8",
        "left_leg": "12",
        "right_leg": "12",
    }
    # A 6-ft attacker against a 3-ft goblin: 40 N, only the head and the chest.
    goblin.height_ft = Decimal(3)
    goblin.save()
    html = player.get(_url("odds", encounter, "attack") + query).content.decode()
    chances = dict(re.findall(r'<li data-zone="(\w+)">[^<]*?([\d.]+)%</li>', html))
    assert chances == {"head": "25", "chest": "75"}
    assert "40 N" in html
