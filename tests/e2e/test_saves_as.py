"""A monster that saves as a class, in a real browser: the referee types what its stat block
says ("F3") on a phone and sees the five saves filled before saving."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .test_characters import SAVE_KEYS
from .test_table import create_encounter, fresh, open_panel, swap_panel

pytestmark = pytest.mark.e2e


def type_saves_as(panel, text: str) -> None:
    field = panel.locator("#id_saves_as")
    field.fill(text)
    field.blur()  # leaving the field changes it, as a tap elsewhere on a phone does


def test_a_referee_types_what_a_monster_saves_as_and_its_saves_fill(phone):
    referee: Page = phone()
    referee.goto("/")
    create_encounter(referee, "The toll bridge")
    panel = open_panel(referee, "Add combatant")
    panel.locator("#id_name").fill("Bandit captain")
    panel.locator("#id_ac").fill("6")
    panel.locator("#id_hp_max").fill("12")
    panel.locator("#id_hit_dice").fill("2")
    type_saves_as(panel, "F3")
    for key, value in zip(SAVE_KEYS, (12, 13, 14, 15, 16), strict=True):
        expect(panel.locator(f"#id_save_{key}")).to_have_value(str(value))
    panel.locator("#id_save_spells").fill("14")  # a charm against spells, typed over
    type_saves_as(panel, "Fighter 7")
    for key, value in zip(SAVE_KEYS, (8, 9, 10, 10, 14), strict=True):
        expect(panel.locator(f"#id_save_{key}")).to_have_value(str(value))
    swap_panel(referee, panel.get_by_role("button", name="Save"))
    expect(fresh(panel, ".message")).to_have_text("Saved Bandit captain.")
