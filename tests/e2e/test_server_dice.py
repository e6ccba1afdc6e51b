"""Server dice anyone at the table can verify (issue 33), in real browsers: a player's phone sees
the seal before the roll and its dice as they happen, and once the seed is revealed (the fight's
end, or the referee's "Reveal now") checks every die itself, live; the dice page shows what was
verified and, when a stored die was changed afterwards, which die and what this phone saw; all of
it in every language, with nothing fetched from anywhere but the Fray server."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from .test_rounds import in_language
from .test_table import (
    MARK_STALE,
    a_goblin_fight,
    fresh,
    open_attack,
    open_panel,
    settled,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e

# What the catalogues say, context "server dice" (combat/locale/*/LC_MESSAGES/django.po).
SAID = {
    "en": {
        "all verified": "Every server die verified.",
        "verified": "verified",
        "sealed": "sealed",
        "your value": "your value",
        "Server dice sealed": "Server dice sealed",
        "Check": "Check",
        "Back to the encounter": "Back to the encounter",
    },
    "cs": {
        "all verified": "Všechny kostky serveru ověřeny.",
        "verified": "ověřeno",
        "sealed": "zapečetěno",
        "your value": "vaše hodnota",
        "Server dice sealed": "Kostky serveru zapečetěny",
        "Check": "Ověřit",
        "Back to the encounter": "Zpět ke střetnutí",
    },
    "ru": {
        "all verified": "Все кости сервера проверены.",
        "verified": "проверено",
        "sealed": "запечатано",
        "your value": "ваше значение",
        "Server dice sealed": "Кости сервера запечатаны",
        "Check": "Проверить",
        "Back to the encounter": "Вернуться к столкновению",
    },
    "uk": {
        "all verified": "Усі кості сервера перевірено.",
        "verified": "перевірено",
        "sealed": "запечатано",
        "your value": "ваше значення",
        "Server dice sealed": "Кості сервера запечатано",
        "Check": "Перевірити",
        "Back to the encounter": "Назад до сутички",
    },
}
# How each language writes a die (rules/dice.py): d20, k20, к20.
DIE_LETTER = {"en": "d", "cs": "k", "ru": "к", "uk": "к"}
ENCOUNTER_SLUG = re.compile(r"/e/([^/]+)/")


# --- What the people at the table do --------------------------------------------------------


def start_a_fight(referee: Page) -> None:
    """The referee starts a fight, surprise rolled at the table (typed dice: no server die),
    and leaves the initiative for later: the round card offers "End the fight"."""
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("3")
    panel.locator("#id_foes_die").fill("3")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    expect(referee.locator("#round").get_by_role("link", name="End the fight")).to_be_visible()


def end_the_fight(referee: Page) -> None:
    """The round card's "End the fight", its summary, and "Share and end the fight"."""
    panel = swap_panel(referee, referee.locator("#round").get_by_role("link", name="End the fight"))
    expect(fresh(panel, "h2")).to_have_text("End of the fight")
    settled(referee)
    panel.evaluate(MARK_STALE)
    panel.get_by_role("button", name="Share and end the fight").click()
    expect(fresh(panel, ".result")).to_contain_text("The fight is over")


def attack_with_server_dice(
    player: Page, period: int = 1, roll: int = 1, modifier: int = 0, target: str = "Goblin 1"
) -> Locator:
    """Aldric attacks ``target`` with no die typed in: the server rolls the d20 (and the d6 of
    the damage on a hit), as roll ``roll`` of ``period``. Returns the attack's mark in the
    player's log, its dice shown."""
    panel = open_attack(player, "Aldric", target)
    if modifier:
        panel.locator("#id_modifier").fill(str(modifier))
    expect(panel.locator("#id_natural")).to_have_value("")
    panel.locator("#id_damage").fill("1d6")
    expect(panel.locator("#id_damage_dice")).to_have_value("")
    swap_panel(player, panel.locator("button.primary"))
    expect(fresh(panel, ".result").locator(".entry.attack")).to_be_visible()
    mark = player.locator(f"#log .entry.attack .dice-proof[data-p='{period}'][data-r='{roll}']")
    expect(mark).to_have_count(1)
    expect(mark.locator(".die").first).to_have_text(re.compile(r"^d20\s\d{1,2}$"))
    return mark


