"""Less setup (issue 31): Add combatant keeps its last choices, the referee gives a character to
a seat in one step, players claim one when the settings allow it (once: of two at once, one
gets it), the join form remembers the player's name, and the live list of players says when
someone is seated (the referee's page folds the join block on it)."""

from __future__ import annotations

import multiprocessing
import re
from html import unescape

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from combat.access import Viewer
from combat.live.state import render_snapshot
from combat.models import Combatant, Encounter, Seat

from .conftest import _seated, character, form_values, monster

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _selected(html: str, name: str) -> str:
    """The option selected in the select ``name`` of ``html``."""
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S)
    assert select, name
    chosen = re.search(r'<option value="([^"]*)"[^>]*selected', select.group(0))
    return chosen.group(1) if chosen else ""


# --- Add combatant keeps its last choices --------------------------------------------------


def _add(referee: Client, encounter: Encounter, **values) -> str:
    url = reverse("combatant_new", args=[encounter.slug])
    form = referee.get(url, headers={"hx-request": "true"}).content.decode()
    data = form_values(form, url) | values
    reply = referee.post(url, data, headers={"hx-request": "true"})
    assert reply.status_code == 200
    return reply.content.decode()


def test_the_next_blank_form_starts_from_the_last_side_and_kind(encounter, referee):
    url = reverse("combatant_new", args=[encounter.slug])
    first = referee.get(url, headers={"hx-request": "true"}).content.decode()
    assert (_selected(first, "side"), _selected(first, "kind")) == ("foes", "monster")
    stats = {"ac": 4, "hp_max": 9, "thac0": 19, "char_class": "", "level": ""}
    saves = {f"save_{s}": 12 for s in ("death", "wands", "paralysis", "breath", "spells")}
    reply = _add(
        referee, encounter, name="Aldric", side="party", kind="character", **stats, **saves
    )
    assert "Saved Aldric." in _text(reply)
    # The blank form the answer brings, and the one opened next, start from the party.
    assert (_selected(reply, "side"), _selected(reply, "kind")) == ("party", "character")
    again = referee.get(url, headers={"hx-request": "true"}).content.decode()
    assert (_selected(again, "side"), _selected(again, "kind")) == ("party", "character")
    # Per encounter: another one's form starts as ever.
    other = Encounter.objects.create(name="Elsewhere")
    referee.get(reverse("referee_link", args=[other.referee_key]))
    elsewhere = referee.get(
        reverse("combatant_new", args=[other.slug]), headers={"hx-request": "true"}
    ).content.decode()
    assert _selected(elsewhere, "side") == "foes"


# --- the referee gives a character to a seat in one step ----------------------------------


def _give(client: Client, encounter: Encounter, seat: Seat, combatant: object):
    return client.post(
        reverse("seat_give", args=[encounter.slug, seat.pk]),
        {"combatant": combatant},
        headers={"hx-request": "true"},
    )


def test_the_list_of_players_gives_a_character_in_one_step(encounter, referee, player):
    aldric = character(encounter, "Aldric")
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    give = reverse("seat_give", args=[encounter.slug, player.seat.pk])
    assert f'action="{give}"' in page and f'<option value="{aldric.pk}">Aldric</option>' in page
    reply = _give(referee, encounter, player.seat, aldric.pk)
    assert "Aldric is now played by Anna." in _text(reply.content.decode())
    aldric.refresh_from_db()
    assert aldric.seat == player.seat
    # The player's page has it at once, as theirs.
    mine = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "your character" in mine


def test_giving_what_is_not_a_party_member_here_changes_nothing(encounter, referee, player):
    goblin = monster(encounter, "Goblin")
    stranger = character(Encounter.objects.create(name="Other"), "Stranger")
    for wrong in (goblin.pk, stranger.pk, "", "x", "99999999999999999999"):
        reply = _give(referee, encounter, player.seat, wrong)
        assert reply.status_code == 200
        assert "party member" in _text(reply.content.decode())
    assert not Combatant.objects.filter(seat=player.seat).exists()


