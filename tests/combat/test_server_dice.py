"""The server's dice, sealed before the roll and revealed after (issue 33, ``combat.table.dice``):
what a roll stores as its proof, who may read which proofs, when a seed is revealed, the file an
export carries and ``manage.py verify_dice``. Every kind of roll in every system is verified by
the hidden scan (tests/combat/test_hidden_scan.py), which plays them all and checks the proofs.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from combat import table
from combat.access import Viewer
from combat.models import Combatant, DiceSeed, Encounter, LogEntry
from combat.systems.ose import actions
from combat.table import dice as server_dice
from rules import dice, fair

from .conftest import monster

pytestmark = pytest.mark.django_db

VALUE = "00112233aabbccdd"  # what the acting browser sent


@pytest.fixture
def goblin(encounter: Encounter) -> Combatant:
    """A foe no number of these tests' blows kills."""
    return monster(encounter, "Goblin", hp_max=200, hp=200)


def _attack(client: Client, encounter: Encounter, actor: Combatant, target: Combatant, **more):
    values = {"actor": actor.pk, "target": target.pk, "mode": "melee", "damage": "1d6"}
    response = client.post(reverse("attack", args=[encounter.slug]), values | more)
    assert response.status_code in (200, 302)
    return LogEntry.objects.filter(encounter=encounter).order_by("-seq").first()


def _proofs(client: Client, encounter: Encounter) -> dict:
    response = client.get(reverse("dice_proofs", args=[encounter.slug]))
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    return response.json()


# --- a roll's proof ---------------------------------------------------------------------------


def test_a_server_roll_stores_dice_derived_from_the_sealed_seed(player, encounter, fighter, goblin):
    seed = encounter.dice_seed
    entry = _attack(player, encounter, fighter, goblin, dice=VALUE)
    proof = entry.proof["public"]
    assert proof["period"] == 1 and proof["roll"] == 1 and proof["player"] == VALUE
    assert [sides for sides, _value in proof["dice"]] in ([20], [20, 6])
    assert [v for _s, v in proof["dice"]] == fair.derive(
        seed, 1, VALUE, [s for s, _v in proof["dice"]]
    )
    assert proof["dice"][0][1] == entry.payload.roll.natural  # what the log shows
    assert "secret" not in entry.proof


def test_roll_numbers_run_on_with_no_gap_and_a_refused_roll_takes_none(
    player, referee, encounter, fighter, goblin
):
    _attack(player, encounter, fighter, goblin)
    goblin.hp = -3
    goblin.save(update_fields=["hp"])  # dead: the next attack is refused, nothing written
    _attack(player, encounter, fighter, goblin)
    goblin.hp = 200
    goblin.save(update_fields=["hp"])
    _attack(player, encounter, fighter, goblin)
    numbers = [
        e.proof["public"]["roll"] for e in LogEntry.objects.exclude(proof={}).order_by("seq")
    ]
    assert numbers == [1, 2]


def test_typed_dice_need_no_proof(player, encounter, fighter, goblin):
    entry = _attack(player, encounter, fighter, goblin, natural=17, damage_dice="3")
    assert entry.proof == {}


def test_a_value_that_is_not_hex_is_set_aside_not_refused(player, encounter, fighter, goblin):
    entry = _attack(player, encounter, fighter, goblin, dice="<script>" * 20)
    assert entry.proof["public"]["player"] == ""
    assert fair.verify(_revealed(encounter, entry))["ok"]


def _revealed(encounter: Encounter, entry: LogEntry) -> dict:
    return {
        "periods": [
            {"number": 1, "commitment": encounter.dice_commitment, "seed": encounter.dice_seed}
        ],
        "rolls": [{"entry": entry.seq, **entry.proof["public"]}],
    }


