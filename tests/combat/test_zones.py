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
from combat.access import Viewer
from combat.errors import Refused
from combat.models import Combatant, Encounter, LogEntry
from combat.systems.becmi import actions as becmi_actions
from combat.systems.dolmenwood import actions as dolmenwood_actions
from combat.systems.ose import actions as ose_actions
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
    assert "left arm: severed" in text and "bleeds 1 hp per round" in text


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


# --- undo ---------------------------------------------------------------------------------------


def test_undo_restores_the_zone_and_the_hit_points_and_brings_back_the_dead(table):
    encounter, referee, _player, bara, goblin = table
    before = dict(bara.zones)
    # 2 in the head (d100 5) then 4 more: the head (3) is destroyed and Bára dies at once.
    _attack(referee, encounter, goblin, bara, location=5, damage_dice=2)
    _attack(referee, encounter, goblin, bara, location=5, damage_dice=4)
    bara.refresh_from_db()
    assert bara.dead and zones.state_of(bara).dead
    second, first = LogEntry.objects.filter(encounter=encounter, kind="attack")
    assert "killed" in [e["kind"] for e in second.data["zone_effects"]]
    referee.post(_url("undo", encounter, second.seq))
    bara.refresh_from_db()
    assert bara.hp == 18 and not zones.state_of(bara).dead
    assert zones.state_of(bara).damage_to("head") == 2
    referee.post(_url("undo", encounter, first.seq))
    bara.refresh_from_db()
    assert bara.hp == 20 and bara.zones == before


def test_an_older_entry_undone_takes_back_only_its_own_part(table):
    encounter, referee, _player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=65, damage_dice=2)  # left arm 2
    _attack(referee, encounter, goblin, bara, location=95, damage_dice=3)  # right leg 3
    first = LogEntry.objects.filter(encounter=encounter, kind="attack").order_by("seq").first()
    referee.post(_url("undo", encounter, first.seq))
    bara.refresh_from_db()
    state = zones.state_of(bara)
    assert state.damage_to("left_arm") == 0 and state.damage_to("right_leg") == 3
    assert bara.hp == 17


# --- the round's end -----------------------------------------------------------------------------


def _end_round(referee: Client, encounter: Encounter) -> None:
    page = referee.get(_url("encounter", encounter)).content.decode()
    at = re.search(r'name="at" value="([^"]+)"', page).group(1)
    response = _post(referee, "advance", encounter, {"at": at}, "round")
    assert response.status_code == 200


def test_a_severed_limb_bleeds_once_at_the_rounds_end_and_undo_stops_it(table):
    encounter, referee, player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=65)  # the left arm, severed: 16 hp
    _post(
        referee,
        "fight",
        encounter,
        form_values(
            referee.get(_url("fight", encounter), **HTMX).content.decode(), _url("fight", encounter)
        ),
    )
    _end_round(referee, encounter)
    bara.refresh_from_db()
    assert bara.hp == 15 and zones.state_of(bara).bleed_loss == 1
    entry = LogEntry.objects.filter(encounter=encounter, kind="turn").get()
    assert entry.data["zones"][0]["effects"] == [{"kind": "bled", "amount": 1}]
    html = re.sub(r"\s+", " ", player.get(_url("encounter", encounter)).content.decode())
    assert "Bára: bleeds 1 hp" in html
    referee.post(_url("undo", encounter, entry.seq))
    bara.refresh_from_db()
    encounter.refresh_from_db()
    assert bara.hp == 16 and zones.state_of(bara).bleed_loss == 0 and encounter.round == 1


def test_a_treated_wound_bleeds_no_more(table):
    encounter, referee, _player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=65)
    response = _post(referee, "zone", encounter, {"action": "treat", "zone": "left_arm"}, bara.pk)
    assert response.status_code == 200
    assert "the wound of the left arm is treated" in response.content.decode()
    assert zones.state_of(Combatant.objects.get(pk=bara.pk)).bleeding == frozenset()


# --- the referee's hand on a body -------------------------------------------------------------


def test_the_referee_damages_a_zone_directly_and_it_is_logged_and_undone(table):
    encounter, referee, _player, bara, _goblin = table
    html = referee.get(_url("zone", encounter, bara.pk) + "?zone=right_leg", **HTMX).content
    values = form_values(html.decode(), _url("zone", encounter, bara.pk))
    assert values["zone"] == "right_leg"
    values |= {"amount": "6", "label": "a fall"}
    response = _post(referee, "zone", encounter, values, bara.pk)
    text = re.sub(r"\s+", " ", response.content.decode())
    assert "Bára: 6 damage to the right leg (a fall) — right leg: severed; bleeds 1 hp" in text
    assert "loses 1 DEX" in text  # 6 in a 5-point leg: one over its maximum
    bara.refresh_from_db()
    assert bara.hp == 14
    entry = LogEntry.objects.get(encounter=encounter, kind="zone")
    referee.post(_url("undo", encounter, entry.seq))
    bara.refresh_from_db()
    assert bara.hp == 20 and zones.state_of(bara).damage_to("right_leg") == 0


