"""An action reads the encounter's combatants once for the forms it checks and once for the
form it shows next; its queries do not grow with the number of combatants.

The combatant choices of the action forms come from a list the viewer reads once (see
``Viewer.combatants``), not from a query each time a form is checked, drawn or probed for
odds. These tests count the queries of the real views, and check that the list gives the
same choices, messages and refusals as the queries it replaced.
"""

from __future__ import annotations

import re

import pytest
from django import forms
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from combat.access import Viewer
from combat.forms import AttackForm, HitPointsForm, RestForm
from combat.models import Combatant, Encounter, LogEntry

from .conftest import character, form_values, monster

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
# Who acts and on whom comes from the form as opened; the rest is fixed so that every run
# takes the same path (a hit, damage, a save rolled at the table).
FILLED = {
    "attack": {"natural": "20", "damage": "1d6", "damage_dice": "1"},
    "save": {"category": "death", "natural": "10", "damage": "4"},
    "check": {"ability": "str", "natural": "10"},
    "hit_points": {"action": "damage", "amount": "1"},
    "rest": {"days": "1", "interrupted": "0", "day_dice": "2"},
}
ODDS = {"attack": "attack", "save": "save", "check": "check"}


def _url(name: str, encounter: Encounter) -> str:
    return reverse(name, args=[encounter.slug])


def _combatant_reads(queries: list[dict]) -> list[str]:
    return [
        q["sql"]
        for q in queries
        if q["sql"].startswith("SELECT") and 'FROM "combat_combatant"' in q["sql"]
    ]


def _where(sql: str) -> str:
    return sql.partition(" WHERE ")[2].partition(" ORDER BY ")[0]


def _list_reads(queries: list[dict]) -> list[str]:
    """Reads of the encounter's combatants as a whole: not one picked by its id (the
    action's re-reading under lock)."""
    return [
        sql for sql in _combatant_reads(queries) if '"combat_combatant"."id"' not in _where(sql)
    ]


def _table(encounter: Encounter, monsters: int) -> None:
    """A party that cannot fall in a few rolls, and ``monsters`` foes that cannot either."""
    character(encounter, "Aldric", hp_max=500, hp=500)
    character(encounter, "Brina", hp_max=500, hp=500, hidden=True)
    for number in range(monsters):
        monster(encounter, f"Goblin {number}", hp_max=500, hp=500)


def _grow(encounter: Encounter, to: int) -> None:
    have = Combatant.objects.filter(encounter=encounter, name__startswith="Goblin").count()
    for number in range(have, to):
        monster(encounter, f"Goblin {number}", hp_max=500, hp=500)


def _get(client: Client, url: str) -> tuple[list[dict], str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **HTMX)
    assert response.status_code == 200
    return queries.captured_queries, response.content.decode()


def _post(client: Client, name: str, encounter: Encounter) -> list[dict]:
    """Open the form as the page does, fill it in and send it; the queries of the sending."""
    url = _url(name, encounter)
    data = form_values(client.get(url, **HTMX).content.decode(), url) | FILLED[name]
    seq = Encounter.objects.get(pk=encounter.pk).seq
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, data, **HTMX)
    assert response.status_code == 200
    assert Encounter.objects.get(pk=encounter.pk).seq == seq + 1, "the action was applied"
    return queries.captured_queries


def _odds(client: Client, kind: str, encounter: Encounter) -> list[dict]:
    url = _url(ODDS[kind], encounter)
    data = form_values(client.get(url, **HTMX).content.decode(), url) | FILLED[kind]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("odds", args=[encounter.slug, kind]), data)
    assert response.status_code == 200
    assert "%" in response.content.decode(), "the odds were shown"
    return queries.captured_queries


# --- How many queries ------------------------------------------------------------------------


def test_the_referees_attack_reads_the_combatants_at_most_twice(referee, encounter):
    _table(encounter, monsters=6)
    queries = _post(referee, "attack", encounter)
    # Once to check the form, once for the next form after the attack; the action itself
    # re-reads its two combatants under lock.
    assert len(_list_reads(queries)) <= 2, _list_reads(queries)
    assert len(_combatant_reads(queries)) <= 3, _combatant_reads(queries)