def test_a_secret_roll_comes_from_its_own_seed_and_players_never_learn_of_it(
    referee, player, encounter, fighter, goblin, lurker
):
    sealed = encounter.secret_commitment
    referee.post(
        reverse("attack", args=[encounter.slug]),
        {"actor": lurker.pk, "target": fighter.pk, "mode": "melee", "damage": "1d6", "dice": VALUE},
    )
    _attack(player, encounter, fighter, goblin)
    secret, public = LogEntry.objects.order_by("seq")
    assert secret.secret and "public" not in secret.proof
    assert secret.proof["secret"]["commitment"] == sealed  # the seal the referee saw before
    encounter.refresh_from_db()
    assert encounter.secret_commitment != sealed  # the next secret roll's seal is new
    assert public.proof["public"]["roll"] == 1  # no gap where the referee rolled in secret
    everything = _proofs(referee, encounter)
    assert [roll["entry"] for roll in everything["secret"]] == [secret.seq]
    assert fair.verify(everything)["rolls"][-1]["state"] == "verified"  # its own seed goes with it
    seen = _proofs(player, encounter)
    assert "secret" not in seen and [r["entry"] for r in seen["rolls"]] == [public.public_seq]
    assert secret.proof["secret"]["seed"] not in json.dumps(seen)


def test_a_hidden_combatants_initiative_die_is_secret_in_a_public_entry(
    referee, encounter, fighter, lurker
):
    encounter.initiative_mode = "individual"
    encounter.save(update_fields=["initiative_mode"])
    viewer = Viewer(encounter, is_referee=True, seat=None)
    with table.server_dice(encounter):
        from combat import rounds

        rounds.start(viewer, surprise=False)
    with table.server_dice(encounter):
        entry = rounds.roll_initiative(Viewer(Encounter.objects.get(pk=encounter.pk), True, None))
    assert not entry.secret
    assert len(entry.proof["public"]["dice"]) == 1  # Aldric's, seen by everyone
    assert len(entry.proof["secret"]["dice"]) == 1  # the lurker's: players never learn of it


def test_players_read_only_the_proofs_of_entries_they_see(
    player, outsider, encounter, fighter, goblin
):
    _attack(player, encounter, fighter, goblin)
    assert outsider.get(reverse("dice_proofs", args=[encounter.slug])).status_code == 404
    assert outsider.get(reverse("dice", args=[encounter.slug])).status_code == 404
    page = player.get(reverse("dice", args=[encounter.slug]))
    assert page.status_code == 200 and b"dice-check" in page.content


# --- the seal and its reveal --------------------------------------------------------------------


def test_every_screen_shows_the_seal_before_the_roll(player, referee, encounter):
    for client in (player, referee):
        html = client.get(reverse("encounter", args=[encounter.slug])).content.decode()
        assert f"<code>{encounter.dice_commitment[:16]}</code>" in html
        assert encounter.dice_seed not in html
    referee_page = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    player_page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert encounter.secret_commitment[:8] in referee_page
    assert encounter.secret_commitment[:8] not in player_page


def test_the_referee_reveals_the_seed_and_seals_a_new_one(
    referee, player, encounter, fighter, goblin
):
    first = encounter.dice_seed
    _attack(player, encounter, fighter, goblin)
    assert fair.verify(_proofs(player, encounter))["counts"]["committed"] == 1
    assert player.post(reverse("dice_rotate", args=[encounter.slug])).status_code == 403
    response = referee.post(reverse("dice_rotate", args=[encounter.slug]), {"once": "r1"})
    assert response.status_code == 302
    referee.post(reverse("dice_rotate", args=[encounter.slug]), {"once": "r1"})  # sent twice
    encounter.refresh_from_db()
    assert encounter.dice_period == 2 and encounter.dice_seed != first
    assert list(DiceSeed.objects.values_list("number", "seed", "rolls")) == [(1, first, 1)]
    report = fair.verify(_proofs(player, encounter))
    assert report["ok"] and report["counts"] == {"verified": 1, "committed": 0, "failed": 0}
    entry = _attack(player, encounter, fighter, goblin)
    assert (entry.proof["public"]["period"], entry.proof["public"]["roll"]) == (2, 1)


def test_the_fights_end_reveals_its_dice(referee, player, encounter, fighter, goblin):
    viewer = Viewer(encounter, is_referee=True, seat=None)
    from combat import rounds

    with table.server_dice(encounter):
        rounds.start(viewer, surprise=True)  # the surprise dice
    _attack(player, encounter, fighter, goblin)
    encounter.refresh_from_db()
    ended = rounds.end_fight(Viewer(encounter, True, None), at=rounds.marker(encounter), xp={})
    assert ended.payload.dice_period == 1
    report = fair.verify(_proofs(player, encounter))
    rolled = LogEntry.objects.exclude(proof={}).count()  # the attack, unless surprise forbade it
    assert report["ok"] and report["counts"]["verified"] == rolled >= 1
    # A fight with no server roll reveals nothing: its seal stays for the next one.
    encounter.refresh_from_db()
    with table.server_dice(encounter):
        rounds.start(Viewer(encounter, True, None), surprise=False)
    encounter.refresh_from_db()
    again = rounds.end_fight(Viewer(encounter, True, None), at=rounds.marker(encounter), xp={})
    assert again.payload.dice_period is None and DiceSeed.objects.count() == 1


