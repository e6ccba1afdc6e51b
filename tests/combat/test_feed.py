"""A player's personal feed (combat.live.feed): what happens to their own characters, on top of
their phone until seen, from what is stored, per seat, and drawn live only when it changes."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from combat.access import Viewer
from combat.live import feed
from combat.live import state as live
from combat.models import Encounter, LogEntry, PendingSave, Seat

from .conftest import character, form_values, monster

HTMX = {"HTTP_HX_REQUEST": "true"}
FEED = re.compile(r'<section id="feed".*?</section>', re.S)


@pytest.fixture
def table(encounter, referee, player, other_player):
    aldric = character(encounter, "Aldric", seat=player.seat, hp_max=30, hp=30)
    brina = character(encounter, "Brina", seat=other_player.seat, hp_max=30, hp=30)
    goblin = monster(encounter, "Goblin")
    return encounter, referee, player, other_player, aldric, brina, goblin


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _feed(client: Client, encounter: Encounter) -> str:
    """The feed section of ``client``'s page ("" when the page has none)."""
    page = client.get(_url("encounter", encounter)).content.decode()
    found = FEED.search(page)
    return found.group(0) if found else ""


def _items(section: str) -> list[str]:
    return re.findall(r'<li class="feed-item[^"]*".*?</li>', section, re.S)


def _hit(client: Client, encounter: Encounter, actor, target, damage: str = "4") -> None:
    response = client.post(
        _url("attack", encounter),
        {"actor": actor.pk, "target": target.pk, "mode": "melee", "natural": 19}
        | {"damage": "1d6", "damage_dice": damage},
        **HTMX,
    )
    assert response.status_code == 200


def _seen(client: Client, encounter: Encounter, seat: Seat, section: str, **sent) -> int:
    """Tap Seen as the section drew it (or with ``sent`` instead)."""
    values = form_values(section, _url("feed_seen", encounter, seat.pk)) if not sent else sent
    return client.post(_url("feed_seen", encounter, seat.pk), values, **HTMX).status_code


def _fireball(referee: Client, encounter: Encounter, *targets) -> None:
    data = {"targets": [t.pk for t in targets], "damage": "2d6", "damage_dice": "4 4"}
    data |= {"category": "breath", "on_save": "half", "players_roll": "on", "label": "Fireball"}
    assert referee.post(_url("area_effect", encounter), data, **HTMX).status_code == 200


def _start_with_the_party_first(referee: Client, encounter: Encounter) -> None:
    values = form_values(referee.get(_url("fight", encounter), **HTMX).content.decode(),
                         _url("fight", encounter))  # fmt: skip
    values.pop("surprise", None)
    assert referee.post(_url("fight", encounter), values, **HTMX).status_code == 200
    url = _url("initiative", encounter)
    values = form_values(referee.get(url, **HTMX).content.decode(), url)
    values |= {"party_die": "6", "foes_die": "1"}
    assert referee.post(url, values, **HTMX).status_code == 200


def test_a_goblins_hit_is_on_top_of_its_players_phone_only(table):
    encounter, referee, anna, boris, aldric, _brina, goblin = table
    _hit(referee, encounter, goblin, aldric)
    section = _feed(anna, encounter)
    (item,) = _items(section)
    assert "Hit: Aldric" in item and "Goblin attacks Aldric" in item
    assert "hidden" not in section.split(">")[0]  # shown
    # The feed comes first on the page, above the round and the panel.
    page = anna.get(_url("encounter", encounter)).content.decode()
    assert page.index('id="feed"') < page.index('id="round"') < page.index('id="panel"')
    # Boris's character was not touched: his feed is there, empty and hidden.
    other = _feed(boris, encounter)
    assert _items(other) == [] and " hidden" in other.split(">")[0]
    assert "Aldric" not in other
    # The referee has no feed.
    assert _feed(referee, encounter) == ""


def test_what_a_player_does_themself_is_not_in_their_feed_but_healing_by_another_is(table):
    encounter, referee, anna, boris, aldric, brina, goblin = table
    _hit(anna, encounter, aldric, goblin)  # Anna's own attack: her panel shows it
    assert _items(_feed(anna, encounter)) == []
    _hit(boris, encounter, brina, aldric, damage="2")  # another player hits her character
    assert "Hit: Aldric" in _feed(anna, encounter)
    url = _url("hit_points", encounter)
    values = form_values(referee.get(url + f"?actor={aldric.pk}", **HTMX).content.decode(), url)
    values |= {"actor": str(aldric.pk), "action": "heal", "amount": "2"}
    assert referee.post(url, values, **HTMX).status_code == 200
    healed, hit = _items(_feed(anna, encounter))  # newest first
    assert "Healed: Aldric" in healed and "Hit: Aldric" in hit


