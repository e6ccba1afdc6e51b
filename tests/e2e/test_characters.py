"""Characters in a real browser: built by class and level on a phone, and notes a player keeps
on their phone that the referee sees live and the other players never do."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from .test_table import (
    SAVE_KEYS,
    act_on,
    add_character,
    combatant,
    create_encounter,
    fresh,
    give,
    join,
    open_panel,
    swap_panel,
)

pytestmark = pytest.mark.e2e


def expect_filled(panel: Locator, thac0: int, saves: tuple[int, ...]) -> None:
    expect(panel.locator("#id_thac0")).to_have_value(str(thac0))
    for key, value in zip(SAVE_KEYS, saves, strict=True):
        expect(panel.locator(f"#id_save_{key}")).to_have_value(str(value))


def choose_level(panel: Locator, level: int) -> None:
    field = panel.locator("#id_level")
    field.fill(str(level))
    field.blur()  # leaving the field changes it, as a tap elsewhere on a phone does


def test_a_referee_builds_a_character_by_class_and_level_on_a_phone(phone):
    referee: Page = phone()
    referee.goto("/")
    create_encounter(referee, "The crypt")
    panel = open_panel(referee, "Add combatant")
    panel.locator("#id_name").fill("Aldric")
    panel.locator("#id_side").select_option("party")
    panel.locator("#id_ac").fill("4")
    panel.locator("#id_hp_max").fill("9")
    panel.locator("#id_char_class").select_option("fighter")
    choose_level(panel, 3)
    # Nothing is filled for a monster; once it is a character, its class's values come.
    expect(panel.locator("#id_thac0")).to_have_value("")
    panel.locator("#id_kind").select_option("character")
    expect_filled(panel, 19, (12, 13, 14, 15, 16))
    choose_level(panel, 4)
    expect_filled(panel, 17, (10, 11, 12, 13, 14))
    # A value the referee types over stays when the level changes again.
    panel.locator("#id_save_spells").fill("9")
    choose_level(panel, 7)
    expect_filled(panel, 14, (8, 9, 10, 10, 9))
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text("Saved Aldric.")
    row = act_on(referee, "Aldric")
    expect(row.locator(".sheet .class")).to_have_text("Fighter 7")
    # Edited later: the level moves on, THAC0 and the filled saves with it.
    panel = swap_panel(referee, row.get_by_role("link", name="Edit"))
    expect_filled(panel, 14, (8, 9, 10, 10, 9))
    choose_level(panel, 10)
    expect_filled(panel, 12, (6, 7, 8, 8, 9))
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(combatant(referee, "Aldric").locator(".sheet .class")).to_have_text("Fighter 10")
    assert referee.evaluate("document.documentElement.scrollWidth") <= 390


def test_notes_a_player_keeps_reach_the_referee_live_and_never_the_other_player(referee, phone):
    join_link = create_encounter(referee, "The goblin cave")
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    anna, boris = phone(), phone()
    join(anna, join_link, "Anna")
    join(boris, join_link, "Boris")
    give(referee, "Aldric", "Anna")
    panel = swap_panel(anna, combatant(anna, "Aldric").get_by_role("link", name="Notes"))
    panel.locator("#id_notes").fill("Arrows: 14, torches: 2")
    swap_panel(anna, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text("Saved Aldric.")
    expect(combatant(anna, "Aldric").locator(".notes")).to_contain_text("Arrows: 14")
    expect(combatant(referee, "Aldric").locator(".notes")).to_contain_text("Arrows: 14")
    # Boris's page has heard of the same change (its number is the referee's), without them.
    seq = referee.locator("#live-seq").get_attribute("data-seq")
    expect(boris.locator("#live-seq")).to_have_attribute("data-seq", seq)
    expect(combatant(boris, "Aldric")).to_be_visible()
    expect(combatant(boris, "Aldric").locator(".notes")).to_have_count(0)
    assert "Arrows: 14" not in boris.content()