def test_a_zone_heals_and_the_hit_points_with_it(table):
    encounter, referee, _player, bara, _goblin = table
    _post(referee, "zone", encounter, {"action": "damage", "zone": "chest", "amount": "5"}, bara.pk)
    _post(referee, "zone", encounter, {"action": "heal", "zone": "chest", "amount": "3"}, bara.pk)
    bara.refresh_from_db()
    assert bara.hp == 18 and zones.state_of(bara).damage_to("chest") == 2


def test_players_cannot_touch_a_body(table, other_player):
    encounter, _referee, player, bara, _goblin = table
    for client in (player, other_player):
        values = {"action": "damage", "zone": "head", "amount": "9"}
        assert _post(client, "zone", encounter, values, bara.pk).status_code == 403
        assert client.get(_url("zone", encounter, bara.pk)).status_code == 403
    bara.refresh_from_db()
    assert bara.hp == 20 and zones.state_of(bara).damage_to("head") == 0


def test_the_zone_panel_is_not_found_without_hit_locations(encounter, referee, fighter):
    assert referee.get(_url("zone", encounter, fighter.pk)).status_code == 404


@pytest.mark.parametrize(
    "values",
    [
        {"action": "damage", "zone": "nose", "amount": "3"},
        {"action": "damage", "zone": "left_wing", "amount": "3"},  # not on Bára's body
        {"action": "damage", "zone": "head", "amount": "-2"},
        {"action": "damage", "zone": "head", "amount": "lots"},
        {"action": "damage", "zone": "head"},
        {"action": "heal", "zone": "head", "amount": "99999999999999999999"},
        {"action": "explode", "zone": "head", "amount": "1"},
        {"action": "treat", "zone": "head"},  # nothing bleeds there
        {"action": "damage", "zone": "head\x00", "amount": "1"},
    ],
)
def test_bad_zone_input_is_a_form_error_and_changes_nothing(table, values):
    encounter, referee, _player, bara, _goblin = table
    before = (bara.hp, dict(bara.zones))
    response = _post(referee, "zone", encounter, values, bara.pk)
    assert response.status_code == 200
    assert 'class="errors"' in response.content.decode()
    bara.refresh_from_db()
    assert (bara.hp, bara.zones) == before
    assert not LogEntry.objects.filter(encounter=encounter, kind="zone").exists()


@pytest.mark.parametrize("location", ["0", "101", "ten", "-5", "1.5"])
def test_a_bad_location_die_is_a_form_error_and_changes_nothing(table, location):
    encounter, referee, _player, bara, goblin = table
    response = _attack(referee, encounter, goblin, bara, location=location)
    assert response.status_code == 200
    assert 'class="errors"' in response.content.decode()
    bara.refresh_from_db()
    assert bara.hp == 20
    assert not LogEntry.objects.filter(encounter=encounter, kind="attack").exists()


def test_a_players_attack_form_prefills_and_remembers_height_and_weapon(table):
    encounter, _referee, player, bara, goblin = table
    html = player.get(_url("attack", encounter) + f"?actor={bara.pk}", **HTMX).content.decode()
    values = form_values(html, _url("attack", encounter))
    assert Decimal(values["attacker_ft"]) == 6 and Decimal(values["weapon_ft"]) == 0
    values |= {"weapon_ft": "4", "natural": "1", "target": str(goblin.pk)}  # a miss
    assert player.post(_url("attack", encounter), values, **HTMX).status_code == 200
    bara.refresh_from_db()
    assert bara.weapon_ft == 4


# --- who sees what ---------------------------------------------------------------------------


def _row(html: str, combatant) -> str:
    match = re.search(
        rf'<li class="combatant[^"]*" id="combatant-{combatant.pk}">.*?</li>', html, re.S
    )
    return match.group(0) if match else ""


def test_players_see_their_own_body_with_numbers_and_foes_bodies_without(table, encounter):
    encounter, referee, player, bara, goblin = table
    lurker = monster(encounter, "Lurking wight", hidden=True, hp_max=13, hp=13)
    _post(
        referee, "zone", encounter, {"action": "damage", "zone": "head", "amount": "1"}, lurker.pk
    )
    page = player.get(_url("encounter", encounter)).content.decode()
    own, foe = _row(page, bara), _row(page, goblin)
    assert "body-diagram" in own and "body-diagram" in foe
    assert "head: 3 of 3 hit points" in own  # the zones' numbers
    assert "hit point" not in foe.split("body-diagram", 1)[1]
    assert f"combatant-{lurker.pk}" not in page and "Lurking wight" not in page
    referee_page = referee.get(_url("encounter", encounter)).content.decode()
    assert "body-diagram" in _row(referee_page, lurker)
    assert "Body zones" in _row(referee_page, bara)
    assert "Body zones" not in _row(page, bara)