def test_only_the_referee_gives(encounter, player, other_player):
    aldric = character(encounter, "Aldric")
    reply = _give(player, encounter, player.seat, aldric.pk)
    assert reply.status_code == 403
    aldric.refresh_from_db()
    assert aldric.seat is None


# --- a player claims one, when the settings allow it --------------------------------------


def _claim(client: Client, encounter: Encounter, combatant: Combatant):
    reply = client.post(
        reverse("party_claim", args=[encounter.slug]),
        {"combatant": combatant.pk},
        headers={"hx-request": "true"},
    )
    assert reply.status_code == 200
    return _text(reply.content.decode())


def _allow_claims(encounter: Encounter) -> None:
    Encounter.objects.filter(pk=encounter.pk).update(players_claim=True)
    encounter.refresh_from_db()


def test_claiming_is_off_until_the_settings_allow_it(encounter, referee, player):
    aldric = character(encounter, "Aldric")
    page = _text(player.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert "Play Aldric" not in page
    assert "ask them" in _claim(player, encounter, aldric)
    aldric.refresh_from_db()
    assert aldric.seat is None
    # The referee turns it on in the settings.
    html = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    url = reverse("encounter_settings", args=[encounter.slug])
    referee.post(url, form_values(html, url) | {"settings-players_claim": "on"})
    encounter.refresh_from_db()
    assert encounter.players_claim
    page = _text(player.get(reverse("encounter", args=[encounter.slug])).content.decode())
    assert "Or claim one no one plays yet: Play Aldric" in page
    assert "Aldric is yours to play now." in _claim(player, encounter, aldric)
    aldric.refresh_from_db()
    assert aldric.seat == player.seat


def test_the_second_claim_is_told_someone_was_first(encounter, player, other_player):
    _allow_claims(encounter)
    aldric = character(encounter, "Aldric")
    assert "yours to play" in _claim(player, encounter, aldric)
    said = _claim(other_player, encounter, aldric)
    assert "Someone else claimed Aldric first: choose another." in said
    aldric.refresh_from_db()
    assert aldric.seat == player.seat
    # The same tap again (a retry) stands; a second character is the referee's to give.
    assert "yours to play" in _claim(player, encounter, aldric)
    brina = character(encounter, "Brina")
    assert "You play Aldric already" in _claim(player, encounter, brina)


def test_what_cannot_be_claimed_is_refused(encounter, referee, player):
    _allow_claims(encounter)
    spy = character(encounter, "Grey stranger", hidden=True)
    dead = character(encounter, "Brina", hp=0)
    goblin = monster(encounter, "Goblin")
    for wrong in (spy, dead, goblin):
        assert "not a party member you can claim" in _claim(player, encounter, wrong)
    reply = referee.post(reverse("party_claim", args=[encounter.slug]), {"combatant": spy.pk})
    assert reply.status_code == 302  # a plain form: back to the page, which says why
    assert not Combatant.objects.exclude(seat=None).exists()
    for bad in ("", "x", "-1", "99999999999999999999"):
        reply = player.post(reverse("party_claim", args=[encounter.slug]), {"combatant": bad})
        assert reply.status_code == 302


def test_the_claims_reach_every_player_live(encounter, player, other_player):
    _allow_claims(encounter)
    aldric = character(encounter, "Aldric")
    boris = Viewer(encounter, is_referee=False, seat=other_player.seat)
    _seq, before = render_snapshot(boris, "en")
    assert "Play Aldric" in _text(before)
    _claim(player, encounter, aldric)
    encounter.refresh_from_db()
    _seq, after = render_snapshot(Viewer(encounter, is_referee=False, seat=other_player.seat), "en")
    assert "Play Aldric" not in _text(after)


def _claim_in_a_process(slug: str, token: str, name: str, pk: int, barrier, results) -> None:
    connections.close_all()  # never share the parent's connection across a fork
    client = Client()
    client.post(reverse("join", args=[token]), {"name": name})
    barrier.wait(timeout=60)
    reply = client.post(reverse("party_claim", args=[slug]), {"combatant": pk}, follow=True)
    connections.close_all()
    results.put((name, reply.status_code, _text(reply.content.decode())))


@pytest.mark.django_db(transaction=True)
def test_two_players_claiming_at_once_only_one_gets_it():
    encounter = Encounter.objects.create(name="Siege", players_claim=True)
    aldric = character(encounter, "Aldric")
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(2), context.Queue()
    connections.close_all()
    workers = [
        context.Process(
            target=_claim_in_a_process,
            args=(encounter.slug, encounter.join_token, name, aldric.pk, barrier, results),
        )
        for name in ("Anna", "Boris")
    ]
    for worker in workers:
        worker.start()
    said = dict(
        (name, (code, text)) for name, code, text in (results.get(timeout=120) for _ in workers)
    )
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    aldric.refresh_from_db()
    winner = aldric.seat.name
    loser = "Boris" if winner == "Anna" else "Anna"
    assert said[winner][0] == said[loser][0] == 200
    assert "Aldric is yours to play now." in said[winner][1]
    assert "Someone else claimed Aldric first: choose another." in said[loser][1]


# --- the join form remembers the name -----------------------------------------------------


def test_the_join_form_remembers_the_name_in_that_browser(encounter):
    phone = Client()
    join = reverse("join", args=[encounter.join_token])
    assert 'value="' not in re.search(
        r'<input[^>]*name="name"[^>]*>', phone.get(join).content.decode()
    ).group(0)
    reply = phone.post(join, {"name": "Мирек"})
    assert reply.status_code == 302
    # The next encounter's join link, in the same browser: the name is there, no JS needed.
    other = Encounter.objects.create(name="The ogre's bridge")
    form = phone.get(reverse("join", args=[other.join_token])).content.decode()
    field = re.search(r'<input[^>]*name="name"[^>]*>', form).group(0)
    assert 'value="Мирек"' in field
    # Another browser's form is empty.
    assert 'value="' not in re.search(
        r'<input[^>]*name="name"[^>]*>',
        Client().get(reverse("join", args=[other.join_token])).content.decode(),
    ).group(0)


# --- the referee's live list of players ---------------------------------------------------


def test_the_live_list_of_players_says_someone_is_seated_and_whom_they_play(encounter, referee):
    referee_viewer = Viewer(encounter, is_referee=True, seat=None)
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "data-folds" in page  # drawn open: it folds once someone sits (console.js)
    _seq, snapshot = render_snapshot(referee_viewer, "en")
    assert "data-seated" not in snapshot
    player = _seated(encounter, "Anna")
    character(encounter, "Aldric", seat=player.seat)
    encounter.refresh_from_db()
    _seq, snapshot = render_snapshot(referee_viewer, "en")
    seats = re.search(r'<section id="seats".*?</section>', snapshot, re.S).group(0)
    assert "data-seated" in seats
    assert "Anna Aldric" in _text(seats)
    page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "data-folds" not in page  # drawn folded from now on


def test_what_changes_reaches_the_open_pages_as_a_live_change(encounter, referee, player):
    """The deltas a socket sends: the settings allowing claims bring the claim buttons to a
    player with no character, and a claim brings the referee's list of players who plays whom."""
    from combat.live.state import Audience, build_views

    brina = character(encounter, "Brina")
    audiences = [
        Audience(referee=True, seat=None, language="en"),
        Audience(referee=False, seat=player.seat.pk, language="en"),
    ]
    state, views = build_views(encounter.pk, audiences, {})
    before = {audience: view.seq for audience, view in views.items()}
    html = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    url = reverse("encounter_settings", args=[encounter.slug])
    referee.post(url, form_values(html, url) | {"settings-players_claim": "on"})
    state, views = build_views(encounter.pk, audiences, views, state)
    anna = audiences[1]
    delta = views[anna].message(before[anna])
    assert 'data-from="' in delta and "Play Brina" in _text(delta)
    before = {audience: view.seq for audience, view in views.items()}
    _claim(player, encounter, brina)
    state, views = build_views(encounter.pk, audiences, views, state)
    delta = views[audiences[0]].message(before[audiences[0]])
    seats = re.search(r'<section id="seats".*?</section>', delta, re.S).group(0)
    assert "Anna Brina" in _text(seats)
    assert "Play Brina" not in _text(views[anna].message(before[anna]))
