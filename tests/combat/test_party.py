"""The party goes on: into the next encounter with its hit points as they stand and its
players' seats following, and as a ``fray-party`` file exported and imported back."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combat import classes, party, transfer, zones
from combat.access import Viewer
from combat.live.state import render_snapshot
from combat.models import (
    Combatant,
    Condition,
    ConditionKind,
    Encounter,
    InitiativeMode,
    Seat,
    Side,
)
from combat.rounds import check_morale, roll_initiative, start

from .conftest import character, monster
from .test_transfer import _mutated, fuzzed

pytestmark = pytest.mark.django_db

TURN = party.ROUNDS_PER_TURN


@pytest.fixture
def fight(encounter: Encounter, player: Client, other_player: Client) -> dict:
    """A fight under way with hit locations: Anna plays Aldric (wounded, a zone hurt, blessed
    until removed, paralysed for two turns, asleep for three rounds), Boris plays Brina (dead);
    a retainer nobody plays, a spy of the referee's hidden in the party, and two goblins."""
    Encounter.objects.filter(pk=encounter.pk).update(
        hit_locations=True, show_foe_hp=True, initiative_mode=InitiativeMode.INDIVIDUAL
    )
    encounter.refresh_from_db()
    aldric = character(
        encounter,
        "Aldric",
        seat=player.seat,
        char_class="fighter",
        level=3,
        int_score=12,
        con_score=14,
        cha_score=8,
        wis_score=11,
        notes="3 torches, 20 arrows",
        **classes.filled("ose", "fighter", 3),
    )
    brina = character(encounter, "Brina", seat=other_player.seat, hp=-2)
    retainer = character(encounter, "Hob the torchbearer", kind="normal_human", hp_max=4, hp=3)
    spy = character(encounter, "Grey stranger", hidden=True, hp_max=9, hp=9)
    goblins = [monster(encounter, f"Goblin {n}", morale=7) for n in (1, 2)]
    referee = Viewer(encounter, is_referee=True, seat=None)
    zones.sync_all(encounter)
    aldric.refresh_from_db()
    zones.damage_zone(referee, combatant=aldric, zone=aldric.zones["keys"][1], amount=2)
    Combatant.objects.filter(pk=aldric.pk).update(hp=11, fled=True)
    for kind, rounds in (
        (ConditionKind.OTHER, None),
        (ConditionKind.PARALYSED, 2 * TURN),
        (ConditionKind.ASLEEP, 3),
        (ConditionKind.FLEEING, None),
    ):
        Condition.objects.create(combatant=aldric, kind=kind, rounds_left=rounds, note="blessed")
    start(referee, surprise=False)
    roll_initiative(referee)
    check_morale(referee, side=Side.FOES, score=7, dice=[1, 1])
    encounter.refresh_from_db()
    return {
        "aldric": Combatant.objects.get(pk=aldric.pk),
        "brina": brina,
        "retainer": retainer,
        "spy": spy,
        "goblins": goblins,
    }


def _move_on(referee: Client, encounter: Encounter, carried: list[Combatant], **extra):
    data = {"name": "The ogre's bridge", "carried": [c.pk for c in carried]} | extra
    return referee.post(reverse("party_next", args=[encounter.slug]), data)


def _new(encounter: Encounter) -> Encounter:
    encounter.refresh_from_db()
    return encounter.moved_on_to


def _page(client: Client, encounter: Encounter) -> str:
    response = client.get(reverse("encounter", args=[encounter.slug]))
    assert response.status_code == 200
    return response.content.decode()


def _follow(client: Client, encounter: Encounter, **headers):
    return client.post(reverse("party_follow", args=[encounter.slug]), **headers)


# --- the next encounter ------------------------------------------------------------------