# --- bodies chosen in the forms ------------------------------------------------------------------


def test_the_combatant_form_asks_for_a_body_only_with_hit_locations(encounter, referee):
    html = referee.get(_url("combatant_new", encounter), **HTMX).content.decode()
    assert 'name="body"' not in html
    _turn_on(referee, encounter)
    html = referee.get(_url("combatant_new", encounter), **HTMX).content.decode()
    values = form_values(html, _url("combatant_new", encounter))
    assert values["body"] == "humanoid"
    values |= {
        "name": "Wyvern",
        "ac": "3",
        "hp_max": "30",
        "hit_dice": "7",
        "body": "reptile",
        "wings": "2",
        "legs": "2",
        "height_ft": "",
    }
    assert _post(referee, "combatant_new", encounter, values).status_code == 200
    wyvern = Combatant.objects.get(name="Wyvern")
    assert (wyvern.body, wyvern.wings, wyvern.legs, wyvern.height_ft) == ("reptile", 2, 2, 6)
    state = zones.state_of(wyvern)
    assert hl.Zone.LEFT_WING in state.plan.zone_keys
    assert hl.Zone.LEFT_FORELEG not in state.plan.zone_keys  # a biped: hind legs only
    assert state.max_hp == 30


@pytest.mark.parametrize(
    "body, field",
    [
        ({"body": "snake", "wings": "2"}, "wings"),
        ({"body": "fish", "tail": "on"}, "tail"),
        ({"body": "reptile", "legs": "6"}, "legs"),
        ({"body": "humanoid", "height_ft": "0"}, "height_ft"),
        ({"body": "humanoid", "height_ft": "tall"}, "height_ft"),
        ({"body": "dragon"}, "body"),
    ],
)
def test_a_body_the_rules_do_not_know_is_a_form_error(encounter, referee, body, field):
    _turn_on(referee, encounter)
    values = {"name": "Thing", "side": "foes", "kind": "monster", "ac": "5", "hp_max": "9"}
    values |= {"hit_dice": "2", "wings": "0", "body": "humanoid"} | body
    response = _post(referee, "combatant_new", encounter, values)
    assert response.status_code == 200
    assert re.search(rf'name="{field}"[^>]*aria-invalid="true"', response.content.decode())
    assert not Combatant.objects.filter(name="Thing").exists()


def test_quick_add_gives_every_monster_the_body_chosen(encounter, referee):
    _turn_on(referee, encounter)
    values = {"count": "2", "name": "Giant ant", "ac": "3", "hit_dice": "4", "side": "foes"}
    values |= {"body": "insectoid", "wings": "0", "legs": "6", "height_ft": "2.5"}
    assert _post(referee, "quick_add", encounter, values).status_code == 200
    ants = Combatant.objects.filter(name__startswith="Giant ant")
    assert ants.count() == 2
    for ant in ants:
        state = zones.state_of(ant)
        assert state.plan.body is hl.BodyType.INSECTOID and state.max_hp == ant.hp_max
        assert ant.height_ft == Decimal("2.5")


def test_a_body_changed_in_the_edit_form_gets_its_zones_anew(table):
    encounter, referee, _player, _bara, goblin = table
    url = _url("combatant_edit", encounter, goblin.pk)
    values = form_values(referee.get(url, **HTMX).content.decode(), url)
    values |= {"body": "humanoid", "tail": "on"}
    assert _post(referee, "combatant_edit", encounter, values, goblin.pk).status_code == 200
    goblin.refresh_from_db()
    assert hl.Zone.TAIL in zones.state_of(goblin).plan.zone_keys


# --- live rows -----------------------------------------------------------------------------------


def test_a_live_row_changes_when_only_its_zones_change(table):
    from combat.live.state import State

    encounter, referee, _player, bara, _goblin = table
    before = State.load(encounter.pk, referee=True, players=True).shown[bara.pk]
    # A reptile's tail is not cumulative: its hit points stay while the zone changes.
    bara.body = "reptile"
    bara.save()
    zones.sync(bara, encounter)
    middle = State.load(encounter.pk, referee=True, players=True).shown[bara.pk]
    _post(referee, "zone", encounter, {"action": "damage", "zone": "tail", "amount": "1"}, bara.pk)
    bara.refresh_from_db()
    assert bara.hp == 20
    after = State.load(encounter.pk, referee=True, players=True).shown[bara.pk]
    assert len({before, middle, after}) == 3


