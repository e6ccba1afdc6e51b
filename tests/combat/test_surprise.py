"""Surprise at the table: a side surprised at the fight's start does not act in its first
round, in every system and whatever the action (``table.unsurprised``); the referee may rule
otherwise, and the log says so; the odds before the roll agree; the log never calls a
surprise a tie."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from combat.models import Combatant, Encounter, Kind, LogEntry

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED = "is surprised and cannot act in the first round."
# Each system's attack panel, and the odds route its form asks as it changes.
ATTACKS = [("ose", "attack", "odds"), ("becmi", "becmi_attack", "system_odds")]
ATTACKS += [("dolmenwood", "dw_attack", "system_odds")]


def _open(client: Client, name: str, encounter: Encounter, query: str = "") -> dict[str, str]:
    url = reverse(name, args=[encounter.slug])
    response = client.get(url + query, **HTMX)
    assert response.status_code == 200
    return form_values(response.content.decode(), url)


def _send(client: Client, name: str, encounter: Encounter, values: dict) -> str:
    response = client.post(reverse(name, args=[encounter.slug]), values, **HTMX)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _start(referee: Client, encounter: Encounter, party_die: int, foes_die: int) -> None:
    values = _open(referee, "fight", encounter)
    values |= {"surprise": "on", "party_die": str(party_die), "foes_die": str(foes_die)}
    _send(referee, "fight", encounter, values)
    encounter.refresh_from_db()


def _end_round(referee: Client, encounter: Encounter) -> None:
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    at = re.search(r'name="at" value="([^"]+)"', page).group(1)
    url = reverse("advance", args=[encounter.slug, "round"])
    assert referee.post(url, {"at": at}, **HTMX).status_code == 200


@pytest.fixture
def table(encounter, referee, player):
    hero = character(encounter, "Aldric", seat=player.seat)
    goblin = monster(encounter, "Goblin", hp_max=7, hp=7)
    return encounter, referee, player, hero, goblin


def _in(encounter: Encounter, system: str) -> None:
    Encounter.objects.filter(pk=encounter.pk).update(system=system)
    encounter.refresh_from_db()


def _attack(
    client: Client, encounter: Encounter, panel: str, actor: Combatant, target: Combatant, **extra
) -> str:
    values = _open(client, panel, encounter, f"?actor={actor.pk}&target={target.pk}")
    values |= {"actor": str(actor.pk), "target": str(target.pk), "natural": "20"}
    values |= {"damage": "1d4", "damage_dice": "3"} | extra
    return _send(client, panel, encounter, values)


@pytest.mark.parametrize(("system", "panel", "odds"), ATTACKS)
def test_a_surprised_side_cannot_attack_in_the_first_round_in_any_system(
    table, system, panel, odds
):
    encounter, referee, player, hero, goblin = table
    _in(encounter, system)
    _start(referee, encounter, party_die=1, foes_die=6)  # the party is caught napping
    before = LogEntry.objects.count()

    answer = _attack(player, encounter, panel, hero, goblin)
    assert f"Aldric {REFUSED}" in answer
    assert LogEntry.objects.count() == before
    goblin.refresh_from_db()
    assert goblin.hp == 7
    # The foes were not surprised: they strike at once.
    assert REFUSED not in _attack(referee, encounter, panel, goblin, hero)
    assert LogEntry.objects.count() == before + 1

    # The next round the party acts again.
    _end_round(referee, encounter)
    assert REFUSED not in _attack(player, encounter, panel, hero, goblin)
    goblin.refresh_from_db()
    assert goblin.hp < 7


@pytest.mark.parametrize(("system", "panel", "odds"), ATTACKS)
def test_the_odds_before_the_roll_say_the_attack_will_be_refused(table, system, panel, odds):
    encounter, referee, player, hero, goblin = table
    _in(encounter, system)
    _start(referee, encounter, party_die=1, foes_die=6)
    opened = player.get(
        reverse(panel, args=[encounter.slug]) + f"?actor={hero.pk}&target={goblin.pk}", **HTMX
    ).content.decode()
    shown = re.search(r'<output class="odds".*?</output>', opened, re.S).group(0)
    assert f"Aldric {REFUSED}" in shown and "%" not in shown
    # As the form changes, the odds asked again say the same; for the foes, the odds.
    url = reverse(odds, args=[encounter.slug, panel])
    values = {"actor": hero.pk, "target": goblin.pk, "mode": "melee", "damage": "1d6"}
    assert f"Aldric {REFUSED}" in player.get(url, values).content.decode()
    values = {"actor": goblin.pk, "target": hero.pk, "mode": "melee", "damage": "1d6"}
    foes = referee.get(url, values).content.decode()
    assert REFUSED not in foes and "%" in foes
    # The referee's ruling lets the party act: the odds are shown again.
    values = {"actor": hero.pk, "target": goblin.pk, "mode": "melee", "damage": "1d6"}
    ruled = referee.get(url, values | {"despite_surprise": "on"}).content.decode()
    assert REFUSED not in ruled and "%" in ruled
    assert REFUSED in referee.get(url, values).content.decode()


@pytest.mark.parametrize(("system", "panel", "odds"), ATTACKS)
def test_the_referee_may_let_a_surprised_combatant_act_and_the_log_says_so(
    table, system, panel, odds
):
    encounter, referee, player, hero, goblin = table
    _in(encounter, system)
    _start(referee, encounter, party_die=6, foes_die=2)  # the foes are surprised

    form = _open(referee, panel, encounter, f"?actor={goblin.pk}&target={hero.pk}")
    assert "despite_surprise" not in form  # offered, but not ticked unless the referee does
    assert f"Goblin {REFUSED}" in _attack(referee, encounter, panel, goblin, hero)

    _attack(referee, encounter, panel, goblin, hero, despite_surprise="on")
    entry = LogEntry.objects.get(kind="attack")
    assert entry.data["despite_surprise"] is True
    # The ruling was for that attack: the next form asks again.
    again = referee.get(reverse(panel, args=[encounter.slug]), **HTMX).content.decode()
    assert 'name="despite_surprise"' in again
    assert "despite_surprise" not in form_values(again, reverse(panel, args=[encounter.slug]))
    for client in (referee, player):
        log = client.get(reverse("log", args=[encounter.slug])).content.decode()
        assert "surprised, but the referee let them act" in log


def test_a_player_cannot_rule_their_own_surprise_away(table):
    encounter, referee, player, hero, goblin = table
    _start(referee, encounter, party_die=1, foes_die=6)
    form = player.get(reverse("attack", args=[encounter.slug]), **HTMX).content.decode()
    assert "despite_surprise" not in form
    answer = _attack(player, encounter, "attack", hero, goblin, despite_surprise="on")
    assert f"Aldric {REFUSED}" in answer
    assert not LogEntry.objects.filter(kind="attack").exists()


def test_no_override_box_outside_a_surprise(table):
    encounter, referee, _player, _hero, _goblin = table
    _start(referee, encounter, party_die=6, foes_die=6)  # nobody surprised
    form = referee.get(reverse("attack", args=[encounter.slug]), **HTMX).content.decode()
    assert "despite_surprise" not in form


def test_every_action_in_the_round_is_refused_but_saves_are_not(table):
    encounter, referee, player, hero, _goblin = table
    _start(referee, encounter, party_die=1, foes_die=6)
    check = _open(player, "check", encounter, f"?actor={hero.pk}")
    assert f"Aldric {REFUSED}" in _send(player, "check", encounter, check | {"ability": "str"})
    save = _open(player, "save", encounter, f"?actor={hero.pk}")
    assert REFUSED not in _send(player, "save", encounter, save | {"category": "death"})
    assert list(LogEntry.objects.filter(kind__in=["check", "save"]).values_list("kind")) == [
        ("save",)
    ]


def test_a_group_attack_with_a_surprised_attacker_is_refused_unless_ruled(table):
    encounter, referee, _player, hero, goblin = table
    other = monster(encounter, "Goblin 2")
    _start(referee, encounter, party_die=6, foes_die=1)  # the foes are surprised
    values = _open(referee, "group_attack", encounter)
    values |= {"attackers": [str(goblin.pk), str(other.pk)], "target": str(hero.pk)}
    odds = referee.get(
        reverse("group_odds", args=[encounter.slug, "group_attack"]), values
    ).content.decode()
    assert odds.count(REFUSED) == 2
    assert f"Goblin {REFUSED}" in _send(referee, "group_attack", encounter, values)
    assert not LogEntry.objects.filter(kind="attack").exists()
    values["once"] += "x"
    _send(referee, "group_attack", encounter, values | {"despite_surprise": "on"})
    entries = LogEntry.objects.filter(kind="attack")
    assert entries.count() == 2 and all(e.data["despite_surprise"] for e in entries)


def test_dolmenwood_checks_are_actions_in_the_round(table):
    encounter, referee, player, hero, _goblin = table
    _in(encounter, "dolmenwood")
    _start(referee, encounter, party_die=2, foes_die=3)
    for panel, extra in (("dw_check", {"ability": "str"}), ("dw_skill", {"skill": "listen"})):
        values = _open(player, panel, encounter, f"?actor={hero.pk}") | extra
        assert f"Aldric {REFUSED}" in _send(player, panel, encounter, values)
    assert not LogEntry.objects.filter(kind__in=["check", "skill"]).exists()


def test_becmi_strikes_grabs_and_boarding_blows_are_refused_to_the_surprised(table):
    encounter, referee, player, hero, goblin = table
    _in(encounter, "becmi")
    _start(referee, encounter, party_die=1, foes_die=4)
    for panel in ("bx_strike", "bx_wrestle", "bx_board"):
        values = _open(player, panel, encounter, f"?actor={hero.pk}&target={goblin.pk}")
        answer = _send(player, panel, encounter, values | {"target": str(goblin.pk)})
        assert f"Aldric {REFUSED}" in answer, panel
    assert not LogEntry.objects.exclude(kind="combat").exists()
    values = _open(referee, "bx_strike", encounter, f"?actor={hero.pk}&target={goblin.pk}")
    _send(referee, "bx_strike", encounter, values | {"despite_surprise": "on"})
    assert LogEntry.objects.get(kind="strike").data["despite_surprise"] is True


def test_initiative_in_a_surprise_round_is_never_called_a_tie(table):
    encounter, referee, _player, _hero, _goblin = table
    _start(referee, encounter, party_die=5, foes_die=1)  # the foes are surprised
    values = _open(referee, "initiative", encounter)
    opened = referee.get(reverse("initiative", args=[encounter.slug]), **HTMX).content.decode()
    assert "The foes are surprised: only the party acts this round." in opened
    assert "Both at once" not in opened  # no odds of a roll that decides nothing
    _send(referee, "initiative", encounter, values | {"party_die": "3", "foes_die": "3"})
    log = referee.get(reverse("log", args=[encounter.slug])).content.decode()
    assert "The foes are surprised: only the party acts this round." in log
    assert "A tie" not in log
    assert LogEntry.objects.get(kind="initiative").data["surprised"] == "foes"


@pytest.mark.parametrize(
    ("dice", "said"),
    [
        ((1, 5), "The party is surprised: only the foes act this round."),
        ((2, 1), "Both sides are surprised: nothing happens this round."),
    ],
)
def test_initiative_says_who_lost_the_round_to_surprise(table, dice, said):
    encounter, referee, *_ = table
    _start(referee, encounter, party_die=dice[0], foes_die=dice[1])
    values = _open(referee, "initiative", encounter)
    _send(referee, "initiative", encounter, values | {"party_die": "4", "foes_die": "2"})
    log = referee.get(reverse("log", args=[encounter.slug])).content.decode()
    assert said in log and "acts first" not in log


def test_initiative_after_the_first_round_says_who_acts_first_again(table):
    encounter, referee, *_ = table
    _start(referee, encounter, party_die=5, foes_die=1)
    _end_round(referee, encounter)
    values = _open(referee, "initiative", encounter)
    _send(referee, "initiative", encounter, values | {"party_die": "3", "foes_die": "3"})
    log = referee.get(reverse("log", args=[encounter.slug])).content.decode()
    assert "A tie: both sides act at once." in log
    assert not LogEntry.objects.filter(kind="initiative").latest("seq").data.get("surprised")


def test_a_surprised_ship_neither_rams_nor_grapples_in_the_first_round(table):
    encounter, referee, *_ = table
    _in(encounter, "becmi")
    ours, theirs = (
        monster(encounter, name, kind=Kind.SHIP, hp_max=60, hp=60, ac=8, side=side)
        for name, side in (("Sea Wolf", "party"), ("Black Gull", "foes"))
    )
    _start(referee, encounter, party_die=2, foes_die=5)
    for panel in ("bx_ram", "bx_grapple"):
        values = _open(referee, panel, encounter, f"?actor={ours.pk}&target={theirs.pk}")
        assert f"Sea Wolf {REFUSED}" in _send(referee, panel, encounter, values)
    assert not LogEntry.objects.filter(kind="naval").exists()
    values = _open(referee, "bx_ram", encounter, f"?actor={theirs.pk}&target={ours.pk}")
    assert REFUSED not in _send(referee, "bx_ram", encounter, values)
    assert LogEntry.objects.filter(kind="naval").count() == 1