def test_the_next_encounter_carries_the_party_as_it_stands(encounter, referee, fight):
    aldric = fight["aldric"]
    before = transfer.export_encounter(encounter)
    reply = _move_on(referee, encounter, [aldric, fight["retainer"]])
    new = _new(encounter)
    assert reply.status_code == 302 and reply["Location"] == reverse("encounter", args=[new.slug])
    assert new.campaign_id is not None and new.campaign_id == encounter.campaign_id
    # The rules and settings go on; the fight does not.
    for name in ("system", "hit_locations", "show_foe_hp", "initiative_mode", "attack_method"):
        assert getattr(new, name) == getattr(encounter, name), name
    assert (new.round, new.turn, new.morale, new.seq) == (0, {}, {}, 0)
    assert not new.log.exists()
    copied = new.combatants.get(name="Aldric")
    for name in (
        "hp", "hp_max", "ac", "thac0", "char_class", "level", "str_score", "int_score",
        "con_score", "cha_score", "wis_score", "notes", "zones", "save_death", "kind", "side",
    ):  # fmt: skip
        assert getattr(copied, name) == getattr(aldric, name), name
    assert copied.hp == 11 and any(copied.zones["damage"])
    assert not copied.fled
    assert sorted(new.combatants.values_list("name", flat=True)) == [
        "Aldric",
        "Hob the torchbearer",
    ]
    # The encounter left behind is as it was, but for where its party went.
    after = transfer.export_encounter(encounter)
    assert after == before
    # The referee referees the new one, and the home page lists both.
    assert "referee-tools" in _page(referee, new)
    home = referee.get(reverse("home")).content.decode()
    assert new.name.replace("'", "&#x27;") in home and encounter.name in home


def test_conditions_that_end_with_the_fight_stay_behind(encounter, referee, fight):
    _move_on(referee, encounter, [fight["aldric"]])
    copied = _new(encounter).combatants.get(name="Aldric")
    kept = sorted((k.kind, k.rounds_left) for k in copied.conditions.all())
    assert kept == [(ConditionKind.OTHER, None), (ConditionKind.PARALYSED, 2 * TURN)]


def test_the_form_ticks_the_living_and_names_the_dead_and_the_hidden(encounter, referee, fight):
    url = reverse("party_next", args=[encounter.slug])
    html = referee.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "Goblin" not in html
    assert "Brina (dead)" in html and "Grey stranger (9/9 hit points), hidden from players" in html
    assert "Aldric (11/20 hit points)" in html
    boxes = re.findall(r'<input type="checkbox" name="carried" value="(\d+)"([^>]*)>', html)
    ticked = {int(value) for value, rest in boxes if "checked" in rest}
    assert len(boxes) == 4
    assert ticked == {fight[name].pk for name in ("aldric", "retainer", "spy")}


def test_a_hidden_member_goes_on_hidden_and_never_reaches_a_player(
    encounter, referee, player, fight
):
    _move_on(referee, encounter, [fight["aldric"], fight["spy"]])
    new = _new(encounter)
    assert new.combatants.get(name="Grey stranger").hidden
    _follow(player, encounter)
    assert "Grey stranger" not in _page(player, new)
    own = Viewer(new, is_referee=False, seat=new.seats.get(name="Anna"))
    assert "Grey stranger" not in render_snapshot(own, "en")[1]
    assert "Grey stranger" in render_snapshot(Viewer(new, True, None), "en")[1]


# --- seats follow --------------------------------------------------------------------------