def dice_of(mark: Locator) -> list[tuple[int, int]]:
    """The mark's dice as (sides, value): what the log showed."""
    data = mark.get_attribute("data-d") or ""
    return [(int(s), int(v)) for s, v in (pair.split(":") for pair in data.split())]


def shown_dice(dice: list[tuple[int, int]], letter: str = "d") -> list[str]:
    return [f"{letter}{sides} {value}" for sides, value in dice]


def slug_of(page: Page) -> str:
    found = ENCOUNTER_SLUG.search(page.url)
    assert found, page.url
    return found.group(1)


def a_sealed_roll(referee: Page, anna: Page, modifier: int = 0) -> Locator:
    """Anna's phone at a fight with Aldric; her attack with server dice, sealed, in her log."""
    a_goblin_fight(referee, anna)
    start_a_fight(referee)
    seal = anna.locator("#dice-seal")
    expect(seal).to_be_visible()  # before the roll, the seal it will be checked against
    expect(seal).to_have_attribute("data-period", "1")
    expect(seal.locator("code")).to_have_text(re.compile(r"^[0-9a-f]{16}$"))  # the seal
    mark = attack_with_server_dice(anna, modifier=modifier)
    dice = dice_of(mark)
    assert dice and dice[0][0] == 20 and 1 <= dice[0][1] <= 20, dice
    # The phone's own randomness went with the action: 8 hex digits (32 bits).
    expect(mark).to_have_attribute("data-v", re.compile(r"^[0-9a-f]{8}$"))
    expect(mark.locator(".die")).to_have_text(shown_dice(dice))
    expect(mark.locator(".die-state")).to_have_text("sealed")
    expect(mark).not_to_have_attribute("data-state", re.compile(r"."))
    return mark


def every_mark_verified(page: Page, verified: str = "verified") -> None:
    marks = page.locator(".dice-proof")
    assert marks.count() >= 1
    for mark in marks.all():
        expect(mark).to_have_attribute("data-state", "verified")
        expect(mark.locator(".die-state")).to_have_text(f"✓ {verified}")
        expect(mark.locator(".die.failed")).to_have_count(0)


def open_dice_page(page: Page) -> Locator:
    """The seal's link under the round card: the dice page, its check done."""
    page.locator("#dice-seal a").click()
    expect(page).to_have_url(re.compile(r"/e/[^/]+/dice/$"))
    summary = page.locator("#dice-check .dice-summary")
    expect(summary).to_have_attribute("data-state", re.compile(r"^(verified|committed|failed)$"))
    return summary


def database(server_log: Path) -> Path:
    """The e2e server's own SQLite file, in its data folder (conftest: FRAY_DATA_DIR)."""
    found = server_log.parent / "fray.sqlite3"
    assert found.exists(), list(server_log.parent.iterdir())
    return found


def tamper(server_log: Path, slug: str, roll: int, index: int, value: int) -> None:
    """Change one server die of a stored roll, as someone with the database file could."""
    with closing(sqlite3.connect(database(server_log), timeout=30)) as db, db:
        rows = db.execute(
            "SELECT entry.id, entry.proof FROM combat_logentry AS entry"
            " JOIN combat_encounter AS encounter ON entry.encounter_id = encounter.id"
            " WHERE encounter.slug = ? AND json_extract(entry.proof, '$.public.roll') = ?",
            (slug, roll),
        ).fetchall()
        assert len(rows) == 1, rows
        entry, stored = rows[0]
        proof = json.loads(stored)
        proof["public"]["dice"][index][1] = value
        db.execute("UPDATE combat_logentry SET proof = ? WHERE id = ?", (json.dumps(proof), entry))


