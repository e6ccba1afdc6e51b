"""Group rolls through the views: a group attack and an area effect, as the referee makes them.

Each attack of a group must come out exactly as the single attack with the same dice would;
an area effect rolls its damage once and lets each target save against it.
"""

from __future__ import annotations

import random
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from combat import odds
from combat import table as toolkit
from combat.access import Viewer
from combat.forms import AttackForm, SaveForm
from combat.group_forms import AreaEffectForm, GroupAttackForm, kin_of
from combat.models import Combatant, Encounter, LogEntry

from ...conftest import character, fixed_dice, form_values, monster

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _post(client: Client, encounter: Encounter, name: str, data: dict, htmx: bool = True):
    return client.post(reverse(name, args=[encounter.slug]), data, **(HTMX if htmx else {}))


def _referee_of(encounter: Encounter) -> Client:
    client = Client()
    client.get(reverse("referee_link", args=[encounter.referee_key]))
    return client


def _goblins(encounter: Encounter, count: int = 3, **extra) -> list[Combatant]:
    return [monster(encounter, f"Goblin {n}", **extra) for n in range(1, count + 1)]


def _entries(encounter: Encounter) -> list[LogEntry]:
    return list(LogEntry.objects.filter(encounter=encounter).order_by("seq"))


def _without_group(data: dict) -> dict:
    return {key: value for key, value in data.items() if key != "group"}


def _fight(encounter: Encounter) -> tuple[list[Combatant], Combatant]:
    """Three goblins (THAC0 19) and a sturdy fighter (AC 4, 40 hp) for them to attack."""
    hero = character(encounter, "Aldric", hp_max=40, hp=40)
    return _goblins(encounter, str_score=13), hero


# --- the group attack -----------------------------------------------------------------------