# --- undo as a property --------------------------------------------------------------------------


def test_any_sequence_of_zone_damage_undone_in_turn_returns_the_body_to_where_it_began():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    options = {"body": "humanoid", "tail": True, "wings": True}
    plan = zones._plan(options)
    keys = [z.value for z in plan.zone_keys]

    @settings(max_examples=60, deadline=None)
    @given(
        st.lists(st.tuples(st.sampled_from(keys), st.integers(0, 30)), max_size=8),
        st.randoms(use_true_random=False),
        st.data(),
    )
    def check(hits, rng, data):
        first = zones.to_dict(hl.new_zone_state(plan, 40), options)
        current, changes = first, []
        for zone, amount in hits:
            state, _ = hl.apply_zone_damage(zones.from_dict(current), zone, amount, rng=rng)
            if data.draw(st.booleans()):
                state, _ = hl.end_round(state, rng=rng)
            after = zones.to_dict(state, options)
            changes.append((current, after))
            current = after
        for before, after in reversed(changes):
            current = zones.revert(current, before, after)
        assert current == first

    check()


def test_a_group_attack_lands_each_hit_in_a_zone_from_the_front(table):
    encounter, referee, _player, bara, goblin = table
    other = monster(encounter, "Goblin 2")
    zones.sync(other, encounter)
    data = {"attackers": [goblin.pk, other.pk], "target": bara.pk, "mode": "melee"}
    data |= {"damage": "1d4", f"natural_{goblin.pk}": 18, f"natural_{other.pk}": 19}
    data |= {f"damage_dice_{goblin.pk}": "1", f"damage_dice_{other.pk}": "1"}
    assert _post(referee, "group_attack", encounter, data).status_code == 200
    hits = LogEntry.objects.filter(encounter=encounter, kind="attack")
    assert [e.data["location"]["direction"] for e in hits] == ["front", "front"]
    bara.refresh_from_db()
    state = zones.state_of(bara)
    assert bara.hp == 18 and sum(state.damage) == 2


# --- a monster's special attacks ----------------------------------------------------------------


def test_constriction_adds_3_after_the_holds_first_round(table):
    encounter, referee, _player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=20, special="constriction", hold_round=3)
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["special"] == {"kind": "constriction", "round": 3, "bonus": 3}
    bara.refresh_from_db()
    assert bara.hp == 13 and zones.state_of(bara).damage_to("chest") == 7
    html = re.sub(r"\s+", " ", referee.get(_url("encounter", encounter)).content.decode())
    assert "in the chest (d100: 20): 7 damage" in html
    assert "Constriction, round 3 of the hold: +3 damage" in html


def test_seize_and_tear_on_a_natural_19_kills_and_undo_brings_back(table):
    encounter, referee, _player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, natural=19, location=50, special="seize_and_tear")
    bara.refresh_from_db()
    assert bara.dead
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["special"]["outcome"] == "seized_and_torn" and entry.data["killed"]
    referee.post(_url("undo", encounter, entry.seq))
    bara.refresh_from_db()
    assert bara.hp == 20 and sum(zones.state_of(bara).damage) == 0


@pytest.mark.parametrize(
    "damage, escape, outcome",
    [("1d6", 7, "escaped"), ("1d6", 50, "swallowed"), ("6d4", 7, "swallowed")],
)
def test_swallow_on_a_natural_18_unless_the_escape_roll_saves(table, damage, escape, outcome):
    encounter, referee, _player, bara, goblin = table
    dice = "4" if damage == "1d6" else "1 1 1 1 1 1"
    _attack(
        referee, encounter, goblin, bara, natural=18, location=50, special="swallow",
        damage=damage, damage_dice=dice, escape=escape,
    )  # fmt: skip
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["special"]["outcome"] == outcome


def test_a_miss_or_a_low_roll_seizes_no_one(table):
    encounter, referee, _player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, natural=17, location=50, special="seize_and_tear")
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["special"]["outcome"] == "none"
    bara.refresh_from_db()
    assert not bara.dead


def test_only_monsters_make_special_attacks_and_players_are_not_offered_them(table):
    encounter, referee, player, bara, goblin = table
    response = _attack(referee, encounter, bara, goblin, special="swallow")
    assert "Only monsters make special attacks." in response.content.decode()
    html = player.get(_url("attack", encounter), **HTMX).content.decode()
    assert 'name="special"' not in html