@pytest.mark.parametrize("system", ["ose", "becmi", "dolmenwood"])
def test_an_attack_reads_the_conditions_of_both_sides_in_one_query(referee, encounter, system):
    """Whether the attacker can act and whether its target is helpless: one question."""
    Encounter.objects.filter(pk=encounter.pk).update(system=system)
    _table(encounter, monsters=2)
    url = _url(
        {"ose": "attack", "becmi": "becmi_attack", "dolmenwood": "dw_attack"}[system], encounter
    )
    data = form_values(referee.get(url, **HTMX).content.decode(), url) | FILLED["attack"]
    with CaptureQueriesContext(connection) as asked:
        assert referee.post(url, data, **HTMX).status_code == 200
    queries = [q["sql"] for q in asked.captured_queries]
    # The attack's own reads, up to its entry; the form drawn again after it reads its next
    # target's conditions for its odds (a helpless target is hit without a roll).
    recorded = next(i for i, sql in enumerate(queries) if 'INTO "combat_logentry"' in sql)
    conditions = [sql for sql in queries[:recorded] if 'FROM "combat_condition"' in sql]
    conditions = [sql for sql in conditions if sql.startswith("SELECT")]
    # (the live renderer, when a hub renders here, reads every running one besides)
    assert len([sql for sql in conditions if " OR " in sql]) == 1, conditions
    assert len(conditions) == 1, conditions
    if connection.vendor == "postgresql":  # with the lock on both, in one round trip
        assert "FOR UPDATE" in conditions[0], conditions
    entry = LogEntry.objects.filter(encounter=encounter).latest("seq")
    assert entry.data.get("system", "ose") == system, entry.data


def test_the_referees_attack_makes_as_many_queries_with_30_monsters_as_with_6(
    referee, encounter, django_assert_max_num_queries
):
    _table(encounter, monsters=6)
    few = len(_post(referee, "attack", encounter))
    _grow(encounter, 30)
    url = _url("attack", encounter)
    data = form_values(referee.get(url, **HTMX).content.decode(), url) | FILLED["attack"]
    with django_assert_max_num_queries(few):
        referee.post(url, data, **HTMX)
    assert LogEntry.objects.filter(encounter=encounter).count() == 2


@pytest.mark.parametrize("name", ["attack", "save", "check", "hit_points", "rest"])
def test_opening_an_action_form_reads_the_combatants_once_however_many(referee, encounter, name):
    _table(encounter, monsters=6)
    few, html = _get(referee, _url(name, encounter))
    assert len(_list_reads(few)) == 1, _list_reads(few)
    assert 'value="' in html
    _grow(encounter, 30)
    many, _html = _get(referee, _url(name, encounter))
    assert len(many) == len(few)


@pytest.mark.parametrize("name", ["attack", "save", "check", "hit_points", "rest"])
def test_an_action_reads_the_combatants_twice_however_many(referee, encounter, name):
    _table(encounter, monsters=6)
    few = _post(referee, name, encounter)
    assert len(_list_reads(few)) <= 2, _list_reads(few)
    _grow(encounter, 30)
    many = _post(referee, name, encounter)
    assert len(many) == len(few)


@pytest.mark.parametrize("kind", sorted(ODDS))
def test_the_odds_preview_reads_the_combatants_once_however_many(referee, encounter, kind):
    _table(encounter, monsters=6)
    few = _odds(referee, kind, encounter)
    assert len(_list_reads(few)) == 1, _list_reads(few)
    _grow(encounter, 30)
    assert len(_odds(referee, kind, encounter)) == len(few)


def test_a_players_action_reads_the_combatants_at_most_twice(player, fighter, encounter):
    for number in range(6):
        monster(encounter, f"Goblin {number}", hp_max=500, hp=500)
    queries = _post(player, "attack", encounter)
    assert len(_list_reads(queries)) <= 2, _list_reads(queries)


# --- The same choices as before --------------------------------------------------------------


def _viewers(encounter: Encounter, *seats) -> list[Viewer]:
    return [
        Viewer(encounter, is_referee=True, seat=None),
        *(Viewer(encounter, is_referee=False, seat=seat) for seat in seats),
    ]