def test_each_attack_of_a_group_is_the_single_attack_with_the_same_typed_dice(referee, encounter):
    goblins, hero = _fight(encounter)
    dice = [(15, "3"), (4, "6"), (20, "5")]
    data = {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"}
    data |= {"damage": "1d6", "modifier": 1}
    for goblin, (natural, damage_dice) in zip(goblins, dice, strict=True):
        data |= {f"natural_{goblin.pk}": natural, f"damage_dice_{goblin.pk}": damage_dice}
    response = _post(referee, encounter, "group_attack", data)
    assert response.status_code == 200
    grouped = _entries(encounter)

    # The same three attacks, one at a time, at a table set up the same way.
    alone = Encounter.objects.create(name="Alone")
    single_goblins, single_hero = _fight(alone)
    single_referee = _referee_of(alone)
    for goblin, (natural, damage_dice) in zip(single_goblins, dice, strict=True):
        _post(
            single_referee,
            alone,
            "attack",
            {
                "actor": goblin.pk,
                "target": single_hero.pk,
                "mode": "melee",
                "modifier": 1,
                "natural": natural,
                "damage": "1d6",
                "damage_dice": damage_dice,
            },
        )
    singles = _entries(alone)
    assert [_without_group(e.data) for e in grouped] == [e.data for e in singles]
    assert [e.effects[0]["hp"] if e.effects else 0 for e in grouped] == [
        e.effects[0]["hp"] if e.effects else 0 for e in singles
    ]
    hero.refresh_from_db()
    single_hero.refresh_from_db()
    assert hero.hp == single_hero.hp < 40
    # 15 + 1 (situational) + 1 (STR 13) hits AC 4; a natural 4 misses.
    assert [e.data["roll"]["success"] for e in grouped] == [True, False, True]


def test_each_attack_of_a_group_is_the_single_attack_with_the_same_server_dice(
    referee, encounter, monkeypatch
):
    goblins, hero = _fight(encounter)
    fixed_dice(monkeypatch, random.Random(1234))
    _post(
        referee,
        encounter,
        "group_attack",
        {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "missile"}
        | {"damage": "1d8"},
    )
    grouped = _entries(encounter)
    assert not any(e.data["roll"]["entered"] for e in grouped)

    alone = Encounter.objects.create(name="Alone")
    single_goblins, single_hero = _fight(alone)
    single_referee = _referee_of(alone)
    fixed_dice(monkeypatch, random.Random(1234))
    for goblin in single_goblins:
        _post(
            single_referee,
            alone,
            "attack",
            {"actor": goblin.pk, "target": single_hero.pk, "mode": "missile", "damage": "1d8"},
        )
    assert [_without_group(e.data) for e in grouped] == [e.data for e in _entries(alone)]


def test_the_attacks_of_a_group_share_one_marker_and_show_together_in_the_log(
    referee, player, encounter
):
    goblins, hero = _fight(encounter)
    response = _post(
        referee,
        encounter,
        "group_attack",
        {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"}
        | {f"natural_{g.pk}": 2 for g in goblins},
    )
    entries = _entries(encounter)
    assert len(entries) == 3
    markers = [e.data["group"] for e in entries]
    assert len({m["id"] for m in markers}) == 1
    assert [(m["kind"], m["index"], m["size"]) for m in markers] == [
        ("attack", 1, 3),
        ("attack", 2, 3),
        ("attack", 3, 3),
    ]
    # The panel shows the whole group, newest first as the log does.
    html = response.content.decode()
    assert html.count('class="entry attack') == 3
    assert html.index("Goblin 3 attacks Aldric") < html.index("Goblin 1 attacks Aldric")
    assert "group attack 1/3" in html and "group attack 3/3" in html
    # Players see the marker without the numbering (a secret attack would leave a gap).
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert page.count(">group attack</span>") == 3
    assert "group attack 1/3" not in page


def test_a_target_killed_by_the_group_is_not_attacked_again(referee, encounter):
    goblins = _goblins(encounter, 4)
    hero = character(encounter, "Aldric", hp_max=3, hp=3)
    other = character(encounter, "Brina")
    data = {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"}
    data |= {"damage": "1d6", f"natural_{goblins[0].pk}": 20}
    data |= {f"damage_dice_{goblins[0].pk}": "6"}
    data |= {f"target_{goblins[3].pk}": other.pk, f"natural_{goblins[3].pk}": 20}
    response = _post(referee, encounter, "group_attack", data)
    first, second, third, fourth = _entries(encounter)
    assert first.data["killed"] is True
    for skipped in (second, third):
        assert skipped.data["skipped"] == "target_dead"
        assert skipped.effects == []
        assert skipped.data["group"]["id"] == first.data["group"]["id"]
    # The fourth has a target of its own, still standing.
    assert fourth.data["target"] == "Brina" and fourth.data["roll"]["success"] is True
    hero.refresh_from_db()
    assert hero.hp == -3  # one blow only: 3 - 6
    html = response.content.decode()
    assert "Goblin 2 does not attack Aldric, who is already dead." in html
    assert "Goblin 3 does not attack Aldric, who is already dead." in html


def test_an_attacker_killed_by_an_earlier_attack_of_the_group_does_not_attack(referee, encounter):
    hero = character(encounter, "Aldric")
    goblin = monster(encounter, "Goblin", hp_max=2, hp=2)
    _post(
        referee,
        encounter,
        "group_attack",
        {
            "attackers": [hero.pk, goblin.pk],
            "target": hero.pk,
            f"target_{hero.pk}": goblin.pk,
            "mode": "melee",
            "damage": "1d6",
            f"natural_{hero.pk}": 20,
            f"damage_dice_{hero.pk}": "4",
        },
    )
    blow, skipped = _entries(encounter)
    assert blow.data["killed"] is True
    assert skipped.data["skipped"] == "attacker_dead"
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Goblin is dead and does not attack." in page


def test_a_dead_attacker_or_target_refuses_the_whole_group(referee, encounter):
    goblins, hero = _fight(encounter)
    Combatant.objects.filter(pk=goblins[1].pk).update(hp=0)
    response = _post(
        referee,
        encounter,
        "group_attack",
        {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"},
    )
    assert "Goblin 2 is dead and cannot act." in response.content.decode()
    Combatant.objects.filter(pk=hero.pk).update(hp=-2)
    response = _post(
        referee,
        encounter,
        "group_attack",
        {"attackers": [goblins[0].pk], "target": hero.pk, "mode": "melee"},
    )
    assert "Aldric is already dead: choose another target." in response.content.decode()
    assert not LogEntry.objects.exists()


def test_a_death_between_the_form_and_the_roll_refuses_the_whole_group(referee, encounter):
    """The form's choices were read before the death; the action finds it under lock."""
    goblins, hero = _fight(encounter)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    form = GroupAttackForm(
        {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"},
        viewer=viewer,
    )
    assert form.is_valid(), form.errors
    Combatant.objects.filter(pk=goblins[2].pk).update(hp=0)
    from combat import group
    from combat.errors import Refused

    with pytest.raises(Refused):
        group.attack_together(viewer, **form.action_arguments())
    assert not LogEntry.objects.exists()
    assert Combatant.objects.get(pk=hero.pk).hp == 40


def test_every_one_of_a_name_is_picked_at_once(referee, encounter):
    goblins, hero = _fight(encounter)
    monster(encounter, "Orc")
    page = referee.get(reverse("group_attack", args=[encounter.slug]), **HTMX).content.decode()
    assert "every Goblin (3)" in page
    assert "every Orc" not in page  # one alone is no group
    _post(
        referee,
        encounter,
        "group_attack",
        {"picks": "Goblin", "target": hero.pk, "mode": "melee"},
    )
    assert [e.data["attacker"] for e in _entries(encounter)] == [g.name for g in goblins]


def test_the_group_attack_odds_say_a_helpless_target_is_hit_automatically(referee, encounter):
    from combat.models import Condition

    goblins, hero = _fight(encounter)
    Condition.objects.create(combatant=hero, kind="paralysed", rounds_left=3)
    data = {"attackers": [goblins[0].pk], "target": hero.pk, "mode": "melee", "damage": "1d6"}
    url = reverse("group_odds", args=[encounter.slug, "group_attack"])
    html = referee.get(url, data).content.decode()
    assert "Goblin 1 → Aldric: " in html
    assert "hits automatically: the target is helpless · 100%" in html and "needs" not in html
    _post(referee, encounter, "group_attack", data | {f"natural_{goblins[0].pk}": 1})
    assert LogEntry.objects.get(encounter=encounter, kind="attack").data["helpless"] == "hit"


@pytest.mark.parametrize(
    ("name", "kin"),
    [("Goblin 3", "Goblin"), ("Goblin", "Goblin"), ("Giant rat 12", "Giant rat"), ("R2", "R2")],
)
def test_names_group_by_what_is_left_without_their_number(name, kin):
    assert kin_of(name) == kin


def test_the_form_shows_each_attacks_odds_before_the_roll(referee, encounter):
    goblins, hero = _fight(encounter)
    brina = character(encounter, "Brina", ac=7)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    response = referee.get(
        reverse("group_odds", args=[encounter.slug, "group_attack"]),
        {
            "attackers": [goblins[0].pk, goblins[1].pk],
            "target": hero.pk,
            f"target_{goblins[1].pk}": brina.pk,
            "mode": "melee",
            "modifier": 2,
        },
    )
    html = response.content.decode()
    for goblin, target in ((goblins[0], hero), (goblins[1], brina)):
        single = AttackForm(
            {"actor": goblin.pk, "target": target.pk, "mode": "melee", "modifier": 2},
            viewer=viewer,
        )
        expected = odds.for_form(single)
        line = f"{goblin.name} → {target.name}: "
        assert line in html
        assert f"needs {expected.needed}+" in html.split(line)[1].split("</li>")[0]
    # THAC0 19 against AC 4 needs 15; +2 and STR +1: a natural 12 will do, 9 of 20.
    assert "needs 15+ · 45%" in html
    # Before anyone is ticked the form says how to see them.
    page = referee.get(reverse("group_attack", args=[encounter.slug]), **HTMX).content.decode()
    assert "Tick the attackers to see their odds." in page


def test_the_form_opens_aimed_at_the_party_and_keeps_who_attacked(referee, encounter):
    goblins, hero = _fight(encounter)
    page = referee.get(reverse("group_attack", args=[encounter.slug]), **HTMX).content.decode()
    values = form_values(page, "/group-attack/")
    assert values["target"] == str(hero.pk)
    assert values["damage"] == "1d6"
    response = _post(
        referee,
        encounter,
        "group_attack",
        values | {"attackers": [goblins[0].pk, goblins[2].pk], "mode": "missile"},
    )
    again = form_values(response.content.decode(), "/group-attack/")
    assert again["attackers"] == str(goblins[2].pk)  # the reader keeps the last ticked
    assert again["mode"] == "missile"
    assert again["once"] != values["once"]
    ticked = re.findall(r'name="attackers" value="(\d+)"[^>]* checked', response.content.decode())
    assert ticked == [str(goblins[0].pk), str(goblins[2].pk)]


def test_a_group_attack_sent_twice_is_applied_once(referee, encounter):
    goblins, hero = _fight(encounter)
    data = {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"}
    data |= {"damage": "1d6", "once": "group-key-1"}
    data |= {f"natural_{g.pk}": 20 for g in goblins}
    first = _post(referee, encounter, "group_attack", data)
    hero.refresh_from_db()
    after_first = hero.hp
    second = _post(referee, encounter, "group_attack", data)
    assert len(_entries(encounter)) == 3
    hero.refresh_from_db()
    assert hero.hp == after_first
    # The second sending is shown what the first one did: the whole group.
    assert second.content.decode().count('class="entry attack') == 3
    assert first.status_code == second.status_code == 200


def test_a_group_attack_sent_twice_at_once_is_applied_once(referee, encounter):
    """The second sending gets past the check before acting (the first has not committed):
    the key, claimed before anything is rolled, stops it."""
    goblins, hero = _fight(encounter)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    data = {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"}
    data |= {"once": "group-key-2"}
    from combat import group

    form = GroupAttackForm(data, viewer=viewer)
    assert form.is_valid()
    group.attack_together(viewer, **form.action_arguments())
    with pytest.raises(toolkit.Repeated):
        group.attack_together(viewer, **form.action_arguments())
    assert len(_entries(encounter)) == 3


def test_a_secret_group_attack_shows_players_only_what_it_did_to_their_side(
    referee, player, encounter
):
    goblins = _goblins(encounter, 2)
    fighter = character(encounter, "Aldric", seat=player.seat)
    _post(
        referee,
        encounter,
        "group_attack",
        {
            "attackers": [g.pk for g in goblins],
            "target": fighter.pk,
            "mode": "melee",
            "damage": "1d6",
            "secret": "on",
        }
        | {f"natural_{g.pk}": 20 for g in goblins}
        | {f"damage_dice_{g.pk}": "2" for g in goblins},
    )
    assert all(e.secret for e in _entries(encounter))
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Goblin 1" not in page.split('id="log"')[1]
    assert "Aldric takes 2 points of damage" in page
    assert "group attack" not in page


# --- bad input ------------------------------------------------------------------------------

BAD_VALUES = [
    "",
    " ",
    "x",
    "-1",
    "0",
    "1e5",
    "99999999999999999999",
    "-99999999999999999999",
    "1.5",
    "²",
    "<script>",
    "1d6" * 50,
    "ž" * 500,
    "\x00",
    "[]",
    "1d6+99999",
    "100d1000",
]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_no_bad_value_in_any_group_attack_field_gives_a_server_error(referee, encounter, value):
    goblins, hero = _fight(encounter)
    pk = goblins[0].pk
    valid = {"attackers": [pk], "target": hero.pk, "mode": "melee", "damage": "1d6"}
    fields = ["attackers", "picks", "target", "mode", "modifier", "damage", "secret"]
    fields += [f"target_{pk}", f"natural_{pk}", f"damage_dice_{pk}"]
    for field in fields:
        response = _post(referee, encounter, "group_attack", valid | {field: value})
        assert response.status_code == 200, (field, value)
        odds_page = referee.get(
            reverse("group_odds", args=[encounter.slug, "group_attack"]), valid | {field: value}
        )
        assert odds_page.status_code == 200, (field, value)


@pytest.mark.parametrize("value", BAD_VALUES)
def test_no_bad_value_in_any_area_field_gives_a_server_error(referee, encounter, value):
    hero = character(encounter, "Aldric")
    valid = {"targets": [hero.pk], "damage": "2d6", "category": "spells", "on_save": "half"}
    fields = ["targets", "picks", "damage", "damage_dice", "category", "on_save", "modifier"]
    fields += ["label", "secret", f"natural_{hero.pk}"]
    for field in fields:
        response = _post(referee, encounter, "area_effect", valid | {field: value})
        assert response.status_code == 200, (field, value)
        odds_page = referee.get(
            reverse("group_odds", args=[encounter.slug, "area"]), valid | {field: value}
        )
        assert odds_page.status_code == 200, (field, value)


def test_unknown_foreign_and_missing_attackers_are_clear_messages(referee, encounter):
    goblins, hero = _fight(encounter)
    elsewhere = Encounter.objects.create(name="Elsewhere")
    stranger = monster(elsewhere, "Stranger")
    base = {"target": hero.pk, "mode": "melee"}
    cases = [
        ({"attackers": [999999]}, "Select a valid choice"),
        ({"attackers": [stranger.pk]}, "Select a valid choice"),
        ({"attackers": [goblins[0].pk], "target": stranger.pk}, "Select a valid choice"),
        ({}, "Choose at least one attacker."),
        ({"attackers": [hero.pk]}, "Aldric cannot attack itself."),
        (
            {"attackers": [goblins[0].pk], f"natural_{goblins[1].pk}": 12},
            "Goblin 2 is not chosen: tick it, or leave its dice empty.",
        ),
        (
            {"attackers": [goblins[0].pk], "damage": "1d6", f"damage_dice_{goblins[0].pk}": "3 4"},
            "Enter 1 die results, one for each die.",
        ),
        (
            {"attackers": [goblins[0].pk], "damage": "", f"damage_dice_{goblins[0].pk}": "3"},
            "Give the damage dice to enter their results.",
        ),
        ({"attackers": [goblins[0].pk], f"natural_{goblins[0].pk}": 21}, "less than or equal"),
    ]
    for data, message in cases:
        response = _post(referee, encounter, "group_attack", base | data)
        assert response.status_code == 200
        assert message in response.content.decode(), (data, message)
    assert not LogEntry.objects.exists()


def test_an_attacker_sent_twice_attacks_once(referee, encounter):
    goblins, hero = _fight(encounter)
    _post(
        referee,
        encounter,
        "group_attack",
        {"attackers": [goblins[0].pk, goblins[0].pk], "picks": [], "target": hero.pk}
        | {"mode": "melee"},
    )
    assert len(_entries(encounter)) == 1


def test_a_plain_form_post_redirects_after_a_group_roll(referee, encounter):
    goblins, hero = _fight(encounter)
    response = _post(
        referee,
        encounter,
        "group_attack",
        {"attackers": [goblins[0].pk], "target": hero.pk, "mode": "melee"},
        htmx=False,
    )
    assert response.status_code == 302
    response = _post(referee, encounter, "area_effect", {"damage": "1d6"}, htmx=False)
    assert response.status_code == 200
    assert "Choose at least one target." in response.content.decode()


@pytest.mark.parametrize("name", ["group_attack", "area_effect"])
def test_players_may_not_roll_for_a_group(player, other_player, outsider, encounter, name):
    goblins, hero = _fight(encounter)
    data = {"attackers": [goblins[0].pk], "targets": [hero.pk], "target": hero.pk}
    data |= {"mode": "melee", "damage": "1d6", "category": "death", "on_save": "half"}
    for client in (player, other_player):
        assert client.get(reverse(name, args=[encounter.slug])).status_code == 403
        assert _post(client, encounter, name, data).status_code == 403
    assert outsider.get(reverse(name, args=[encounter.slug])).status_code == 404
    assert _post(outsider, encounter, name, data).status_code == 404
    for panel in ("group_attack", "area"):
        url = reverse("group_odds", args=[encounter.slug, panel])
        assert player.get(url, data).status_code == 403
        assert outsider.get(url, data).status_code == 404
    assert not LogEntry.objects.exists()
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "/group-attack/" not in page and "/area/" not in page


def test_the_referee_opens_both_from_the_tools(referee, encounter):
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert f'href="{reverse("group_attack", args=[encounter.slug])}"' in page
    assert f'href="{reverse("area_effect", args=[encounter.slug])}"' in page
    assert ">Group attack</a>" in page and ">Area effect</a>" in page
    assert referee.get(reverse("group_odds", args=[encounter.slug, "nonsense"])).status_code == 404


# --- the area effect ------------------------------------------------------------------------


def _party(encounter: Encounter) -> tuple[Combatant, Combatant]:
    """Two characters who save against spells on 14."""
    return character(encounter, "Aldric", hp_max=30, hp=30), character(
        encounter, "Brina", hp_max=30, hp=30
    )


def test_an_area_effect_rolls_the_damage_once_and_each_target_saves(referee, encounter):
    aldric, brina = _party(encounter)
    response = _post(
        referee,
        encounter,
        "area_effect",
        {
            "label": "Fireball",
            "targets": [aldric.pk, brina.pk],
            "damage": "3d6",
            "damage_dice": "6 5 4",
            "category": "spells",
            "on_save": "half",
            f"natural_{aldric.pk}": 14,  # saves: half of 15, rounded down
            f"natural_{brina.pk}": 13,  # fails: all of it
        },
    )
    head, saved, failed = sorted(_entries(encounter), key=lambda e: -e.seq)
    assert head.kind == "roll" and head.data["total"] == 15 and head.data["dice"] == [6, 5, 4]
    assert head.data["area"] == {"category": "spells", "on_save": "half", "damage": 15}
    assert head.effects == []
    assert (saved.data["who"], saved.data["roll"]["success"]) == ("Brina", False)
    assert (failed.data["who"], failed.data["roll"]["success"]) == ("Aldric", True)
    assert failed.data["damage"] == {"amount": 15, "taken": 7, "halved": True, "negated": False}
    assert saved.data["damage"]["taken"] == 15
    aldric.refresh_from_db()
    brina.refresh_from_db()
    assert (aldric.hp, brina.hp) == (23, 15)
    ids = {e.data["group"]["id"] for e in (head, saved, failed)}
    assert len(ids) == 1
    html = response.content.decode()
    # The shared roll once, heading its group; each target's save below it.
    assert html.count("Fireball: 3d6") == 1
    assert html.index("Fireball: 3d6") < html.index("Brina: saving throw vs Spells")
    assert "Saving throw vs Spells, rods or staves: a success halves the damage." in html
    assert "Damage 15, halved (rounded down): 7" in html
    assert "Damage taken: 15" in html


def test_a_save_that_negates_takes_nothing_and_a_failed_one_takes_all(referee, encounter):
    aldric, brina = _party(encounter)
    response = _post(
        referee,
        encounter,
        "area_effect",
        {
            "targets": [aldric.pk, brina.pk],
            "damage": "2d8",
            "damage_dice": "8 4",
            "category": "breath",
            "on_save": "none",
            f"natural_{aldric.pk}": 20,
            f"natural_{brina.pk}": 2,
        },
    )
    aldric.refresh_from_db()
    brina.refresh_from_db()
    assert (aldric.hp, brina.hp) == (30, 18)
    html = response.content.decode()
    assert "Damage 12, negated by the save" in html
    assert "a success negates the damage." in html
    assert "Damage taken: 12" in html


def test_a_successful_save_against_an_area_effect_follows_the_single_save(referee, encounter):
    """With "halves", a target's entry is the single saving throw's with the same dice."""
    aldric, _brina = _party(encounter)
    _post(
        referee,
        encounter,
        "area_effect",
        {
            "targets": [aldric.pk],
            "damage": "1d10",
            "damage_dice": "9",
            "category": "wands",
            "on_save": "half",
            "modifier": -1,
            f"natural_{aldric.pk}": 12,
        },
    )
    area = next(e for e in _entries(encounter) if e.kind == "save")
    alone = Encounter.objects.create(name="Alone")
    single, _ = _party(alone)
    _post(
        _referee_of(alone),
        alone,
        "save",
        {"actor": single.pk, "category": "wands", "modifier": -1, "natural": 12, "damage": 9},
    )
    expected = LogEntry.objects.get(encounter=alone).data
    got = _without_group(area.data)
    assert got.pop("damage") | {"negated": False} == expected.pop("damage") | {"negated": False}
    assert got == expected


def test_the_area_form_shows_each_targets_odds_of_saving(referee, encounter):
    aldric, _brina = _party(encounter)
    goblin = monster(encounter, "Goblin")
    viewer = Viewer(encounter, is_referee=True, seat=None)
    response = referee.get(
        reverse("group_odds", args=[encounter.slug, "area"]),
        {"targets": [aldric.pk, goblin.pk], "damage": "6d6", "category": "spells"}
        | {"modifier": 1},
    )
    html = response.content.decode()
    for who in (aldric, goblin):
        expected = odds.for_form(
            SaveForm({"actor": who.pk, "category": "spells", "modifier": 1}, viewer=viewer)
        )
        line = html.split(f"{who.name}: ")[1].split("</li>")[0]
        assert f"needs {expected.needed}+" in line
    assert "Brina" not in html
    assert "6 to 36 · average 21" in html
    assert "needs 14+ · 40%" in html  # 13 or more on the die with +1


def test_an_area_effect_entry_is_undone_on_its_own(referee, encounter):
    aldric, brina = _party(encounter)
    _post(
        referee,
        encounter,
        "area_effect",
        {
            "targets": [aldric.pk, brina.pk],
            "damage": "1d6",
            "damage_dice": "6",
            "category": "death",
            "on_save": "half",
            f"natural_{aldric.pk}": 1,
            f"natural_{brina.pk}": 1,
        },
    )
    aldric_entry = next(e for e in _entries(encounter) if e.data.get("who") == "Aldric")
    response = referee.post(reverse("undo", args=[encounter.slug, aldric_entry.seq]), **HTMX)
    assert response.status_code == 200
    aldric.refresh_from_db()
    brina.refresh_from_db()
    assert (aldric.hp, brina.hp) == (30, 24)


def test_an_area_effect_sent_twice_is_applied_once(referee, encounter):
    aldric, brina = _party(encounter)
    data = {
        "targets": [aldric.pk, brina.pk],
        "damage": "2d6",
        "category": "spells",
        "on_save": "half",
        "once": "fireball-1",
    }
    _post(referee, encounter, "area_effect", data)
    aldric.refresh_from_db()
    hp = aldric.hp
    second = _post(referee, encounter, "area_effect", data)
    assert len(_entries(encounter)) == 3
    aldric.refresh_from_db()
    assert aldric.hp == hp
    assert second.content.decode().count('class="entry ') == 3


def test_an_area_effect_refuses_what_it_cannot_do(referee, encounter):
    aldric, brina = _party(encounter)
    Combatant.objects.filter(pk=brina.pk).update(hp=0)
    base = {"targets": [aldric.pk], "damage": "2d6", "category": "spells", "on_save": "half"}
    cases = [
        ({"targets": [brina.pk]}, "Brina is already dead: choose another target."),
        ({"targets": []}, "Choose at least one target."),
        ({"damage": ""}, "Give a dice expression, e.g. 2d6."),
        ({"damage_dice": "1 2 3"}, "Enter 2 die results, one for each die."),
        ({"damage_dice": "7 1"}, "A d6 shows 1 to 6, not 7."),
        ({"on_save": "doubles"}, "Select a valid choice"),
        ({"category": "dragons"}, "Select a valid choice"),
        ({"picks": "Nobody"}, "Select a valid choice"),
    ]
    for data, message in cases:
        response = _post(referee, encounter, "area_effect", base | data)
        assert response.status_code == 200
        assert message in response.content.decode(), (data, message)
    assert not LogEntry.objects.exists()


def test_an_area_effect_on_hidden_foes_only_is_the_referees_secret(referee, player, encounter):
    wights = [monster(encounter, f"Wight {n}", hidden=True) for n in (1, 2)]
    _post(
        referee,
        encounter,
        "area_effect",
        {"picks": "Wight", "damage": "1d6", "category": "spells", "on_save": "half"},
    )
    assert len(_entries(encounter)) == 3
    assert all(e.secret and e.public_seq is None for e in _entries(encounter))
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Wight" not in page
    log = referee.get(reverse("log", args=[encounter.slug])).content.decode()
    assert all(w.name in log for w in wights)


def test_the_area_form_offers_the_five_saves_and_what_a_save_does(referee, encounter):
    _party(encounter)
    viewer = Viewer(encounter, is_referee=True, seat=None)
    form = AreaEffectForm(viewer=viewer)
    assert [key for key, _ in form.fields["category"].choices] == [
        "death",
        "wands",
        "paralysis",
        "breath",
        "spells",
    ]
    assert [key for key, _ in form.fields["on_save"].choices] == ["half", "none"]
    page = referee.get(reverse("area_effect", args=[encounter.slug]), **HTMX).content.decode()
    assert "Tick the targets to see their odds of saving." in page
    assert "<h2>Area effect</h2>" in page


# --- live -----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_group_attack_and_an_area_effect_reach_a_players_socket():
    from ...test_fanout import _marker, _open

    def table():
        encounter = Encounter.objects.create(name="Live")
        referee = _referee_of(encounter)
        player = Client()
        player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
        seat = encounter.seats.get()
        hero = character(encounter, "Aldric", seat=seat, hp_max=50, hp=50)
        goblins = _goblins(encounter)
        encounter.refresh_from_db()
        return encounter, referee, player, hero, goblins

    encounter, referee, player, hero, goblins = await sync_to_async(table)()
    socket = await _open(player, encounter.slug, seq=encounter.seq)
    await sync_to_async(_post)(
        referee,
        encounter,
        "group_attack",
        {"attackers": [g.pk for g in goblins], "target": hero.pk, "mode": "melee"}
        | {"damage": "1d6"}
        | {f"natural_{g.pk}": 20 for g in goblins}
        | {f"damage_dice_{g.pk}": "1" for g in goblins},
    )
    seen = ""
    while "Goblin 3 attacks Aldric" not in seen or "Goblin 1 attacks Aldric" not in seen:
        seen += await socket.receive_from(timeout=5)
    assert "group attack" in seen
    await sync_to_async(_post)(
        referee,
        encounter,
        "area_effect",
        {
            "label": "Fireball",
            "targets": [hero.pk, goblins[0].pk],
            "damage": "1d6",
            "damage_dice": "4",
            "category": "spells",
            "on_save": "half",
        },
    )
    seen = ""
    while "Fireball" not in seen or "Aldric: saving throw" not in seen:
        seen += await socket.receive_from(timeout=5)
    assert "area effect" in seen
    await sync_to_async(encounter.refresh_from_db)()
    assert _marker(seen)[0] <= encounter.seq
    await socket.disconnect()


# --- Saves the players roll from their phones -------------------------------------------------


def _fireball_left_to_players(referee, encounter, aldric, goblin, **extra):
    return _post(
        referee,
        encounter,
        "area_effect",
        {
            "label": "Fireball",
            "targets": [aldric.pk, goblin.pk],
            "damage": "3d6",
            "damage_dice": "6 5 4",
            "category": "spells",
            "on_save": "half",
            "players_roll": "on",
        }
        | extra,
    )


def _save_url(encounter: Encounter, pending) -> str:
    return reverse("pending_save", args=[encounter.slug, pending.pk])


def test_a_players_character_waits_for_its_player_to_roll_the_save(
    referee, player, other_player, encounter
):
    from combat.models import PendingSave

    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30)
    goblin = monster(encounter, "Goblin", hp_max=30, hp=30)
    _fireball_left_to_players(referee, encounter, aldric, goblin)
    goblin.refresh_from_db()
    aldric.refresh_from_db()
    assert goblin.hp < 30 and aldric.hp == 30  # the goblin saved at once; Aldric waits
    pending = PendingSave.objects.get()
    head = LogEntry.objects.filter(kind="roll").get()
    assert head.data["waiting"] == ["Aldric"]
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Save vs Spells, rods or staves: 15 damage" in page and "needs 14+ · 35" in page
    assert "Their players roll the saves of: Aldric" in page
    other = other_player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert _save_url(encounter, pending) not in other
    assert other_player.post(_save_url(encounter, pending), **HTMX).status_code == 403
    answer = player.post(_save_url(encounter, pending), {"natural": "14"}, **HTMX)
    assert answer.status_code == 200
    assert "Damage 15, halved (rounded down): 7" in answer.content.decode()
    aldric.refresh_from_db()
    assert aldric.hp == 30 - 7  # saved: half of 15
    entry = LogEntry.objects.filter(kind="save", data__who="Aldric").get()
    assert entry.data["group"]["id"] == head.data["group"]["id"]
    again = player.post(_save_url(encounter, pending), {"natural": "1"}, **HTMX)
    assert again.status_code == 200
    aldric.refresh_from_db()
    assert aldric.hp == 23 and LogEntry.objects.filter(kind="save", data__who="Aldric").count() == 1
    assert (
        "Save vs spells"
        not in player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    )


def test_the_referee_may_roll_a_waiting_save_for_the_player(referee, player, encounter):
    from combat.models import PendingSave

    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30)
    goblin = monster(encounter, "Goblin", hp_max=30, hp=30)
    _fireball_left_to_players(referee, encounter, aldric, goblin)
    pending = PendingSave.objects.get()
    assert referee.post(_save_url(encounter, pending), {"natural": "3"}, **HTMX).status_code == 200
    aldric.refresh_from_db()
    assert aldric.hp == 15


def test_a_die_typed_for_a_waiting_save_follows_the_tables_setting(referee, player, encounter):
    from combat.models import PendingSave

    Encounter.objects.filter(pk=encounter.pk).update(players_enter_dice=False)
    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30)
    goblin = monster(encounter, "Goblin", hp_max=30, hp=30)
    _fireball_left_to_players(referee, encounter, aldric, goblin)
    pending = PendingSave.objects.get()
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert 'name="natural"' not in page
    refused = player.post(_save_url(encounter, pending), {"natural": "20"}, **HTMX)
    assert "leave the dice empty" in refused.content.decode()
    for bad in ("0", "21", "x", "1" * 50):
        answer = referee.post(_save_url(encounter, pending), {"natural": bad}, **HTMX)
        assert answer.status_code == 200 and "A d20 shows 1 to 20." in answer.content.decode()
    assert not PendingSave.objects.get().resolved
    assert player.post(_save_url(encounter, pending), **HTMX).status_code == 200  # the server
    assert PendingSave.objects.get().resolved


def test_a_die_typed_by_the_referee_rolls_that_save_at_once(referee, player, encounter):
    from combat.models import PendingSave

    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30)
    goblin = monster(encounter, "Goblin", hp_max=30, hp=30)
    _fireball_left_to_players(referee, encounter, aldric, goblin, **{f"natural_{aldric.pk}": 20})
    assert not PendingSave.objects.exists()
    aldric.refresh_from_db()
    assert aldric.hp == 23


def test_a_character_killed_before_its_save_has_nothing_left_to_roll(referee, player, encounter):
    from combat.models import PendingSave

    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30)
    goblin = monster(encounter, "Goblin", hp_max=30, hp=30)
    _fireball_left_to_players(referee, encounter, aldric, goblin)
    Combatant.objects.filter(pk=aldric.pk).update(hp=0)
    answer = player.post(_save_url(encounter, PendingSave.objects.get()), **HTMX)
    assert "Aldric is dead and cannot act." in answer.content.decode()
    assert PendingSave.objects.get().resolved
    again = player.post(_save_url(encounter, PendingSave.objects.get()), **HTMX)
    assert "no longer needed" in again.content.decode()


def test_an_unknown_waiting_save_is_not_found(player, encounter):
    assert (
        player.post(reverse("pending_save", args=[encounter.slug, 999]), **HTMX).status_code == 404
    )


@pytest.mark.parametrize("system", ["dolmenwood", "becmi"])
@pytest.mark.parametrize("route", ["group_attack", "area_effect"])
def test_group_rolls_follow_oses_tables_and_are_not_offered_in_other_systems(
    referee, encounter, system, route
):
    Encounter.objects.filter(pk=encounter.pk).update(system=system)
    url = reverse(route, args=[encounter.slug])
    assert referee.get(url).status_code == 404
    assert referee.post(url, {"once": "x"}).status_code == 404
    odds = reverse("group_odds", args=[encounter.slug, "group_attack"])
    assert referee.get(odds).status_code == 404
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert url not in page


def test_a_hidden_character_waiting_for_its_save_is_named_to_the_referee_only(
    referee, player, encounter
):
    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30, hidden=True)
    goblin = monster(encounter, "Goblin", hp_max=30, hp=30)
    _fireball_left_to_players(referee, encounter, aldric, goblin)
    head = LogEntry.objects.filter(kind="roll").get()
    assert head.data["waiting"] == ["Aldric"]
    log = reverse("log", args=[encounter.slug])
    assert "Their players roll the saves of: Aldric" in referee.get(log).content.decode()
    assert "roll the saves of: Aldric" not in player.get(log).content.decode()