def test_a_seat_goes_on_with_its_character_and_only_its_browser_takes_it(
    encounter, referee, player, other_player, outsider, fight
):
    _move_on(referee, encounter, [fight["aldric"], fight["retainer"]])
    new = _new(encounter)
    # Anna's seat went on with Aldric; Boris's did not (Brina, dead, stayed behind).
    [seat] = new.seats.all()
    assert seat.name == "Anna" and new.combatants.get(name="Aldric").seat == seat
    assert new.combatants.get(name="Hob the torchbearer").seat is None
    # Nobody sits in it yet by a mark: the new page is closed to every player until they follow.
    for client in (player, other_player, outsider):
        assert client.get(reverse("encounter", args=[new.slug])).status_code == 404
    anna = _page(player, encounter)
    assert "The party moved on to The ogre" in anna
    assert reverse("party_follow", args=[encounter.slug]) in anna
    assert "None of your characters" not in anna
    boris = _page(other_player, encounter)
    assert "The party moved on to The ogre" in boris and "None of your characters" in boris
    # Following: Anna lands in her new seat, with Aldric's buttons, the hit points he had.
    reply = _follow(player, encounter)
    assert reply.status_code == 302 and reply["Location"] == reverse("encounter", args=[new.slug])
    page = _page(player, new)
    assert "Aldric" in page and "11/20" in page
    assert (
        reverse("attack", args=[new.slug]) + f"?actor={new.combatants.get(name='Aldric').pk}"
        in page
    )
    # The old encounter stays readable to her.
    assert "Aldric" in _page(player, encounter)
    # Boris has no seat to take: he stays, told why; an outsider learns nothing.
    reply = _follow(other_player, encounter)
    assert reply["Location"] == reverse("encounter", args=[encounter.slug])
    assert "ask the referee for its join link" in _page(other_player, encounter)
    assert other_player.get(reverse("encounter", args=[new.slug])).status_code == 404
    assert _follow(outsider, encounter).status_code == 404
    assert outsider.get(reverse("party_follow", args=[encounter.slug])).status_code == 405
    # Both remain on the home page's list; Anna's holds the new one.
    assert new.slug in player.get(reverse("home")).content.decode()
    assert new.slug not in other_player.get(reverse("home")).content.decode()


def test_following_by_htmx_is_a_whole_page_load(encounter, referee, player, fight):
    _move_on(referee, encounter, [fight["aldric"]])
    reply = _follow(player, encounter, headers={"HX-Request": "true"})
    assert reply.status_code == 200
    assert reply["HX-Redirect"] == reverse("encounter", args=[_new(encounter).slug])


def test_another_referee_browser_follows_as_referee(encounter, referee, fight):
    other = Client()
    other.get(reverse("referee_link", args=[encounter.referee_key]))
    _move_on(referee, encounter, [fight["aldric"]])
    new = _new(encounter)
    assert other.get(reverse("encounter", args=[new.slug])).status_code == 404
    assert reverse("party_follow", args=[encounter.slug]) in _page(other, encounter)
    _follow(other, encounter)
    assert "referee-tools" in _page(other, new)


def test_a_second_move_sends_the_players_to_the_newest_only(
    encounter, referee, player, other_player, fight
):
    Combatant.objects.filter(pk=fight["brina"].pk).update(hp=5)
    _move_on(referee, encounter, [fight["aldric"], fight["brina"]], name="First")
    first = _new(encounter)
    _move_on(referee, encounter, [fight["aldric"]], name="Second", once="second")
    second = _new(encounter)
    assert second.name == "Second" and first.name == "First"
    _follow(player, encounter)
    assert player.get(reverse("encounter", args=[second.slug])).status_code == 200
    assert player.get(reverse("encounter", args=[first.slug])).status_code == 404
    reply = _follow(other_player, encounter)  # Brina went to the first only
    assert reply["Location"] == reverse("encounter", args=[encounter.slug])