def test_a_whole_save_leaves_the_dice_counters_alone(player, encounter, fighter, goblin):
    stale = Encounter.objects.get(pk=encounter.pk)
    _attack(player, encounter, fighter, goblin)
    stale.name = "Renamed"
    stale.save()  # a copy read before the roll, saved whole
    encounter.refresh_from_db()
    assert encounter.name == "Renamed" and encounter.dice_rolls == 1


def test_dice_drawn_and_never_recorded_or_public_in_a_secret_entry_are_caught(encounter):
    with pytest.raises(server_dice.DiceMisuse), table.server_dice(encounter):
        table.RNG.randint(1, 6)  # drawn, and no entry takes it: a gap players would see
    viewer = Viewer(encounter, is_referee=True, seat=None)
    with pytest.raises(server_dice.DiceMisuse), table.server_dice(encounter):
        table.RNG.randint(1, 6)
        table.kept_secret(viewer, True)  # too late: the die came from the public stream


def test_a_test_may_still_fix_the_dice(monkeypatch, encounter):
    import random

    from .conftest import fixed_dice

    fixed_dice(monkeypatch, random.Random(7))
    expected = random.Random(7).randint(1, 20)
    assert table.RNG.randint(1, 20) == expected


# --- the file, and checking it anywhere --------------------------------------------------------


def _exported(referee: Client, encounter: Encounter) -> dict:
    response = referee.get(reverse("export_encounter", args=[encounter.slug]))
    assert response.status_code == 200
    return json.loads(response.content)


def test_an_export_reveals_the_seed_and_carries_every_proof(
    referee, player, encounter, fighter, goblin
):
    _attack(player, encounter, fighter, goblin)
    document = _exported(referee, encounter)
    assert fair.verify(document["dice"])["ok"]
    assert fair.verify(document["dice"])["counts"]["verified"] == 1
    encounter.refresh_from_db()
    assert encounter.dice_period == 2  # the rolls to come are sealed anew
    assert "dice_seed" not in document["encounter"] and "secret_seed" not in document["encounter"]
    # The file comes back as a new encounter: its dice stay behind with the log.
    imported = referee.post(reverse("import_encounter"), {"file": _upload(document)})
    assert imported.status_code == 302
    new = Encounter.objects.exclude(pk=encounter.pk).get()
    assert new.dice_seed != encounter.dice_seed and not new.log.exists()


def _upload(document: dict):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("e.json", json.dumps(document).encode(), "application/json")


def test_verify_dice_checks_a_file_and_names_the_die_that_does_not_match(
    referee, player, encounter, fighter, goblin, tmp_path: Path
):
    entry = _attack(player, encounter, fighter, goblin)
    document = _exported(referee, encounter)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document))
    out = StringIO()
    call_command("verify_dice", str(good), stdout=out)
    assert "1 rolls verified" in out.getvalue() and "0 not matching" in out.getvalue()
    sides, value = document["dice"]["rolls"][0]["dice"][0]
    document["dice"]["rolls"][0]["dice"][0][1] = value % sides + 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("verify_dice", str(bad), stdout=out)
    assert failed.value.returncode == 1
    assert f"entry #{entry.seq}" in out.getvalue()
    assert f"d{sides} #1 shows {value % sides + 1}, the seed gives {value}" in out.getvalue()


@pytest.mark.parametrize("content", [b"not json", b"[1, 2]", b'{"dice": {"periods": 3}}'])
def test_verify_dice_refuses_a_file_with_no_dice_clearly(tmp_path: Path, content: bytes):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(CommandError):
        call_command("verify_dice", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match="cannot read"):
        call_command("verify_dice", str(tmp_path / "missing.json"), stdout=StringIO())