def test_the_odds_of_a_special_attack_are_exact(table):
    encounter, referee, _player, bara, goblin = table
    # A goblin (THAC0 19) against AC 4 needs 15: a natural 19 or 20 seizes, 18 to 20 swallows
    # unless the d100 escape roll is 10 or less.
    base = f"?actor={goblin.pk}&target={bara.pk}&mode=melee&direction=front&damage=1d6"
    url = _url("odds", encounter, "attack") + base
    assert (
        "Seized and torn apart: 10%"
        in referee.get(url + "&special=seize_and_tear").content.decode()
    )
    assert "Swallowed: 13.5%" in referee.get(url + "&special=swallow").content.decode()


@pytest.mark.parametrize("rule", ["hit", "slain"])
def test_the_odds_against_a_helpless_target_show_where_an_automatic_hit_lands(table, rule):
    from combat.models import Condition

    encounter, referee, _player, bara, goblin = table
    Encounter.objects.filter(pk=encounter.pk).update(helpless_rule=rule)
    Condition.objects.create(combatant=bara, kind="asleep", rounds_left=3)
    # A swallow would need a natural 18: with no roll there is none, before or after.
    query = f"?actor={goblin.pk}&target={bara.pk}&mode=melee&direction=front&damage=1d6"
    html = referee.get(_url("odds", encounter, "attack") + query + "&special=swallow")
    html = html.content.decode()
    chances = dict(re.findall(r'<li data-zone="(\w+)">[^<]*?([\d.]+)%</li>', html))
    assert "Swallowed" not in html
    if rule == "hit":
        assert "hits automatically: the target is helpless" in html
        assert chances["head"] == "10" and chances["chest"] == "30"
    else:
        assert "slain outright: the target is helpless" in html and not chances
    _attack(referee, encounter, goblin, bara, natural=2, location=5, special="swallow")
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["helpless"] == rule and "special" not in entry.data
    if rule == "hit":
        assert entry.data["location"]["zone"] == "head"
    else:
        assert "location" not in entry.data


# --- timers, hidden foes and languages ----------------------------------------------------------


def _start_fight(referee: Client, encounter: Encounter) -> None:
    url = _url("fight", encounter)
    _post(referee, "fight", encounter, form_values(referee.get(url, **HTMX).content.decode(), url))


def test_an_insect_with_its_head_destroyed_dies_at_the_end_of_the_next_round(table):
    encounter, referee, _player, _bara, _goblin = table
    ant = monster(encounter, "Giant ant", body="insectoid", hp_max=20, hp=20)
    zones.sync(ant, encounter)
    _post(referee, "zone", encounter, {"action": "damage", "zone": "head", "amount": "5"}, ant.pk)
    ant.refresh_from_db()
    assert not ant.dead and zones.state_of(ant).dies_in == 1
    entry = LogEntry.objects.get(encounter=encounter, kind="zone")
    assert (
        "dies in 1 round (head destroyed)" in referee.get(_url("log", encounter)).content.decode()
    )
    assert [e["kind"] for e in entry.data["effects"]][-1] == "dying"
    _start_fight(referee, encounter)
    _end_round(referee, encounter)
    ant.refresh_from_db()
    assert ant.dead and zones.state_of(ant).dead
    html = re.sub(r"\s+", " ", referee.get(_url("encounter", encounter)).content.decode())
    assert "Giant ant: killed: head destroyed" in html and "Giant ant is dead." in html
    turn = LogEntry.objects.get(encounter=encounter, kind="turn")
    referee.post(_url("undo", encounter, turn.seq))
    ant.refresh_from_db()
    assert ant.hp == 15 and zones.state_of(ant).dies_in == 1 and not zones.state_of(ant).dead


def test_a_hidden_foe_bleeds_for_the_referee_alone(table):
    encounter, referee, player, _bara, _goblin = table
    lurker = monster(encounter, "Lurking wight", hidden=True, hp_max=20, hp=20)
    zones.sync(lurker, encounter)
    _post(
        referee,
        "zone",
        encounter,
        {"action": "damage", "zone": "left_arm", "amount": "4"},
        lurker.pk,
    )
    _start_fight(referee, encounter)
    _end_round(referee, encounter)
    lurker.refresh_from_db()
    assert lurker.hp == 15
    assert (
        "Lurking wight: bleeds 1 hp" in referee.get(_url("encounter", encounter)).content.decode()
    )
    page = player.get(_url("encounter", encounter)).content.decode()
    assert "Lurking wight" not in page and "bleeds" not in page