def test_the_notice_reaches_each_player_live_as_their_seat_may_follow(
    encounter, referee, player, other_player, fight
):
    anna = Viewer(encounter, is_referee=False, seat=player.seat)
    boris = Viewer(encounter, is_referee=False, seat=other_player.seat)
    assert 'id="party-moved"' in render_snapshot(anna, "en")[1]
    assert "moved on" not in render_snapshot(anna, "en")[1]
    _move_on(referee, encounter, [fight["aldric"]])
    encounter.refresh_from_db()
    anna = Viewer(encounter, is_referee=False, seat=Seat.objects.get(pk=player.seat.pk))
    boris = Viewer(encounter, is_referee=False, seat=Seat.objects.get(pk=other_player.seat.pk))
    follow_url = reverse("party_follow", args=[encounter.slug])
    _seq, html = render_snapshot(anna, "cs")
    assert "Družina pokračovala do střetnutí „The ogre" in html and follow_url in html
    _seq, html = render_snapshot(boris, "en")
    assert "The party moved on to" in html and follow_url not in html


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_notice_arrives_over_each_player_s_socket_and_the_player_follows(
    encounter, referee, player, other_player
):
    """Through the live path every change takes (``combat.live.hub``): Anna's phone hears where
    the party went with a button to follow; Boris's, in Czech, hears it without one."""
    from asgiref.sync import sync_to_async

    from .test_live import _open

    aldric = await sync_to_async(character)(encounter, "Aldric", seat=player.seat, hp=7)
    anna_ws, _snapshot = await _open(player, encounter.slug)
    boris_ws, _snapshot = await _open(other_player, encounter.slug, language="cs")
    await sync_to_async(_move_on)(referee, encounter, [aldric])
    follow_url = reverse("party_follow", args=[encounter.slug])
    anna = await anna_ws.receive_from(timeout=5)
    assert "The party moved on to The ogre" in anna and follow_url in anna
    boris = await boris_ws.receive_from(timeout=5)
    assert "Družina pokračovala do střetnutí „The ogre" in boris and follow_url not in boris
    reply = await sync_to_async(_follow)(player, encounter)
    new = await sync_to_async(_new)(encounter)
    assert reply["Location"] == reverse("encounter", args=[new.slug])
    page = await sync_to_async(_page)(player, new)
    assert "Aldric" in page and "7/20" in page
    await anna_ws.disconnect()
    await boris_ws.disconnect()


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "carried": "aldric"},
        {"name": "   ", "carried": "aldric"},
        {"name": "x" * 81, "carried": "aldric"},
        {"name": "Next", "carried": []},
        {"name": "Next", "carried": "goblin"},
        {"name": "Next", "carried": "9999999"},
        {"name": "Next", "carried": "abc"},
        {"name": "Ne\x00xt", "carried": "aldric"},
    ],
)
def test_a_bad_next_encounter_form_says_why_and_makes_nothing(encounter, referee, fight, data):
    values = {"aldric": fight["aldric"].pk, "goblin": fight["goblins"][0].pk}
    carried = data["carried"]
    data = data | {"carried": values.get(carried, carried) if isinstance(carried, str) else []}
    count = Encounter.objects.count()
    reply = referee.post(reverse("party_next", args=[encounter.slug]), data, HTTP_HX_REQUEST="true")
    assert reply.status_code == 200 and b'role="alert"' in reply.content
    assert Encounter.objects.count() == count
    encounter.refresh_from_db()
    assert encounter.moved_on_to is None


def test_only_the_referee_moves_on(encounter, referee, player, outsider, fight):
    url = reverse("party_next", args=[encounter.slug])
    data = {"name": "Next", "carried": [fight["aldric"].pk]}
    assert player.get(url).status_code == 403
    assert player.post(url, data).status_code == 403
    assert outsider.post(url, data).status_code == 404
    assert Encounter.objects.count() == 1


def test_a_next_encounter_form_sent_twice_goes_on_once(encounter, referee, fight):
    first = _move_on(referee, encounter, [fight["aldric"]], once="same-key")
    second = _move_on(referee, encounter, [fight["aldric"]], once="same-key")
    assert Encounter.objects.count() == 2
    assert first["Location"] == second["Location"]


def test_a_combatant_of_another_encounter_cannot_be_carried(encounter, referee, fight):
    elsewhere = Encounter.objects.create(name="Elsewhere")
    stranger = character(elsewhere, "Stranger")
    reply = _move_on(referee, encounter, [fight["aldric"], stranger])
    assert reply.status_code == 200 and Encounter.objects.count() == 2


