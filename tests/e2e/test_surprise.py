"""Surprise in real browsers: a surprised player's attack in the first round is refused on
their phone, and the odds said so before they tapped; the foes, not surprised, attack. And
an attack form never offers the attacker as its own target, whoever is chosen to attack."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .test_table import (
    MARK_STALE,
    a_goblin_fight,
    act_on,
    fresh,
    open_panel,
    settled,
    swap_panel,
)

pytestmark = pytest.mark.e2e

REFUSED = "Aldric is surprised and cannot act in the first round."


def test_a_surprised_players_attack_is_refused_on_their_phone(referee, phone):
    anna = phone()
    a_goblin_fight(referee, anna)

    # The party is caught napping: 1 on its d6, 6 on the foes'.
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("1")
    panel.locator("#id_foes_die").fill("6")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(anna.locator("#round")).to_contain_text("The party is surprised")

    # Anna's attack form says so before she rolls, and offers no attack on Aldric himself.
    attack = swap_panel(anna, act_on(anna, "Aldric").locator("a[href*='/attack/']"))
    expect(attack.locator("#id_target option")).to_have_text(["Goblin 1", "Goblin 2"])
    expect(attack.locator("output.odds")).to_have_text(REFUSED)
    attack.locator("#id_natural").fill("20")
    settled(anna)
    attack.evaluate(MARK_STALE)
    attack.get_by_role("button", name="Roll").click()
    expect(fresh(attack, "form").locator(".errors")).to_have_text(REFUSED)
    expect(anna.locator("#log")).not_to_contain_text("Aldric attacks")

    # The goblins were not surprised: their attack shows its odds and goes through.
    goblin = swap_panel(referee, act_on(referee, "Goblin 1").locator("a[href*='/attack/']"))
    expect(goblin.locator("output.odds")).to_have_text(re.compile(r"needs \d+\+ · [\d.]+%"))
    goblin.locator("#id_target").select_option(label="Aldric")
    goblin.locator("#id_natural").fill("2")
    swap_panel(referee, goblin.locator("button.primary"))
    expect(anna.locator("#log")).to_contain_text("Goblin 1 attacks Aldric")


def test_the_targets_follow_the_attacker_chosen_in_the_form(referee, phone):
    anna = phone()
    a_goblin_fight(referee, anna)
    attack = swap_panel(referee, act_on(referee, "Goblin 1").locator("a[href*='/attack/']"))
    targets = attack.locator("#id_target option")
    expect(targets).to_have_text(["Goblin 2", "Aldric"])
    attack.locator("#id_target").select_option(label="Goblin 2")
    # Goblin 2 is chosen to attack: it is no longer a target, and one of the other side is.
    settled(referee)
    attack.locator("#id_actor").select_option(label="Goblin 2")
    expect(targets).to_have_text(["Goblin 1", "Aldric"])
    expect(attack.locator("#id_target option:checked")).to_have_text("Aldric")
    expect(attack.locator("output.odds")).to_have_text(re.compile(r"needs \d+\+ · [\d.]+%"))
    attack.locator("#id_natural").fill("2")
    swap_panel(referee, attack.locator("button.primary"))
    expect(anna.locator("#log")).to_contain_text("Goblin 2 attacks Aldric")
