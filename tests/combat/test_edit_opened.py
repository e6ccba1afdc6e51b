"""Edits write only what the person changed: an edit form sent without the values it was
opened with cannot tell a stale value from a change, so it is refused and writes nothing; an
empty field is never filled from the row as read when the request began."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse
from django.utils import translation

from combat import editing
from combat.forms import NOT_OPENED
from combat.models import Combatant, Encounter, LogEntry

from .conftest import form_values, monster

HX = {"HTTP_HX_REQUEST": "true"}


def _edit_url(encounter: Encounter, who: Combatant) -> str:
    return reverse("combatant_edit", args=[encounter.slug, who.pk])


def _opened_form(client: Client, url: str, page: str | None = None) -> dict[str, str]:
    """What the browser would send from the form at ``url``, as drawn now (on ``page``, or
    in the panel the form's own URL answers)."""
    html = client.get(page or url, **HX).content.decode()
    return form_values(html, url)


def _damage(client: Client, encounter: Encounter, who: Combatant, amount: int) -> None:
    response = client.post(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": who.pk, "action": "damage", "amount": amount},
        **HX,
    )
    assert response.status_code == 200


def _state(who: Combatant) -> tuple:
    who.refresh_from_db()
    return who.hp, who.ac, who.name, LogEntry.objects.filter(encounter=who.encounter).count()


@pytest.fixture
def troll(encounter: Encounter) -> Combatant:
    return monster(encounter, "Troll", hp_max=5000, hp=4988, ac=4)


# --- a form without its opening values ------------------------------------------------------


@pytest.mark.django_db
def test_an_edit_sent_without_its_opening_values_does_not_undo_damage_dealt_since(
    referee, encounter, troll
):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    _damage(referee, encounter, troll, 5)
    troll.refresh_from_db()
    assert troll.hp == 4983
    form.pop("opened")
    referee.post(url, form | {"ac": "2"}, **HX)
    troll.refresh_from_db()
    assert troll.hp == 4983


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_an_edit_without_its_opening_values_is_refused_with_a_message_and_writes_nothing(
    referee, encounter, troll, htmx
):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    _damage(referee, encounter, troll, 5)
    before = _state(troll)
    form.pop("opened")
    response = referee.post(url, form | {"ac": "2", "name": "Cave troll"}, **(HX if htmx else {}))
    assert response.status_code == 200
    html = response.content.decode()
    assert str(NOT_OPENED) in html.replace("&#x27;", "'")
    assert _state(troll) == before  # HP, AC, name and the log as they were
    # What the person typed is still there, to keep while opening the form again.
    kept = form_values(html, url)
    assert kept["ac"] == "2" and kept["name"] == "Cave troll"
    assert "opened" not in kept or kept["opened"] == ""  # sending it again is refused again
    again = referee.post(url, kept, **(HX if htmx else {}))
    assert again.status_code == 200
    assert _state(troll) == before


@pytest.mark.django_db
@pytest.mark.parametrize("opened", ["", "not json", "[4988]", "{}", '"x"', "null", "{"])
def test_opening_values_that_are_not_a_form_s_are_refused_alike(referee, encounter, troll, opened):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    before = _state(troll)
    response = referee.post(url, form | {"ac": "2", "opened": opened}, **HX)
    assert response.status_code == 200
    assert str(NOT_OPENED) in response.content.decode().replace("&#x27;", "'")
    assert _state(troll) == before


@pytest.mark.django_db
def test_the_refusal_is_in_the_person_s_language(referee, encounter, troll):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    form.pop("opened")
    referee.cookies["django_language"] = "cs"
    html = referee.post(url, form | {"ac": "2"}, **HX).content.decode()
    with translation.override("cs"):
        assert str(NOT_OPENED) in html.replace("&#x27;", "'")
    assert "Formulář byl odeslán bez hodnot" in html and "nothing was saved" not in html


@pytest.mark.django_db
def test_the_settings_form_without_its_opening_values_is_refused_and_writes_nothing(
    referee, encounter
):
    url = reverse("encounter_settings", args=[encounter.slug])
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    form = form_values(page, url)
    form.pop("settings-opened")
    response = referee.post(url, form | {"settings-name": "Renamed", "settings-show_foe_hp": "on"})
    assert response.status_code == 200
    html = response.content.decode().replace("&#x27;", "'")
    assert str(NOT_OPENED) in html
    assert 'value="Renamed"' in html  # what was typed stays in the form
    encounter.refresh_from_db()
    assert encounter.name == "The goblin cave" and not encounter.show_foe_hp


@pytest.mark.django_db
def test_the_notes_form_without_its_opening_values_is_refused_and_writes_nothing(
    player, fighter, encounter
):
    url = reverse("combatant_notes", args=[encounter.slug, fighter.pk])
    form = _opened_form(player, url)
    Combatant.objects.filter(pk=fighter.pk).update(notes="3 torches")  # the referee's, meanwhile
    form.pop("opened")
    response = player.post(url, form | {"notes": "2 torches"}, **HX)
    assert response.status_code == 200
    html = response.content.decode().replace("&#x27;", "'")
    assert str(NOT_OPENED) in html and "2 torches" in html
    fighter.refresh_from_db()
    assert fighter.notes == "3 torches"


# --- an empty field -------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_empty_hit_points_field_never_puts_back_what_the_request_read(
    referee, encounter, troll, monkeypatch
):
    """Opened at 4988, 5 damage (4983) before the edit is sent; while the edit runs, after
    it read the row and before it locks it, 5 healing brings the troll back to 4988. The
    empty field is not 4983 "as read", written as a correction: it is left alone."""
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    _damage(referee, encounter, troll, 5)
    original = editing.save_edit

    def healed_meanwhile(viewer, form, row, once=""):
        Combatant.objects.filter(pk=troll.pk).update(hp=4988)
        return original(viewer, form, row, once)

    monkeypatch.setattr(editing, "save_edit", healed_meanwhile)
    response = referee.post(url, form | {"hp": "", "ac": "2"}, **HX)
    assert response.status_code == 200
    troll.refresh_from_db()
    assert (troll.hp, troll.ac) == (4988, 2)
    assert not LogEntry.objects.filter(encounter=encounter, kind="correct").exists()