# --- the party file ------------------------------------------------------------------------


def _import(client: Client, encounter: Encounter, document: object, **extra):
    raw = document if isinstance(document, bytes) else json.dumps(document).encode()
    upload = SimpleUploadedFile("party.json", raw, content_type="application/json")
    return client.post(
        reverse("import_party", args=[encounter.slug]), {"file": upload} | extra, **extra_headers()
    )


def extra_headers() -> dict:
    return {"HTTP_HX_REQUEST": "true"}


def _counts() -> tuple[int, int, int]:
    return Encounter.objects.count(), Combatant.objects.count(), Condition.objects.count()


def test_the_party_file_holds_the_party_as_it_goes_on(encounter, referee, player, outsider, fight):
    url = reverse("export_party", args=[encounter.slug])
    reply = referee.get(url)
    assert reply.status_code == 200 and reply["Content-Disposition"].startswith("attachment;")
    assert reply["Cache-Control"] == "private, no-store"
    document = json.loads(reply.content)
    assert (document["format"], document["version"]) == ("fray-party", 1)
    names = [c["name"] for c in document["combatants"]]
    assert names == ["Aldric", "Brina", "Hob the torchbearer", "Grey stranger"]
    aldric = document["combatants"][0]
    assert (
        aldric["hp"] == 11 and not aldric["fled"] and "ref" not in aldric and "seat" not in aldric
    )
    assert [k["kind"] for k in aldric["conditions"]] == ["other", "paralysed"]
    assert player.get(url).status_code == 403
    assert outsider.get(url).status_code == 404


def test_a_party_file_joins_another_encounter_as_it_left(encounter, referee, fight):
    document = party.export_party(encounter)
    other = Encounter.objects.create(name="Next session", hit_locations=True)
    other_referee = Client()
    other_referee.get(reverse("referee_link", args=[other.referee_key]))
    reply = _import(other_referee, other, document)
    assert reply.status_code == 200 and b"Added to the party: Aldric, Brina" in reply.content
    assert party.export_party(other) == document
    assert set(other.combatants.values_list("side", flat=True)) == {Side.PARTY}
    assert not other.combatants.filter(seat__isnull=False).exists()
    other.refresh_from_db()
    assert other.seq == 1  # announced to every screen on it
    # Imported into an encounter without hit locations: taken as it is, zones kept for later.
    plain = Encounter.objects.create(name="Plain")
    assert party.import_party(Viewer(plain, True, None), json.dumps(document).encode())


def test_a_party_file_sent_by_a_plain_form_is_said_on_the_page(encounter, referee, fight):
    upload = SimpleUploadedFile("party.json", party.export_json(encounter).encode())
    url = reverse("import_party", args=[encounter.slug])
    reply = referee.post(url, {"file": upload}, follow=True)
    assert reply.redirect_chain == [(reverse("encounter", args=[encounter.slug]), 302)]
    assert "Added to the party: Aldric, Brina" in reply.content.decode()
    assert encounter.combatants.filter(name="Aldric").count() == 2


def test_importing_a_party_file_twice_by_one_form_adds_it_once(encounter, referee, fight):
    document = party.export_party(encounter)
    before = Combatant.objects.count()
    _import(referee, encounter, document, once="one")
    reply = _import(referee, encounter, document, once="one")
    assert b"sent twice" in reply.content
    assert Combatant.objects.count() == before + 4


def test_only_the_referee_imports_a_party(encounter, player, outsider, fight):
    document = party.export_party(encounter)
    counts = _counts()
    assert _import(player, encounter, document).status_code == 403
    assert _import(outsider, encounter, document).status_code == 404
    assert _counts() == counts