def only_the_server(page: Page, server_url: str, refused: list[str]) -> None:
    """Every request of the page's browser to anywhere but the Fray server is refused, and
    its address put in ``refused``."""
    ours = urlsplit(server_url).netloc

    def gate(route: Route) -> None:
        url = route.request.url
        if urlsplit(url).netloc == ours:
            route.continue_()
        else:
            refused.append(url)
            route.abort("blockedbyclient")

    page.context.route("**/*", gate)


# --- The stories ----------------------------------------------------------------------------


def test_a_players_server_roll_is_sealed_then_verified_live_when_the_fight_ends(referee, phone):
    anna = phone()
    mark = a_sealed_roll(referee, anna)
    dice = dice_of(mark)
    sealed = anna.locator("#dice-seal code").inner_text()

    end_the_fight(referee)

    # Anna's phone, never reloaded: the new seal arrives live and her phone checks the dice.
    seal = anna.locator("#dice-seal")
    expect(seal).to_have_attribute("data-period", "2")
    expect(seal.locator("code")).not_to_have_text(sealed)
    every_mark_verified(anna)
    expect(mark.locator(".die")).to_have_text(shown_dice(dice))
    expect(mark.locator(".die.verified")).to_have_count(len(dice))

    summary = open_dice_page(anna)
    expect(summary).to_have_text("Every server die verified.")
    expect(summary).to_have_attribute("data-state", "verified")
    rolls = anna.locator("#dice-check li.dice-roll")
    expect(rolls).to_have_count(1)
    expect(rolls.first).to_have_class(re.compile(r"\bverified\b"))
    expect(rolls.first.locator(".die")).to_have_text([f"{d} ✓" for d in shown_dice(dice)])
    expect(rolls.first.locator(".mine")).to_have_text("your value")
    expect(rolls.first.locator(".problem")).to_have_count(0)


def test_a_die_changed_in_the_database_after_the_reveal_shows_as_not_matching(
    referee, phone, server_log
):
    anna = phone()
    # A modifier that all but always hits: a d20 and the damage's d6, so that the die changed
    # (the first) has one after it that still matches.
    mark = a_sealed_roll(referee, anna, modifier=10)
    dice = dice_of(mark)
    end_the_fight(referee)
    every_mark_verified(anna)  # the phone has seen the roll, and remembers its dice

    # Someone with the database file changes the d20 afterwards, to another face of it.
    sides, rolled = dice[0]
    changed = rolled % sides + 1
    tamper(server_log, slug_of(anna), roll=1, index=0, value=changed)
    tampered = [(sides, changed), *dice[1:]]

    # The encounter page shows the stored dice, and the phone works them out again.
    anna.reload()
    mark = anna.locator("#log .entry.attack .dice-proof")
    expect(mark).to_have_attribute("data-d", " ".join(f"{s}:{v}" for s, v in tampered))
    expect(mark).to_have_attribute("data-state", "failed")
    expect(mark.locator(".die-state")).to_have_text("✗ does not match")
    expect(mark.locator(".die.failed")).to_have_count(1)
    expect(mark.locator(".die.failed")).to_have_text(f"d20 {changed}")
    expect(mark.locator(".die.verified")).to_have_count(len(dice) - 1)

    summary = open_dice_page(anna)
    expect(summary).to_have_attribute("data-state", "failed")
    expect(summary).to_have_text("0 verified, 0 sealed, 1 not matching.")
    roll = anna.locator("#dice-check li.dice-roll")
    expect(roll).to_have_count(1)
    expect(roll).to_have_class(re.compile(r"\bfailed\b"))
    expect(roll.locator(".die.failed")).to_have_count(1)
    expect(roll.locator(".die.failed")).to_have_text(f"d20 {changed} ✗")
    problems = roll.locator("p.problem")
    expect(problems).to_have_text(
        [
            f"d20 #1: the log shows {changed}, the seed gives {rolled}",
            "This browser saw other dice for this roll: " + ", ".join(shown_dice(dice)) + ".",
        ]
    )