def test_outside_an_action_a_die_is_the_systems_and_is_not_sealed(encounter):
    viewer = Viewer(encounter, is_referee=True, seat=None)
    entry = table.free_roll(viewer, expression=dice.parse("2d6"), label="", entered=None)
    assert entry.proof == {}
    encounter.refresh_from_db()
    assert encounter.dice_rolls == 0


def test_an_action_sends_its_roll_through_the_sealed_dice(encounter, fighter, goblin):
    viewer = Viewer(encounter, is_referee=True, seat=None)
    with table.server_dice(encounter, VALUE):
        entry = actions.attack(
            viewer, actor=fighter, target=goblin, mode="melee", modifier=0, natural=None,
            damage=dice.parse("1d6"), damage_dice=None,
        )  # fmt: skip
    assert entry.proof["public"]["player"] == VALUE


def test_the_table_display_checks_the_dice_players_see(player, encounter, fighter, goblin):
    from .test_display import _display

    _attack(player, encounter, fighter, goblin)
    display = _display(encounter)
    assert _proofs(display, encounter) == _proofs(player, encounter)
    page = display.get(reverse("dice", args=[encounter.slug])).content.decode()
    assert reverse("display", args=[encounter.slug]) in page  # its way back


def _verified_in_order(client: Client, encounter: Encounter, rolls: int) -> None:
    """Revealed (the referee's button), every roll verifies: numbered 1..N in entry order."""
    report = fair.verify(_proofs(client, encounter))
    assert report["ok"] and report["counts"]["verified"] == rolls, report


def test_rest_rolls_its_healing_dice_sealed(referee, encounter, fighter):
    viewer = Viewer(encounter, is_referee=True, seat=None)
    with table.server_dice(encounter, VALUE):
        entry = table.rest(viewer, actor=fighter, days=3, interrupted=0, day_dice=None)
    assert [sides for sides, _v in entry.proof["public"]["dice"]] == [3, 3, 3]  # a d3 a day
    assert [v for _s, v in entry.proof["public"]["dice"]] == entry.payload.dice
    referee.post(reverse("dice_rotate", args=[encounter.slug]))
    _verified_in_order(referee, encounter, 1)


def test_an_area_effects_damage_is_numbered_after_the_saves_it_heads(
    referee, player, encounter, fighter, goblin, lurker
):
    """The damage is rolled first and written last (it heads its group in the log): players'
    numbers follow the entries, so it takes the number after the saves' (a hidden target's
    save is secret, and takes none)."""
    from combat import group

    viewer = Viewer(encounter, is_referee=True, seat=None)
    targets = [group.Exposed(target=c, natural=None) for c in (fighter, goblin, lurker)]
    with table.server_dice(encounter, VALUE):
        written = group.area_effect(
            viewer, targets=targets, damage=dice.parse("2d6"), damage_dice=None,
            category="breath", on_save="half", modifier=0,
        )  # fmt: skip
    head, *saves = written
    numbers = {e.pk: e.proof.get("public", {}).get("roll") for e in written}
    public_saves = [s for s in saves if not s.secret]
    assert sorted(numbers[s.pk] for s in public_saves) == [1, 2]
    assert numbers[head.pk] == 3 and head.seq > max(s.seq for s in saves)
    referee.post(reverse("dice_rotate", args=[encounter.slug]))
    _verified_in_order(player, encounter, 3)
    _verified_in_order(referee, encounter, 4)  # and the hidden one's secret save


# --- a secret roll shown to players -------------------------------------------------------------