REFUSALS = [
    ("not json", b"{nope", "it is not JSON"),
    ("an encounter file", {"format": "fray-encounter", "version": 1}, "“fray-party”"),
    ("wrong version", ["version"], 2),
    ("unknown top field", ["encounter"], {}),
    ("a foe", ["combatants", 0, "side"], "foes"),
    ("a ref", ["combatants", 0, "ref"], 1),
    ("a seat", ["combatants", 0, "seat"], 1),
    ("hp too high", ["combatants", 0, "hp"], 10**6),
    ("a bad zones blob", ["combatants", 0, "zones", "damage"], [1]),
    ("a bad condition", ["combatants", 0, "conditions", 0, "rounds_left"], -1),
    ("nul in notes", ["combatants", 0, "notes"], "a\x00b"),
    ("deep nesting", ["combatants", 0, "skills"], [[[[[[[[[[]]]]]]]]]]),
    ("no one", ["combatants"], []),
    ("combatants not a list", ["combatants"], {"a": 1}),
]


@pytest.mark.parametrize(("case", "where", "value"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_bad_party_file_is_refused_with_a_message_and_nothing_written(
    encounter, referee, fight, case, where, value
):
    base = party.export_party(encounter)
    document = where if isinstance(where, bytes | dict) else _mutated(base, where, value)
    counts, seq = _counts(), Encounter.objects.get(pk=encounter.pk).seq
    reply = _import(referee, encounter, document)
    assert reply.status_code == 200, case
    assert b'role="alert"' in reply.content, case
    if isinstance(value, str) and not isinstance(where, list):
        assert value.encode() in reply.content
    assert _counts() == counts
    assert Encounter.objects.get(pk=encounter.pk).seq == seq


def test_a_refused_party_file_is_said_in_the_reader_s_language(encounter, referee, fight):
    referee.cookies["django_language"] = "cs"
    reply = _import(referee, encounter, {"format": "fray-encounter", "version": 1})
    assert "není družina z Fray".encode() in reply.content


def test_a_missing_and_a_too_large_party_file_are_refused(encounter, referee, fight):
    counts = _counts()
    url = reverse("import_party", args=[encounter.slug])
    reply = referee.post(url, {}, HTTP_HX_REQUEST="true")
    assert b"Choose a party file" in reply.content
    reply = _import(referee, encounter, b" " * (transfer.MAX_BYTES + 1))
    assert b"a party file is at most 1 MB" in reply.content
    assert _counts() == counts


def test_the_referee_tools_offer_the_party_and_a_player_s_page_does_not(encounter, referee, player):
    page = _page(referee, encounter)
    for name in ("party_next", "export_party", "import_party"):
        assert reverse(name, args=[encounter.slug]) in page
        assert reverse(name, args=[encounter.slug]) not in _page(player, encounter)
    panel = referee.get(reverse("import_party", args=[encounter.slug]), HTTP_HX_REQUEST="true")
    assert b'enctype="multipart/form-data"' in panel.content


# --- fuzz ----------------------------------------------------------------------------------


def _as_party_file(listed: object) -> dict:
    return {"format": "fray-party", "version": 1, "combatants": listed}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzzed_party_files_never_give_a_server_error_nor_a_partial_import(
    encounter, referee, fight, data
):
    raw = fuzzed(data, party.export_party(encounter), _as_party_file)
    if raw is None:
        return
    before = set(encounter.combatants.values_list("pk", flat=True))
    conditions = Condition.objects.count()
    reply = _import(referee, encounter, raw)
    assert reply.status_code < 500
    added = encounter.combatants.exclude(pk__in=before)
    if b"Added to the party" in reply.content:
        assert added.count() == len(json.loads(raw)["combatants"])  # all of them, or none
        assert set(added.values_list("side", flat=True)) == {Side.PARTY}
        assert referee.get(reverse("encounter", args=[encounter.slug])).status_code == 200
        for combatant in added:  # the forms that read a combatant's stored fields draw
            for name in ("combatant_edit", "zone"):
                url = reverse(name, args=[encounter.slug, combatant.pk])
                assert referee.get(url).status_code < 500, name
        added.delete()
    else:
        assert not added.exists()
        assert Condition.objects.count() == conditions
