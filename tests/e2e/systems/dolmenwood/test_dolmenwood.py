"""Dolmenwood in real browsers: the referee's laptop in English creates a Dolmenwood
encounter; a player on a Ukrainian phone makes a skill check, a save vs Doom with WIS against
a spell and an attack on a target immune to ordinary weapons; the referee rolls a 2-in-6
chance; both screens show each result live, each in its own language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_rounds import in_language
from tests.e2e.test_table import (
    ENCOUNTER_PAGE,
    combatant,
    fresh,
    give,
    join,
    open_panel,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def create_dolmenwood_encounter(referee: Page, name: str) -> str:
    referee.locator("#id_name").fill(name)
    referee.locator("#id_system").select_option("dolmenwood")
    referee.get_by_role("button", name="Create the encounter").click()
    expect(referee).to_have_url(ENCOUNTER_PAGE)
    wait_until_live(referee)
    return referee.locator("a.join-link").get_attribute("href")


def add_hunter(referee: Page, name: str) -> None:
    """A Dolmenwood character: attack bonus, the five save targets, WIS, a skill sheet."""
    panel = open_panel(referee, "Add combatant")
    expect(panel.get_by_label("Doom")).to_be_visible()
    panel.locator("#id_name").fill(name)
    panel.locator("#id_side").select_option("party")
    panel.locator("#id_kind").select_option("character")
    panel.locator("#id_ac").fill("13")
    panel.locator("#id_hp_max").fill("9")
    panel.locator("#id_attack_bonus").fill("1")
    for field, value in zip(
        ("death", "wands", "paralysis", "breath", "spells"), (12, 13, 14, 15, 16), strict=True
    ):
        panel.locator(f"#id_save_{field}").fill(str(value))
    panel.locator("#id_wis_score").fill("16")
    panel.locator("#id_skills").fill("Listen 5/4, Tracking 4")
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text(f"Saved {name}.")
    expect(combatant(referee, name)).to_be_visible()


def add_wraith(referee: Page) -> None:
    """A foe immune to ordinary weapons."""
    panel = open_panel(referee, "Add combatant")
    panel.locator("#id_name").fill("Wraith")
    panel.locator("#id_side").select_option("foes")
    panel.locator("#id_kind").select_option("monster")
    panel.locator("#id_ac").fill("13")
    panel.locator("#id_hp_max").fill("20")
    panel.locator("#id_hit_dice").fill("4")
    panel.get_by_label("ordinary weapons").check()
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text("Saved Wraith.")


def roll_in_panel(page: Page, natural: int, **checks: bool):
    panel = page.locator("#panel")
    panel.locator("#id_natural").fill(str(natural))
    for name, checked in checks.items():
        panel.locator(f"#id_{name}").set_checked(checked)
    swap_panel(page, panel.locator("button.primary"))
    return fresh(panel, ".result")


def test_a_skill_check_and_a_doom_save_from_a_ukrainian_phone(referee, phone):
    join_link = create_dolmenwood_encounter(referee, "The Hag's glade")
    add_hunter(referee, "Wendeline")
    add_wraith(referee)
    anna = phone(390, 844)
    join(anna, join_link, "Anna")
    give(referee, "Wendeline", "Anna")
    in_language(anna, "uk")

    # Listen: Kindred 5, class 4, the better is used; the odds are on screen before the roll.
    row = combatant(anna, "Wendeline")
    panel = swap_panel(anna, row.locator("a[href*='/dw/skill/']"))
    expect(panel.locator("h2")).to_have_text("Перевірка навички")
    expect(panel.locator("output.odds .odds-main")).to_contain_text("4+ · 50")
    result = roll_in_panel(anna, 4)
    expect(result).to_contain_text("Слухання")
    expect(result).to_contain_text("Успіх")
    expect(referee.locator("#log .entry.skill").first).to_contain_text("Wendeline: Listen check")
    expect(referee.locator("#log .entry.skill").first).to_contain_text("Success")

    # A save vs Doom against a spell: WIS 16 adds 2, so 10 + 2 meets Doom 12.
    panel = swap_panel(anna, row.locator("a[href*='category=doom']"))
    expect(panel.get_by_label("Рятувальний кидок")).to_have_value("doom")
    result = roll_in_panel(anna, 10, magical=True)
    expect(result).to_contain_text("Загибель")
    expect(result).to_contain_text("МДР")
    doom = referee.locator("#log .entry.save").first
    expect(doom).to_contain_text("Wendeline: saving throw vs Doom")
    expect(doom).to_contain_text("+ 2 WIS")
    expect(doom).to_contain_text("Success")
    # The phone's own log says both in Ukrainian.
    expect(anna.locator("#log .entry.save").first).to_contain_text("Загибель")
    expect(anna.locator("#log .entry.skill").first).to_contain_text("Слухання")

    # An attack on the Wraith with an ordinary weapon: the form says why no damage will come.
    panel = swap_panel(anna, row.locator("a[href*='/dw/attack/']"))
    panel.locator("#id_target").select_option(label="Wraith")
    expect(panel.locator("output.odds")).to_contain_text("Wraith: імунітет до звичайної зброї")
    panel.locator("#id_damage").fill("1к8")
    result = roll_in_panel(anna, 18)
    expect(result).to_contain_text("Ушкоджень немає")
    hit = referee.locator("#log .entry.attack").first
    expect(hit).to_contain_text("Wraith is immune to ordinary weapons: no damage.")
    expect(combatant(referee, "Wraith").locator(".hp")).to_contain_text("20/20")

    # The referee's 2-in-6 chance, typed in from a die at the table.
    panel = open_panel(referee, "Chance roll")
    panel.locator("#id_kind").select_option("x_in_6")
    panel.locator("#id_chance").fill("2")
    expect(panel.locator("output.odds .odds-main")).to_contain_text("2 or less · 33.3")
    result = roll_in_panel(referee, 2)
    expect(result).to_contain_text("a 2-in-6 chance")
    chance = anna.locator("#log .entry.chance").first
    expect(chance).to_contain_text("шанс 2 з 6")
    expect(chance).to_contain_text("Успіх")