def test_the_dice_page_checks_in_every_language_with_nothing_but_the_server(
    referee, phone, server_url
):
    anna = phone()
    refused: list[str] = []
    only_the_server(anna, server_url, refused)
    only_the_server(referee, server_url, refused)
    mark = a_sealed_roll(referee, anna)
    dice = dice_of(mark)
    end_the_fight(referee)
    every_mark_verified(anna)

    for language in ("en", "cs", "ru", "uk"):
        said = SAID[language]
        letter = DIE_LETTER[language]
        if language != "en":
            in_language(anna, language)
        # The encounter page, loaded anew in this language: the seal and the marks in it.
        expect(anna.locator("#dice-seal")).to_contain_text(said["Server dice sealed"])
        expect(anna.locator("#dice-seal a")).to_have_text(said["Check"])
        every_mark_verified(anna, said["verified"])
        expect(anna.locator("#log .dice-proof .die")).to_have_text(shown_dice(dice, letter))

        summary = open_dice_page(anna)
        expect(anna.locator("html")).to_have_attribute("lang", language)
        expect(summary).to_have_text(said["all verified"])
        expect(summary).to_have_attribute("data-state", "verified")
        roll = anna.locator("#dice-check li.dice-roll")
        expect(roll).to_have_count(1)
        expect(roll.locator(".die")).to_have_text([f"{d} ✓" for d in shown_dice(dice, letter)])
        expect(roll.locator(".die-state")).to_have_text(said["verified"])
        expect(roll.locator(".mine")).to_have_text(said["your value"])
        anna.get_by_role("link", name=said["Back to the encounter"]).click()
        expect(anna).to_have_url(re.compile(r"/e/[^/]+/$"))
        wait_until_live(anna)  # its scripts at work: the language menu sends what it chooses

    assert refused == [], refused


def test_the_referees_new_seal_reaches_the_phone_live_and_the_old_rolls_verify(referee, phone):
    anna = phone()
    a_goblin_fight(referee, anna)
    start_a_fight(referee)  # the referee reveals the seed in the middle of a fight
    seal = anna.locator("#dice-seal")
    expect(seal).to_be_visible()
    expect(seal).to_have_attribute("data-period", "1")
    old = seal.locator("code").inner_text()
    expect(referee.locator("#dice-seal code").first).to_have_text(old)
    mark = attack_with_server_dice(anna)
    dice = dice_of(mark)
    expect(mark.locator(".die-state")).to_have_text("sealed")

    summary = open_dice_page(referee)
    expect(summary).to_have_attribute("data-state", "committed")
    expect(summary).to_have_text("0 verified, 1 sealed, 0 not matching.")
    referee.get_by_role("button", name="Reveal now and seal a new seed").click()
    expect(referee).to_have_url(re.compile(r"/e/[^/]+/dice/$"))
    expect(summary).to_have_text("Every server die verified.")

    # Anna's phone, never reloaded: the new seal, then her dice checked against the old one.
    expect(seal).to_have_attribute("data-period", "2")
    expect(seal.locator("code")).not_to_have_text(old)
    expect(seal.locator("code")).to_have_text(re.compile(r"^[0-9a-f]{16}$"))
    every_mark_verified(anna)
    expect(mark.locator(".die")).to_have_text(shown_dice(dice))

    # The next roll is sealed by the new seed, and waits for its reveal.
    latest = attack_with_server_dice(anna, period=2, roll=1, target="Goblin 2")
    expect(latest.locator(".die-state")).to_have_text("sealed")
    expect(latest).not_to_have_attribute("data-state", re.compile(r"."))
    expect(anna.locator("#log .dice-proof[data-p='1']")).to_have_attribute("data-state", "verified")