@pytest.mark.parametrize(
    "language, words",
    [
        ("cs", ["zásah do levé paže", "levá paže: useknuto", "krvácí: 1 život za kolo"]),
        ("ru", ["попадание в левую руку", "левая рука: отсечено", "кровотечение: 1 хит за раунд"]),
        ("uk", ["влучання у ліву руку", "ліва рука: відрубано", "кровотеча: 1 хіт-пойнт за раунд"]),
    ],
)
def test_a_hit_in_a_zone_reads_in_every_language(table, language, words):
    from django.conf import settings

    encounter, referee, player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=65)
    player.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = re.sub(r"\s+", " ", player.get(_url("encounter", encounter)).content.decode())
    for word in words:
        assert word in html, word


@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_the_log_says_a_severed_arm_in_the_diagrams_own_words(table, language):
    from django.conf import settings

    encounter, referee, player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=65)  # the left arm, severed
    player.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html = re.sub(r"\s+", " ", player.get(_url("encounter", encounter)).content.decode())
    drawn = re.search(r'<path class="severed"[^>]*data-zone="left_arm"[^>]*><title>([^<]+)<', html)
    assert drawn, "the diagram draws the left arm severed"
    said = re.search(r'class="zone-hit">[^<]*? — ([^;<]+);', html)
    assert said, "the log says what the hit did to the arm"
    # The player sees the arm's points too ("left arm: 0 of 4 hp, severed"): the state ends it.
    word = re.split(r", |: ", drawn.group(1))[-1]
    assert said.group(1).endswith(": " + word), (said.group(1), drawn.group(1))
    assert not re.search(r"\b(lost|ztraceno|утрачено|втрачено)\b", said.group(1))


def test_a_target_chosen_anew_brings_its_own_directions(table):
    encounter, _referee, player, _bara, goblin = table
    crow = monster(encounter, "Crow", body="bird", hp_max=4, hp=4)
    url = _url("zone_directions", encounter)
    html = player.get(url, {"target": crow.pk, "direction": "above"}, **HTMX).content.decode()
    assert re.findall(r'value="(\w+)"', html) == [
        "front",
        "left",
        "right",
        "rear",
        "above",
        "below",
    ]
    assert '<option value="above" selected>' in html
    html = player.get(url, {"target": goblin.pk, "direction": "above"}, **HTMX).content.decode()
    assert re.findall(r'value="(\w+)"', html) == ["front", "left", "right", "rear"]
    assert '<option value="front" selected>' in html
    # The attack form asks for them when its target changes.
    target = _select(player.get(_url("attack", encounter), **HTMX).content.decode(), "target")
    assert f'hx-get="{url}"' in target and 'hx-target="#id_direction"' in target


def test_a_hidden_foes_body_is_not_told_to_players(table):
    encounter, _referee, player, _bara, _goblin = table
    snake = monster(encounter, "Hidden snake", body="snake", hidden=True)
    url = _url("zone_directions", encounter)
    html = player.get(url, {"target": snake.pk}, **HTMX).content.decode()
    # As for no target at all: every direction, nothing of the snake's body.
    assert re.findall(r'value="(\w+)"', html) == [
        "front",
        "left",
        "right",
        "rear",
        "above",
        "below",
    ]


def test_the_group_attack_odds_stay_one_line_each(table):
    encounter, referee, _player, bara, goblin = table
    query = f"?attackers={goblin.pk}&target={bara.pk}&mode=melee"
    html = referee.get(_url("group_odds", encounter, "group_attack") + query).content.decode()
    assert "odds-main" in html and "zone-odds" not in html


def test_a_new_combatants_height_is_as_usual_for_its_body_unless_given(encounter, referee):
    _turn_on(referee, encounter)
    html = referee.get(_url("combatant_new", encounter), **HTMX).content.decode()
    values = form_values(html, _url("combatant_new", encounter))
    assert values["height_ft"] == ""
    values |= {"name": "Roc", "ac": "4", "hp_max": "40", "hit_dice": "6", "body": "bird"}
    _post(referee, "combatant_new", encounter, values)
    assert Combatant.objects.get(name="Roc").height_ft == 3


def test_the_body_chosen_is_pictured_under_its_field(encounter, referee, player):
    _turn_on(referee, encounter)
    url = _url("body_preview", encounter)
    for form in ("combatant_new", "quick_add"):
        html = referee.get(_url(form, encounter), **HTMX).content.decode()
        assert f'hx-get="{url}"' in html
        # Its own target: the form's (the whole panel) would be replaced by the picture.
        assert re.search(rf'hx-get="{url}"[^>]*hx-target="this"', html)
    html = referee.get(url, {"body": "reptile", "wings": "2", "legs": "4"}).content.decode()
    assert 'data-zone="left_wing"' in html and 'data-zone="left_foreleg"' in html
    html = referee.get(url, {"body": "reptile", "wings": "0", "legs": "2"}).content.decode()
    assert 'data-zone="left_wing"' not in html and 'data-zone="left_foreleg"' not in html
    for nonsense in ({"body": "dragon"}, {"body": "snake", "wings": "2"}, {"wings": "x"}):
        assert "body-diagram" not in referee.get(url, nonsense).content.decode()
    assert player.get(url, {"body": "fish"}).status_code == 403