@pytest.mark.django_db
def test_an_empty_hit_points_field_keeps_damage_dealt_since_and_says_so(referee, encounter, troll):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    _damage(referee, encounter, troll, 5)
    response = referee.post(url, form | {"hp": "", "ac": "2"}, **HX)
    troll.refresh_from_db()
    assert (troll.hp, troll.ac) == (4983, 2)
    assert not LogEntry.objects.filter(encounter=encounter, kind="correct").exists()
    assert "kept: Current hit points" in response.content.decode()


@pytest.mark.django_db
def test_an_empty_hit_points_field_on_a_new_combatant_is_still_its_maximum(referee, encounter):
    url = reverse("combatant_new", args=[encounter.slug])
    form = _opened_form(referee, url)
    values = {"name": "Ogre", "side": "foes", "kind": "monster", "ac": "5", "hp_max": "19"}
    referee.post(url, form | values | {"hit_dice": "4+1", "hp": ""}, **HX)
    assert Combatant.objects.get(encounter=encounter, name="Ogre").hp == 19


@pytest.mark.django_db
def test_a_settings_form_sent_without_the_system_leaves_the_system_as_it_is_now(referee, encounter):
    url = reverse("encounter_settings", args=[encounter.slug])
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    form = form_values(page, url)
    Encounter.objects.filter(pk=encounter.pk).update(system="becmi")  # changed meanwhile
    response = referee.post(url, form | {"settings-system": "", "settings-name": "Renamed"})
    assert response.status_code == 302
    encounter.refresh_from_db()
    assert (encounter.system, encounter.name) == ("becmi", "Renamed")


# --- a form with its opening values, as browsers send it ------------------------------------