def test_the_lists_hold_what_the_queries_select(player, other_player, encounter):
    mine = character(encounter, "Aldric", seat=player.seat)
    character(encounter, "Aldric's hidden familiar", seat=player.seat, hidden=True)
    character(encounter, "Brina", seat=other_player.seat)
    character(encounter, "Brina's hidden familiar", seat=other_player.seat, hidden=True)
    monster(encounter, "Goblin", hp=0)
    monster(encounter, "Lurker", hidden=True)
    character(encounter, "The referee's hireling")
    for viewer in _viewers(encounter, player.seat, other_player.seat):
        assert viewer.visible_list() == list(viewer.visible_combatants()), viewer.role
        assert viewer.controlled_list() == list(viewer.controlled_combatants()), viewer.role
    assert Viewer(encounter, False, player.seat).controlled_list()[0] == mine


def test_a_viewer_reads_the_combatants_once_until_its_encounter_changes(referee, encounter):
    goblin = monster(encounter, "Goblin", hp_max=9, hp=9)
    viewer = Viewer(Encounter.objects.get(pk=encounter.pk), is_referee=True, seat=None)
    with CaptureQueriesContext(connection) as queries:
        viewer.visible_list()
        viewer.controlled_list()
        AttackForm(viewer=viewer).is_valid()
    assert len(_list_reads(queries.captured_queries)) == 1
    viewer.encounter.bump()  # a change made through this viewer, as an action makes it
    with CaptureQueriesContext(connection) as queries:
        viewer.visible_list()
    assert len(_list_reads(queries.captured_queries)) == 1
    assert viewer.combatants == [goblin]


def _model_choice_select(name: str, queryset, value) -> str:
    """How the select was drawn when it was a ModelChoiceField over the queryset."""

    class Legacy(forms.Form):
        pass

    form = Legacy(initial={name: value})
    form.fields[name] = forms.ModelChoiceField(queryset=queryset, empty_label=None)
    return str(form[name])


def _select(html: str, name: str) -> str:
    return re.search(rf'<select name="{name}".*?</select>', html, re.S).group(0)


def test_the_choices_are_drawn_as_the_model_choice_field_drew_them(player, fighter, encounter):
    corpse = monster(encounter, "Dead goblin", hp=0)
    monster(encounter, "Lurker", hidden=True)
    goblin = monster(encounter, "Goblin <b>", hp=1)
    viewer = Viewer(encounter, is_referee=False, seat=player.seat)
    form = AttackForm(viewer=viewer, initial={"actor": fighter.pk, "target": goblin.pk})
    target = _select(str(form["target"]), "target")
    living = viewer.visible_combatants().filter(hp__gt=0)
    others = living.exclude(pk=fighter.pk)  # never the attacker itself (issue 31)
    assert target == _select(_model_choice_select("target", others, goblin.pk), "target")
    assert f'value="{corpse.pk}"' not in target and "Lurker" not in target
    assert "Goblin &lt;b&gt;" in target
    actor = _select(str(form["actor"]), "actor")
    # Another attacker chosen draws the targets again (htmx): the select is otherwise as it was.
    assert 'hx-get="/e/' in actor
    actor = re.sub(r' hx-[a-z]+="[^"]*"', "", actor)
    mine = viewer.controlled_combatants().filter(hp__gt=0)
    assert actor == _select(_model_choice_select("actor", mine, fighter.pk), "actor")
    # Hit points by hand offer the dead too (a correction may bring one back).
    fighter.hp = -3
    fighter.save()
    referee = Viewer(encounter, is_referee=True, seat=None)
    hp = _select(str(HitPointsForm(viewer=referee)["actor"]), "actor")
    everyone = referee.controlled_combatants()
    assert hp == _select(_model_choice_select("actor", everyone, None), "actor")
    assert f'value="{fighter.pk}"' in hp and f'value="{corpse.pk}"' in hp


@pytest.mark.parametrize("value", ["999999", "x", "1.5", "-1", "99999999999999999999", "9" * 5000])
def test_an_unknown_combatant_is_the_usual_invalid_choice(referee, encounter, value):
    monster(encounter, "Goblin")
    viewer = Viewer(encounter, is_referee=True, seat=None)
    form = RestForm({"actor": value, "days": "1"}, viewer=viewer)
    assert not form.is_valid()
    assert form.errors["actor"] == [
        "Select a valid choice. That choice is not one of the available choices."
    ]