def test_a_row_says_what_the_wounds_mean_now(table):
    encounter, referee, player, bara, goblin = table
    _attack(referee, encounter, goblin, bara, location=80, damage_dice=6)  # left leg, 6 of 5
    page = re.sub(r"\s+", " ", player.get(_url("encounter", encounter)).content.decode())
    own = _row(page, bara)
    assert "bleeds 1 hp per round" in own and "crawls" in own
    assert "DEX 9 → 8" in own  # one point over the leg's maximum
    ant = monster(encounter, "Giant ant", body="insectoid", hp_max=20, hp=20)
    zones.sync(ant, encounter)
    _post(referee, "zone", encounter, {"action": "damage", "zone": "head", "amount": "5"}, ant.pk)
    page = re.sub(r"\s+", " ", player.get(_url("encounter", encounter)).content.decode())
    foe = _row(page, ant)
    assert "dies in 1 round" in foe and "cannot defend" in foe and "DEX" not in foe


def test_the_zone_panel_works_without_javascript(table):
    encounter, referee, _player, bara, _goblin = table
    url = _url("zone", encounter, bara.pk)
    page = referee.get(url + "?zone=head").content.decode()
    assert "<!doctype html>" in page.lower() and "Body zones: Bára" in page
    values = form_values(page, url) | {"amount": "1"}
    response = referee.post(url, values)
    assert response.status_code == 302
    bara.refresh_from_db()
    assert zones.state_of(bara).damage_to("head") == 1


# --- dice a wound calls for ----------------------------------------------------------------------


def _with_tail(bara, encounter):
    bara.tail = True
    bara.save()
    zones.sync(bara, encounter)
    return zones.state_of(bara)


def test_a_lost_tails_dex_die_typed_in_from_the_table(table):
    encounter, referee, _player, bara, goblin = table
    state = _with_tail(bara, encounter)
    tail = next(r for r in hl.location_table_for(state.plan, "rear").rows if r.zone == "tail")
    response = _attack(
        referee, encounter, goblin, bara, direction="rear", location=tail.low, wound_dice="5"
    )
    text = re.sub(r"\s+", " ", response.content.decode())
    assert "in the tail" in text and "loses 5 DEX (1d6: 5, typed in)" in text
    assert zones.state_of(Combatant.objects.get(pk=bara.pk)).tail_dex_loss == 5


def test_the_server_rolls_a_wounds_die_nobody_typed_and_says_so(table):
    encounter, referee, _player, bara, _goblin = table
    _with_tail(bara, encounter)
    values = {"action": "damage", "zone": "tail", "amount": "4"}
    text = re.sub(r"\s+", " ", _post(referee, "zone", encounter, values, bara.pk).content.decode())
    assert re.search(r"loses \d DEX \(1d6: \d, server roll\)", text)


@pytest.mark.parametrize("wound_dice", ["5 5", "7", "two"])
def test_wound_dice_that_do_not_fit_change_nothing(table, wound_dice):
    encounter, referee, _player, bara, _goblin = table
    _with_tail(bara, encounter)
    bara.refresh_from_db()
    before = (bara.hp, dict(bara.zones))
    values = {"action": "damage", "zone": "tail", "amount": "4", "wound_dice": wound_dice}
    response = _post(referee, "zone", encounter, values, bara.pk)
    assert 'class="errors"' in response.content.decode()
    bara.refresh_from_db()
    assert (bara.hp, bara.zones) == before


# --- a body's posture ------------------------------------------------------------------------


def test_a_bird_with_its_wings_folded_shows_head_and_body_to_the_side(table):
    encounter, referee, _player, bara, _goblin = table
    crow = monster(encounter, "Crow", body="bird", hp_max=10, hp=10)
    zones.sync(crow, encounter)
    query = f"?actor={bara.pk}&target={crow.pk}&mode=melee&direction=left"
    url = _url("odds", encounter, "attack") + query
    spread = re.findall(r'<li data-zone="(\w+)">', referee.get(url).content.decode())
    folded = re.findall(
        r'<li data-zone="(\w+)">', referee.get(url + "&posture=wings_folded").content.decode()
    )
    assert spread == ["left_wing"]
    assert folded == ["head", "left_wing", "body"]
    body = next(r for r in hl.location_table_for(
        zones._plan({"body": "bird", "wings_spread": False}), "left"
    ).rows if r.zone == "body")  # fmt: skip
    _attack(
        referee, encounter, bara, crow, direction="left", posture="wings_folded", location=body.low
    )
    entry = LogEntry.objects.get(encounter=encounter, kind="attack")
    assert entry.data["location"]["zone"] == "body"
    assert entry.data["location"]["posture"] == "wings_folded"


