"""BECMI in real browsers: the referee's laptop in English creates a BECMI encounter; a
9th-level fighter, played from a Czech phone, attacks an ogre through the hit table and saves
vs Death Ray or Poison; both screens show each result live, each in its own language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_rounds import in_language
from tests.e2e.test_table import (
    ENCOUNTER_PAGE,
    add_character,
    add_monsters,
    combatant,
    fresh,
    give,
    join,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e


def create_becmi_encounter(referee: Page, name: str) -> str:
    referee.locator("#id_name").fill(name)
    referee.locator("#id_system").select_option("becmi")
    referee.get_by_role("button", name="Create the encounter").click()
    expect(referee).to_have_url(ENCOUNTER_PAGE)
    wait_until_live(referee)
    return referee.locator("a.join-link").get_attribute("href")


def test_a_fighter_of_level_9_attacks_an_ogre_and_saves_from_a_czech_phone(referee, phone):
    join_link = create_becmi_encounter(referee, "The Keep on the Borderlands")
    add_monsters(referee, 1, "Ogre", ac=5, hit_dice="4+1")
    add_character(referee, "Sir Kay", ac=2, hp=50, thac0=15, str_score=13)
    eva = phone(390, 844)
    join(eva, join_link, "Eva")
    give(referee, "Sir Kay", "Eva")
    in_language(eva, "cs")

    # THAC0 15 against AC 5 needs 10; STR +1: a natural 9 or more, 60 %, shown before the roll.
    row = combatant(eva, "Sir Kay")
    panel = swap_panel(eva, row.locator("a[href*='/becmi/attack/']"))
    panel.locator("#id_target").select_option(label="Ogre")
    expect(panel.locator("output.odds .odds-main")).to_contain_text("10+ · 60")
    panel.locator("#id_natural").fill("9")
    panel.locator("#id_damage").fill("1k8")
    panel.locator("#id_damage_dice").fill("2")
    swap_panel(eva, panel.locator("button.primary"))
    result = fresh(panel, ".result")
    expect(result).to_contain_text("Zásah!")
    hit = referee.locator("#log .entry.attack").first
    expect(hit).to_contain_text("Sir Kay attacks Ogre")
    expect(hit).to_contain_text("needs 10+")
    expect(hit).to_contain_text("Hit!")

    # A save vs Death Ray or Poison, by its Rules Cyclopedia name in each language.
    panel = swap_panel(eva, row.locator("a[href*='/becmi/save/'][href*='category=death']"))
    panel.locator("#id_natural").fill("15")
    swap_panel(eva, panel.locator("button.primary"))
    expect(fresh(panel, ".result")).to_contain_text("Paprsek smrti nebo jed")
    save = referee.locator("#log .entry.save").first
    expect(save).to_contain_text("Sir Kay: saving throw vs Death Ray or Poison")