def test_the_referee_shows_players_a_secret_roll_with_its_proof(
    referee, player, encounter, fighter, lurker
):
    referee.post(
        reverse("attack", args=[encounter.slug]),
        {"actor": lurker.pk, "target": fighter.pk, "mode": "melee", "damage": "1d6", "dice": VALUE},
    )
    secret = LogEntry.objects.get(encounter=encounter)
    assert secret.secret and "secret" in secret.proof
    html = referee.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert reverse("show_entry", args=[encounter.slug, secret.seq]) in html
    assert player.post(reverse("show_entry", args=[encounter.slug, secret.seq])).status_code == 403
    response = referee.post(reverse("show_entry", args=[encounter.slug, secret.seq]))
    assert response.status_code in (200, 302)
    shown = LogEntry.objects.get(encounter=encounter, secret=False)
    assert shown.data["shown"] == secret.seq and shown.proof == {"secret": secret.proof["secret"]}
    assert shown.effects == [] and not shown.undoable
    # Players read it, the hidden attacker worded as any hidden name, and check its dice now.
    page = player.get(reverse("encounter", args=[encounter.slug])).content.decode()
    assert "Lurking wight" not in page and "a hidden foe" in page
    assert "a secret roll, shown by the referee" in page
    assert f'data-seed="{secret.proof["secret"]["seed"]}"' in page
    seen = _proofs(player, encounter)
    assert [roll["entry"] for roll in seen["secret"]] == [shown.public_seq]
    report = fair.verify(seen)
    assert report["ok"] and report["counts"]["verified"] == 1
    # Shown once; a public entry, or an undone one, is not shown.
    again = referee.post(
        reverse("show_entry", args=[encounter.slug, secret.seq]), HTTP_HX_REQUEST="true"
    )
    assert "shown already" in again.content.decode()
    assert LogEntry.objects.filter(encounter=encounter).count() == 2
    refused = referee.post(
        reverse("show_entry", args=[encounter.slug, shown.seq]), HTTP_HX_REQUEST="true"
    )
    assert "players see it already" in refused.content.decode()


def test_the_logs_marks_ask_for_the_seeds_alone(referee, player, encounter, fighter, goblin):
    """Every phone asks when a fight ends: the answer does not grow with the log."""
    for _ in range(3):
        _attack(player, encounter, fighter, goblin)
    referee.post(reverse("dice_rotate", args=[encounter.slug]))
    response = player.get(reverse("dice_proofs", args=[encounter.slug]), {"seeds": ""})
    seeds = response.json()
    assert set(seeds) == {"version", "periods", "words"} and len(seeds["periods"]) == 2
    assert seeds["periods"][0]["seed"] and seeds["periods"][1]["seed"] is None
    assert seeds["words"] == {"verified": "verified", "failed": "does not match"}


def test_the_whole_log_shows_the_seal_its_dice_are_checked_against(
    player, encounter, fighter, goblin
):
    _attack(player, encounter, fighter, goblin)
    html = player.get(reverse("log", args=[encounter.slug])).content.decode()
    assert 'id="dice-seal"' in html and "dice-proof" in html
    assert f"<code>{encounter.dice_commitment[:16]}</code>" in html


def test_a_natural_changed_in_the_log_and_not_in_its_proof_fails(
    referee, player, encounter, fighter, goblin, tmp_path: Path
):
    """The proof's dice still derive from the seed; the entry's text says otherwise."""
    entry = _attack(player, encounter, fighter, goblin)
    referee.post(reverse("dice_rotate", args=[encounter.slug]))
    assert fair.verify(_proofs(player, encounter))["ok"]
    data = dict(entry.data)
    data["roll"] = dict(data["roll"], natural=data["roll"]["natural"] % 20 + 1)
    LogEntry.objects.filter(pk=entry.pk).update(data=data)
    for client in (player, referee):
        report = fair.verify(_proofs(client, encounter))
        assert [(r["state"], r["problem"]) for r in report["rolls"]] == [("failed", "shown")]
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(_exported(referee, encounter)))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_dice", str(path), stdout=out)
    assert "shows other dice than its proof" in out.getvalue()


def test_a_secret_roll_is_shown_from_the_whole_log_page_too(referee, encounter, fighter, lurker):
    referee.post(
        reverse("attack", args=[encounter.slug]),
        {"actor": lurker.pk, "target": fighter.pk, "mode": "melee", "damage": "1d6"},
    )
    secret = LogEntry.objects.get(encounter=encounter)
    log = reverse("log", args=[encounter.slug])
    page = referee.get(log).content.decode()
    assert (
        'name="next"' in page and reverse("show_entry", args=[encounter.slug, secret.seq]) in page
    )
    response = referee.post(
        reverse("show_entry", args=[encounter.slug, secret.seq]), {"next": log + "?page=1"}
    )
    assert response.status_code == 302 and response["Location"] == log + "?page=1"
    shown = LogEntry.objects.filter(encounter=encounter, secret=False).get()
    assert shown.data["shown"] == secret.seq