def test_a_posture_the_body_has_not_is_a_form_error(table):
    encounter, referee, _player, bara, goblin = table
    response = _attack(referee, encounter, goblin, bara, posture="coiled", location=5)
    assert "This body type has no such variant." in response.content.decode()
    assert not LogEntry.objects.filter(encounter=encounter, kind="attack").exists()


def test_foes_bodies_show_their_numbers_when_the_referee_shows_foes_hit_points(table):
    encounter, _referee, player, _bara, goblin = table
    page = player.get(_url("encounter", encounter)).content.decode()
    assert "hit point" not in _row(page, goblin).split("body-diagram", 1)[1]
    encounter.show_foe_hp = True
    encounter.save()
    page = player.get(_url("encounter", encounter)).content.decode()
    assert "head: 1 of 1 hit point" in _row(page, goblin)


@pytest.mark.parametrize(
    "language, typed, height",
    [("en", "2.5", "2.5"), ("cs", "2,5", "2.5"), ("ru", "1,75", "1.75"), ("uk", "2.5", "2.5")],
)
def test_heights_are_read_as_each_language_writes_numbers(
    encounter, referee, language, typed, height
):
    """A Czech, Russian or Ukrainian phone types 2,5 ft; a point is read everywhere too."""
    _turn_on(referee, encounter)
    referee.cookies["django_language"] = language
    values = {"count": "1", "name": "Giant ant", "ac": "3", "hit_dice": "4", "side": "foes"}
    values |= {"body": "insectoid", "wings": "0", "legs": "6", "height_ft": typed}
    assert _post(referee, "quick_add", encounter, values).status_code == 200
    assert Combatant.objects.get(name__startswith="Giant ant").height_ft == Decimal(height)
    html = referee.get(_url("combatant_new", encounter), **HTMX).content.decode()
    assert re.search(r'name="height_ft"[^>]*inputmode="decimal"', html) or re.search(
        r'inputmode="decimal"[^>]*name="height_ft"', html
    )


def test_wounds_that_leave_a_combatant_unable_to_attack_refuse_its_attacks(table):
    encounter, referee, _player, bara, goblin = table
    goblin.zones = goblin.zones | {"conditions": ["cannot_attack"]}
    goblin.save(update_fields=["zones"])
    before = encounter.log.count()
    response = _attack(referee, encounter, goblin, bara, location=40)
    assert "Goblin cannot attack: the wounds do not allow it." in response.content.decode()
    assert encounter.log.count() == before
    bara.refresh_from_db()
    assert bara.hp == bara.hp_max
    assert _attack(referee, encounter, bara, goblin, location=40).status_code == 200
    assert encounter.log.count() == before + 1  # the unwounded still attack


@pytest.mark.parametrize("system", ["ose", "becmi", "dolmenwood"])
def test_every_systems_attack_refuses_an_attacker_whose_wounds_forbid_it(table, system):
    """One attack skeleton (``combat.table.Attack``): the wounds rule is every system's."""
    encounter, _referee, _player, bara, goblin = table
    Encounter.objects.filter(pk=encounter.pk).update(system=system)
    goblin.zones = goblin.zones | {"conditions": ["cannot_attack"]}
    goblin.save(update_fields=["zones"])
    attack = {
        "ose": ose_actions.attack,
        "becmi": becmi_actions.attack,
        "dolmenwood": dolmenwood_actions.attack,
    }[system]
    viewer = Viewer(Encounter.objects.get(pk=encounter.pk), is_referee=True, seat=None)
    common = {"mode": "melee", "modifier": 0, "natural": 18, "damage": None, "damage_dice": None}
    with pytest.raises(Refused) as refused:
        attack(viewer, actor=goblin, target=bara, **common)
    assert refused.value.code == "wounds_prevent_attack"
    assert attack(viewer, actor=bara, target=goblin, **common).data["attacker"] == "Bára"


def test_zone_damage_and_bleeding_stop_at_0_hit_points_in_dolmenwood(table):
    """Dolmenwood's hit points never go below 0, whatever the zone panel deals or a severed
    limb bleeds at the round's end."""
    encounter, referee, _player, _bara, goblin = table
    Encounter.objects.filter(pk=encounter.pk).update(system="dolmenwood")
    url = _url("zone", encounter, goblin.pk)
    values = {"action": "damage", "zone": "left_arm", "amount": "40"}
    assert referee.post(url, values, **HTMX).status_code == 200
    goblin.refresh_from_db()
    assert goblin.hp == 0