@pytest.mark.django_db
def test_an_edit_with_its_opening_values_writes_a_real_change_and_keeps_another_s(
    referee, encounter, troll
):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    _damage(referee, encounter, troll, 5)  # someone else's change, meanwhile
    response = referee.post(url, form | {"ac": "2", "name": "Cave troll"}, **HX)
    assert response.status_code == 200
    troll.refresh_from_db()
    assert (troll.hp, troll.ac, troll.name) == (4983, 2, "Cave troll")
    assert "kept: Current hit points" in response.content.decode()
    assert not LogEntry.objects.filter(encounter=encounter, kind="correct").exists()


@pytest.mark.django_db
def test_hit_points_typed_in_the_edit_are_a_logged_correction(referee, encounter, troll):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    referee.post(url, form | {"hp": "4000"}, **HX)
    troll.refresh_from_db()
    assert troll.hp == 4000
    entry = LogEntry.objects.get(encounter=encounter, kind="correct")
    assert (entry.data["before"], entry.data["after"]) == (4988, 4000)


@pytest.mark.django_db
def test_a_field_both_changed_is_a_conflict_showing_the_value_now(referee, encounter, troll):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    Combatant.objects.filter(pk=troll.pk).update(ac=7)  # someone else's AC, meanwhile
    response = referee.post(url, form | {"ac": "2"}, **HX)
    troll.refresh_from_db()
    assert troll.ac == 7
    html = response.content.decode()
    assert "Someone changed this while you were editing" in html
    assert form_values(html, url)["ac"] == "7"


@pytest.mark.django_db
def test_a_field_the_form_did_not_have_when_opened_is_not_written(referee, encounter, troll):
    url = _edit_url(encounter, troll)
    form = _opened_form(referee, url)
    opened = json.loads(form["opened"])
    del opened["ac"]  # as if the form had been drawn without it
    referee.post(url, form | {"opened": json.dumps(opened), "ac": "2", "name": "Cave troll"}, **HX)
    troll.refresh_from_db()
    assert (troll.ac, troll.name) == (4, "Cave troll")


# --- across processes, on either database ---------------------------------------------------

ROUNDS = 15


def _stale_editor(slug: str, referee_key: str, target: int, results) -> None:
    """An editor whose form lacks its opening values, its hit points left empty."""
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    url = reverse("combatant_edit", args=[slug, target])
    form = form_values(client.get(url, **HX).content.decode(), url)
    form.pop("opened")
    codes = []
    for number in range(ROUNDS):
        data = form | {"hp": "", "ac": str(number % 5), "once": f"e-{number}-{os.getpid()}"}
        codes.append(client.post(url, data, **HX).status_code)
    connections.close_all()
    results.put(codes)


def _striker(slug: str, referee_key: str, target: int, results) -> None:
    connections.close_all()
    client = Client()
    client.get(reverse("referee_link", args=[referee_key]))
    codes = [
        client.post(
            reverse("hit_points", args=[slug]),
            {"actor": target, "action": "damage", "amount": 1, "once": f"d-{n}-{os.getpid()}"},
        ).status_code
        for n in range(ROUNDS)
    ]
    connections.close_all()
    results.put(codes)


@pytest.mark.django_db(transaction=True)
def test_editors_without_opening_values_racing_damage_revert_none_of_it():
    encounter = Encounter.objects.create(name="Siege")
    troll = monster(encounter, "Troll", hp_max=5000, hp=5000, ac=4)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    connections.close_all()
    jobs = [_striker, _striker, _stale_editor, _stale_editor]
    workers = [
        context.Process(target=job, args=(encounter.slug, encounter.referee_key, troll.pk, results))
        for job in jobs
    ]
    for worker in workers:
        worker.start()
    codes = [code for _ in workers for code in results.get(timeout=120)]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    assert 500 not in codes
    troll.refresh_from_db()
    assert (troll.hp, troll.ac) == (5000 - 2 * ROUNDS, 4)
    assert not LogEntry.objects.filter(encounter=encounter, kind="correct").exists()
