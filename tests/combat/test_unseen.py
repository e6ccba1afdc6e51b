"""What players may read of a log entry (combat.unseen): a combatant hidden when the entry was
written is never named to them, on their page, the whole log, the table display or a socket,
and a note that goes with it goes with it."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import translation

from combat.models import Combatant, Encounter, InitiativeMode, LogEntry
from combat.unseen import UNSEEN, for_players, stamped

from .conftest import character, form_values, migrate, migrated_to, monster
from .test_display import _display, _open

HTMX = {"HTTP_HX_REQUEST": "true"}
HIDDEN = "Zorgblatt"
NOTE = "NOTE-FOR-REFEREE"


# --- the mechanism --------------------------------------------------------------------------


def test_data_naming_no_hidden_combatant_is_read_as_it_is():
    data = {"rolls": [["Gnoll", 3, False, 0, 3]]}
    assert for_players(data) is data
    assert stamped(data, [Combatant(name="Gnoll", hidden=False)]) is data


def test_a_hidden_combatant_is_left_out_of_lists_and_worded_without_its_name():
    data = stamped(
        {
            "rolls": [["Gnoll", 3, False, 0, 3], [HIDDEN, 1, False, 0, 1]],
            "names": ["Gnoll", HIDDEN],
            "expired": [[HIDDEN, "asleep", NOTE]],
            "fell": [["foes", [{"name": HIDDEN, "hidden": True}, {"name": "Gnoll"}]]],
            "who": HIDDEN,
            "note": NOTE,
            "round": 2,
        },
        [Combatant(name=HIDDEN, side="foes", hidden=True), Combatant(name="Gnoll", side="foes")],
    )
    assert data[UNSEEN] == {HIDDEN: "foes"}
    seen = for_players(data)
    assert seen["rolls"] == [["Gnoll", 3, False, 0, 3]]
    assert seen["names"] == ["Gnoll"] and seen["expired"] == []
    assert seen["round"] == 2 and "note" not in seen and UNSEEN not in seen
    with translation.override("en"):
        assert str(seen["who"]) == "a hidden foe"
        assert str(seen["fell"][0][1][0]["name"]) == "a hidden foe"
    assert HIDDEN not in repr(seen) and NOTE not in repr(seen)


def test_a_hidden_member_of_the_party_is_someone_hidden():
    data = stamped({"who": "Nim"}, [Combatant(name="Nim", side="party", hidden=True)])
    with translation.override("en"):
        assert str(for_players(data)["who"]) == "someone hidden"


# --- as the issue found it ------------------------------------------------------------------


def _url(name: str, encounter: Encounter, *args) -> str:
    return reverse(name, args=[encounter.slug, *args])


def _send(client: Client, name: str, encounter: Encounter, values: dict, *args) -> None:
    response = client.post(_url(name, encounter, *args), values, **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]


def _form(client: Client, name: str, encounter: Encounter, query: str = "") -> dict[str, str]:
    url = _url(name, encounter)
    return form_values(client.get(url + query, **HTMX).content.decode(), url)


def _marker(client: Client, encounter: Encounter) -> str:
    page = client.get(_url("encounter", encounter)).content.decode()
    return re.search(r'name="at" value="([^"]+)"', page).group(1)


def _play_the_issues_round(encounter: Encounter, referee: Client, lurker: Combatant) -> None:
    """Individual initiative, the hidden foe put to sleep for one round with a note, the round
    ended, and the foes' morale broken with typed dice."""
    _send(referee, "fight", encounter, _form(referee, "fight", encounter))
    values = _form(referee, "condition_new", encounter, f"?combatant={lurker.pk}")
    values |= {"kind": "asleep", "note": NOTE, "duration": "1", "unit": "rounds"}
    _send(referee, "condition_new", encounter, values)
    _send(referee, "initiative", encounter, _form(referee, "initiative", encounter))
    _send(referee, "advance", encounter, {"at": _marker(referee, encounter)}, "round")
    values = _form(referee, "morale", encounter, "?side=foes")
    values |= {"dice": "6 6", "score": "7"}
    _send(referee, "morale", encounter, values)