def test_a_hidden_foe_is_no_choice_for_a_player(player, fighter, lurker, encounter):
    response = player.post(
        _url("attack", encounter),
        {"actor": fighter.pk, "target": lurker.pk, "mode": "melee", "natural": "20"},
        **HTMX,
    )
    assert "That choice is not one of the available choices." in response.content.decode()
    assert not LogEntry.objects.filter(encounter=encounter).exists()


# --- What the forms see before and after an action -------------------------------------------


def test_a_target_killed_after_the_form_was_opened_is_refused_by_name(
    referee, player, fighter, encounter
):
    goblin = monster(encounter, "Goblin", hp_max=3, hp=3)
    url = _url("attack", encounter)
    form = form_values(player.get(url + f"?actor={fighter.pk}", **HTMX).content.decode(), url)
    assert form["target"] == str(goblin.pk)
    referee.post(
        _url("hit_points", encounter),
        {"actor": goblin.pk, "action": "damage", "amount": 3},
        **HTMX,
    )
    html = player.post(url, form | {"natural": "20"}, **HTMX).content.decode()
    assert "Goblin is already dead: choose another target." in html
    assert f'value="{goblin.pk}"' not in _select(html, "target")
    assert LogEntry.objects.filter(encounter=encounter).count() == 1  # the referee's only


def test_an_actor_killed_after_the_form_was_opened_cannot_act(referee, player, fighter, encounter):
    url = _url("save", encounter)
    form = form_values(player.get(url + f"?actor={fighter.pk}", **HTMX).content.decode(), url)
    referee.post(
        _url("hit_points", encounter),
        {"actor": fighter.pk, "action": "damage", "amount": 25},
        **HTMX,
    )
    html = player.post(url, form | {"natural": "10"}, **HTMX).content.decode()
    assert "Aldric is dead and cannot act." in html
    assert LogEntry.objects.filter(encounter=encounter).count() == 1


def test_after_a_kill_the_next_form_no_longer_offers_the_dead(referee, encounter):
    character(encounter, "Aldric", hp_max=500, hp=500)
    first = monster(encounter, "Goblin 1", hp_max=1, hp=1)
    second = monster(encounter, "Goblin 2", hp_max=9, hp=9)
    url = _url("attack", encounter)
    form = form_values(referee.get(url, **HTMX).content.decode(), url)
    assert form["target"] == str(first.pk)
    html = referee.post(url, form | FILLED["attack"], **HTMX).content.decode()
    assert "Goblin 1 is dead." in html
    target = _select(html, "target")
    assert f'value="{first.pk}"' not in target
    assert re.search(rf'<option value="{second.pk}" selected>', target)
    after = form_values(html, url)
    assert after["target"] == str(second.pk)
    assert after["once"] != form["once"]


def test_a_dead_target_sent_to_the_odds_shows_no_odds(referee, encounter):
    hero = character(encounter, "Aldric")
    corpse = monster(encounter, "Goblin", hp=0)
    response = referee.get(
        reverse("odds", args=[encounter.slug, "attack"]),
        {"actor": hero.pk, "target": corpse.pk, "mode": "melee"},
    )
    assert response.status_code == 200
    assert "%" not in response.content.decode()


@pytest.mark.parametrize("actor", ["9" * 5000, "²"])
def test_an_actor_id_no_one_could_have_is_refused_not_a_server_error(
    player, fighter, goblin, encounter, actor
):
    response = player.post(
        _url("attack", encounter),
        {"actor": actor, "target": goblin.pk, "mode": "melee"},
        **HTMX,
    )
    assert response.status_code == 403


def test_a_target_id_no_one_could_have_is_a_message_not_a_server_error(
    player, fighter, goblin, encounter
):
    response = player.post(
        _url("attack", encounter),
        {"actor": fighter.pk, "target": "9" * 5000, "mode": "melee"},
        **HTMX,
    )
    assert response.status_code == 200
    assert "That choice is not one of the available choices." in response.content.decode()