def test_a_save_owed_is_one_tap_from_the_feed_and_leaves_it_once_rolled(table):
    encounter, referee, anna, boris, aldric, _brina, _goblin = table
    _fireball(referee, encounter, aldric)
    section = _feed(anna, encounter)
    (item,) = _items(section)
    assert "A save is owed: Aldric" in item and "data-buzz" in item
    pending = PendingSave.objects.get(combatant=aldric, resolved=False)
    save_url = _url("pending_save", encounter, pending.pk)
    assert f'hx-post="{save_url}"' in item and 'hx-target="#panel"' in item
    assert "Save vs Breath attacks: 8 damage" in item and "needs 13+" in item
    # A save owed is not dismissed by Seen: there is nothing else to see, so no Seen.
    assert "feed-seen" not in section
    assert "A save is owed" not in _feed(boris, encounter)
    # One tap: the form as drawn, nothing to fill in (the server rolls).
    answer = anna.post(save_url, {}, **HTMX)
    assert answer.status_code == 200 and "saving throw" in answer.content.decode()
    assert _items(_feed(anna, encounter)) == []  # her own roll: her panel shows it


def test_seen_dismisses_what_the_feed_showed_and_it_stays_gone_on_reload(table):
    encounter, referee, anna, _boris, aldric, _brina, goblin = table
    _hit(referee, encounter, goblin, aldric)
    section = _feed(anna, encounter)
    shown = int(form_values(section, _url("feed_seen", encounter, anna.seat.pk))["seen"])
    _hit(referee, encounter, goblin, aldric, damage="1")  # lands after the feed was drawn
    assert _seen(anna, encounter, anna.seat, section) == 200
    anna.seat.refresh_from_db()
    assert anna.seat.feed_seen == shown
    (left,) = _items(_feed(anna, encounter))  # the one that came later stays
    assert "Damage 1" in left or "damage 1" in left.lower()
    assert _seen(anna, encounter, anna.seat, _feed(anna, encounter)) == 200
    assert _items(_feed(anna, encounter)) == []
    assert _items(_feed(anna, encounter)) == []  # and on the next reload
    # A new blow is new.
    _hit(referee, encounter, goblin, aldric)
    assert len(_items(_feed(anna, encounter))) == 1


def test_seen_is_the_seats_own_player_s_alone_and_reads_what_it_is_sent_with_care(table):
    encounter, referee, anna, boris, aldric, _brina, goblin = table
    _hit(referee, encounter, goblin, aldric)
    section = _feed(anna, encounter)
    seat = anna.seat
    url = _url("feed_seen", encounter, seat.pk)
    assert boris.post(url, {"seen": "99"}, **HTMX).status_code == 403
    assert referee.post(url, {"seen": "99"}, **HTMX).status_code == 403
    assert Client().post(url, {"seen": "99"}).status_code == 404
    assert anna.get(url).status_code == 405  # a POST only
    for sent in ({"seen": "x"}, {"seen": "-3"}, {"seen": "9" * 40}, {"turn": "<b>"}, {}):
        assert anna.post(url, sent, **HTMX).status_code == 200  # nothing to dismiss by
    seat.refresh_from_db()
    assert (seat.feed_seen, seat.feed_turn_seen) == (0, "")
    assert len(_items(_feed(anna, encounter))) == 1
    # A number past the log's is taken as the log's last: what comes next is still new.
    assert _seen(anna, encounter, seat, section, seen="1000") == 200
    seat.refresh_from_db()
    assert seat.feed_seen == Encounter.objects.get(pk=encounter.pk).public_seq
    _hit(referee, encounter, goblin, aldric)
    assert len(_items(_feed(anna, encounter))) == 1
    # Without htmx, the page again.
    response = anna.post(url, {"seen": "1000"})
    assert response.status_code == 302


def test_your_side_acts_until_seen_for_that_turn_and_again_next_round(table):
    encounter, referee, anna, boris, _aldric, _brina, _goblin = table
    _start_with_the_party_first(referee, encounter)
    section = _feed(anna, encounter)
    (item,) = _items(section)
    assert "Your side acts" in item and "Aldric" in item and "data-buzz" in item
    assert 'data-fight="on"' in section
    assert _seen(anna, encounter, anna.seat, section) == 200
    assert _items(_feed(anna, encounter)) == []
    assert "Your side acts" in _feed(boris, encounter)  # Boris has not seen it
    # The next round, the party acts again: a new turn.
    url = _url("advance", encounter, "round")
    at = re.search(r'name="at" value="([^"]+)"', referee.get(_url("encounter", encounter))
                   .content.decode()).group(1)  # fmt: skip
    assert referee.post(url, {"at": at}, **HTMX).status_code == 200
    iurl = _url("initiative", encounter)
    values = form_values(referee.get(iurl, **HTMX).content.decode(), iurl)
    referee.post(iurl, values | {"party_die": "5", "foes_die": "2"}, **HTMX)
    assert "Your side acts" in _feed(anna, encounter)