@pytest.fixture
def lurking(encounter, referee, player):
    encounter.initiative_mode = InitiativeMode.INDIVIDUAL
    encounter.save()
    character(encounter, "Aldric", seat=player.seat)
    monster(encounter, "Gnoll", morale=7)
    lurker = monster(encounter, HIDDEN, morale=7, hidden=True)
    return encounter, referee, player, lurker


def test_the_rounds_lines_never_name_a_hidden_foe_or_its_note_to_players(lurking):
    encounter, referee, player, lurker = lurking
    _play_the_issues_round(encounter, referee, lurker)
    assert LogEntry.objects.filter(kind="morale").get().data["fled"] == ["Gnoll", HIDDEN]
    referees = referee.get(_url("log", encounter)).content.decode()
    assert HIDDEN in referees and NOTE in referees  # the referee reads it all
    display = _display(encounter)
    for page in (
        player.get(_url("encounter", encounter)),
        player.get(_url("log", encounter)),
        display.get(_url("display", encounter)),
    ):
        html = page.content.decode()
        assert page.status_code == 200
        assert "Gnoll" in html and "Fled" in html  # the rest of the lines are there
        assert HIDDEN not in html and NOTE not in html


@pytest.fixture
def live_lurking(transactional_db):
    encounter = Encounter.objects.create(name="Den", initiative_mode=InitiativeMode.INDIVIDUAL)
    referee = Client()
    referee.get(reverse("referee_link", args=[encounter.referee_key]))
    player = Client()
    player.post(reverse("join", args=[encounter.join_token]), {"name": "Anna"})
    character(encounter, "Aldric", seat=encounter.seats.get())
    monster(encounter, "Gnoll", morale=7)
    lurker = monster(encounter, HIDDEN, morale=7, hidden=True)
    return encounter, referee, player, lurker


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["", "display/"])
async def test_no_socket_message_names_a_hidden_foe(live_lurking, path):
    encounter, referee, player, lurker = live_lurking
    watcher = player if path == "" else await sync_to_async(_display)(encounter)
    socket, snapshot = await _open(watcher, encounter.slug, path)
    await sync_to_async(_play_the_issues_round)(encounter, referee, lurker)
    heard = [snapshot]
    while "Fled" not in heard[-1]:
        heard.append(await socket.receive_from(timeout=5))
    await socket.disconnect()
    everything = "".join(heard)
    assert "Gnoll" in everything
    assert HIDDEN not in everything and NOTE not in everything


# --- entries written before ---------------------------------------------------------------

BEFORE, AFTER = ("combat", "0016_bounds"), ("combat", "0017_log_unseen_names")


@pytest.mark.django_db(transaction=True)
def test_entries_written_before_stop_naming_who_is_hidden_now():
    with migrated_to(BEFORE) as old:
        encounter = old.get_model("combat", "Encounter").objects.create(
            name="Old", slug="old", referee_key="r", join_token="j", display_token="d"
        )
        saves = {f"save_{s}": 10 for s in ("death", "wands", "paralysis", "breath", "spells")}
        for name, hidden in (("Gnoll", False), ("Žorgblatt", True)):
            old.get_model("combat", "Combatant").objects.create(
                encounter=encounter, name=name, side="foes", hidden=hidden, ac=6, hp_max=5,
                hp=5, thac0=19, **saves,
            )  # fmt: skip
        entries = old.get_model("combat", "LogEntry").objects
        fled = {"side": "foes", "fled": ["Gnoll", "Žorgblatt"], "fled_ids": [1, 2]}
        entries.create(encounter=encounter, seq=1, public_seq=1, kind="morale", data=fled)
        entries.create(encounter=encounter, seq=2, public_seq=2, kind="roll", data={"total": 3})
        entries.create(encounter=encounter, seq=3, kind="morale", secret=True, data=fled)
        migrate(AFTER)
    stored = {e.seq: e.data for e in LogEntry.objects.filter(encounter__slug="old")}
    assert stored[1][UNSEEN] == {"Žorgblatt": "foes"}
    assert for_players(stored[1])["fled"] == ["Gnoll"]
    assert UNSEEN not in stored[2] and UNSEEN not in stored[3]  # nothing to hide; all hidden