def test_a_condition_and_the_fights_end_with_its_experience(table):
    encounter, referee, anna, _boris, aldric, _brina, goblin = table
    _start_with_the_party_first(referee, encounter)
    url = _url("condition_new", encounter)
    values = form_values(referee.get(url + f"?combatant={aldric.pk}", **HTMX).content.decode(), url)
    values |= {"kind": "asleep", "duration": "2", "unit": "rounds"}
    assert referee.post(url, values, **HTMX).status_code == 200
    assert "Condition: Aldric" in _feed(anna, encounter)
    _hit(referee, encounter, aldric, goblin, damage="6")  # the referee slays the goblin
    page = referee.get(_url("encounter", encounter)).content.decode()
    at = re.search(r'name="at" value="([^"]+)"', page).group(1)
    end = _url("advance", encounter, "end")
    values = form_values(referee.get(end + f"?at={at}", **HTMX).content.decode(), end)
    values |= {"shares": "2"}
    assert referee.post(end, values, **HTMX).status_code == 200
    section = _feed(anna, encounter)
    assert "The fight is over" in section
    assert re.search(r"Your share: \d+ XP", section)
    assert 'data-fight=""' in section  # the screen may sleep again


def test_an_undone_blow_leaves_the_feed(table):
    encounter, referee, anna, _boris, aldric, _brina, goblin = table
    _hit(referee, encounter, goblin, aldric)
    entry = LogEntry.objects.get(kind="attack")
    assert referee.post(_url("undo", encounter, entry.seq), {}, **HTMX).status_code == 200
    assert _items(_feed(anna, encounter)) == []


def test_the_live_view_of_a_seat_has_its_own_feed_and_draws_it_only_when_it_changes(
    table, monkeypatch
):
    encounter, referee, anna, boris, aldric, _brina, goblin = table
    audiences = [
        live.Audience(referee=False, seat=anna.seat.pk, language="en"),
        live.Audience(referee=False, seat=boris.seat.pk, language="cs"),
    ]
    state, views = live.build_views(encounter.pk, audiences, {})
    anna_view, boris_view = views[audiences[0]], views[audiences[1]]
    assert 'id="feed"' in anna_view.message(None) and _items(anna_view.feed) == []

    drawn = []
    render = feed.render
    monkeypatch.setattr(
        feed, "render", lambda *a, **k: drawn.append(k["seat"].pk) or render(*a, **k)
    )
    _hit(referee, encounter, goblin, aldric)
    state, views = live.build_views(encounter.pk, audiences, views, state)
    anna_now, boris_now = views[audiences[0]], views[audiences[1]]
    assert drawn == [anna.seat.pk]  # Boris's feed did not change: not drawn again
    assert "Hit: Aldric" in anna_now.message(anna_view.seq)  # in the delta
    assert boris_now.feed is boris_view.feed and "Aldric" not in boris_now.feed
    # A snapshot (a reload, a reconnect) has the same items.
    assert "Hit: Aldric" in anna_now.message(None)

    # A change to no one's character: no seat's feed is drawn, the players' message is shared.
    drawn.clear()
    _hit(referee, encounter, aldric, goblin, damage="1")
    state, views = live.build_views(encounter.pk, audiences, views, state)
    assert drawn == [] and views[audiences[0]].feed is anna_now.feed

    # Seen (no change to the table): the next change draws the feed without it.
    Seat.objects.filter(pk=anna.seat.pk).update(feed_seen=encounter.__class__.objects.get(
        pk=encounter.pk).public_seq)  # fmt: skip
    _hit(referee, encounter, aldric, goblin, damage="1")
    state, views = live.build_views(encounter.pk, audiences, views, state)
    assert _items(views[audiences[0]].feed) == []
    assert views[audiences[0]].feed is anna_view.feed  # the empty feed, as drawn at first


def test_a_seat_s_feed_names_only_its_own_characters(table):
    encounter, referee, _anna, boris, aldric, brina, _goblin = table
    _fireball(referee, encounter, aldric, brina)
    viewer = Viewer(Encounter.objects.get(pk=encounter.pk), is_referee=False, seat=boris.seat)
    _seq, snapshot = live.render_snapshot(viewer, "en")
    section = FEED.search(snapshot).group(0)
    assert "A save is owed: Brina" in section and "Aldric" not in section


def test_a_feed_shows_the_newest_blows_and_seen_dismisses_the_older_ones_too(table):
    encounter, referee, anna, _boris, aldric, _brina, goblin = table
    for _blow in range(feed.SHOWN + 2):
        _hit(referee, encounter, goblin, aldric, damage="1")
    section = _feed(anna, encounter)
    items = _items(section)
    assert len(items) == feed.SHOWN
    newest = LogEntry.objects.filter(kind="attack").first()  # the log's order: newest first
    assert f'data-key="hit-{newest.public_seq}"' in section
    assert _seen(anna, encounter, anna.seat, section) == 200
    assert _items(_feed(anna, encounter)) == []


def test_a_save_owed_that_cannot_be_worked_out_does_not_take_the_phone_down(table):
    encounter, referee, anna, _boris, aldric, _brina, _goblin = table
    _fireball(referee, encounter, aldric)
    PendingSave.objects.filter(combatant=aldric).update(category="nonsense")  # edited by hand
    page = anna.get(_url("encounter", encounter))
    assert page.status_code == 200
    # The feed alone says it is not shown for now; the rest of the page goes on.
    section = FEED.search(page.content.decode()).group(0)
    assert 'class="card notice"' in section and "not shown for now" in section
    assert 'id="log"' in page.content.decode()
