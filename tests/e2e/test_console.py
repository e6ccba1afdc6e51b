"""The referee's console (issue 12) on a laptop at 1280×800: a dozen combatants, the action bar
of the one selected, the panel and the roll log beside them, all without scrolling."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import Locator, Page, expect

from .test_rounds import in_language, roll
from .test_table import (
    act_on,
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    fresh,
    join,
    open_panel,
    settled,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e

SCREEN = {"width": 1280, "height": 800}
CHARACTERS = ("Aldric", "Brina", "Cedric", "Dora")
MONSTERS = (*(f"Goblin {n}" for n in range(1, 7)), "Hobgoblin 1", "Hobgoblin 2")
SELECTED = re.compile(r"\bselected\b")


def a_dozen_combatants(referee: Page) -> str:
    """Four characters and eight monsters, made as a referee makes them; the join link."""
    referee.set_viewport_size(SCREEN)
    join_link = create_encounter(referee, "The goblin warren")
    for n, name in enumerate(CHARACTERS):
        add_character(referee, name, ac=4, hp=12 + n, thac0=17, str_score=13)
    add_monsters(referee, 6, "Goblin", ac=6, hit_dice="1-1")
    add_monsters(referee, 2, "Hobgoblin", ac=6, hit_dice="1+1")
    return join_link


def header_bottom(page: Page) -> float:
    box = page.locator("header.top").bounding_box()
    return box["y"] + box["height"]


def assert_on_screen(page: Page, thing: Locator) -> None:
    """Wholly inside the viewport and below the sticky header: seen without scrolling."""
    expect(thing).to_be_visible()
    box = thing.bounding_box()
    assert box is not None
    top, bottom = header_bottom(page), SCREEN["height"]
    assert top <= box["y"] and box["y"] + box["height"] <= bottom, (
        f"{thing} at y {box['y']:.0f}–{box['y'] + box['height']:.0f}, the screen {top:.0f}–{bottom}"
    )


def assert_top_on_screen(page: Page, thing: Locator) -> None:
    """Its top edge in the viewport below the header: seen, though it may go on below."""
    expect(thing).to_be_visible()
    box = thing.bounding_box()
    assert box is not None
    assert header_bottom(page) <= box["y"] < SCREEN["height"] - 16, f"{thing} at y {box['y']:.0f}"


def panel_heading(page: Page) -> Locator:
    return fresh(page.locator("#panel"), "h2")


def a_fight_with_initiative(referee: Page) -> None:
    """The round's section as it is most of the evening: its buttons and whose turn it is."""
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("5")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(panel_heading(referee)).to_have_text("Initiative")
    panel.locator("#id_party_die").fill("4")
    panel.locator("#id_foes_die").fill("2")
    roll(referee, panel)
    expect(referee.locator("#round")).to_contain_text("Round 1")


def test_a_dozen_combatants_their_action_bar_and_the_log_fit_a_laptop_screen(referee, phone):
    join_link = a_dozen_combatants(referee)
    join(phone(), join_link, "Anna")
    a_fight_with_initiative(referee)
    referee.reload()
    wait_until_live(referee)

    # Selected by a click on the name: its actions, the action bar, open under it alone.
    goblin = act_on(referee, "Goblin 3")
    expect(referee.locator("li.combatant .actions:visible")).to_have_count(1)
    attack = goblin.get_by_role("link", name=re.compile(r"^Attack"))
    expect(attack).to_have_attribute("aria-keyshortcuts", "a")
    expect(goblin.locator(".console-keys")).to_be_visible()
    for name in (*CHARACTERS, *MONSTERS):
        assert_on_screen(referee, combatant(referee, name).locator(".line"))
    for action in (attack, goblin.get_by_role("button", name="Remove")):
        assert_on_screen(referee, action)
    for button in referee.locator("#round .buttons > *").all():
        assert_on_screen(referee, button)
    assert_on_screen(referee, referee.locator("#log h2"))

    # By the keyboard: j and k move the selection, a opens the attack form beside the table.
    referee.keyboard.press("j")
    expect(combatant(referee, "Goblin 4")).to_have_class(SELECTED)
    expect(goblin).not_to_have_class(SELECTED)
    expect(combatant(referee, "Goblin 4").get_by_role("button", name="Remove")).to_be_visible()
    referee.keyboard.press("k")
    expect(goblin).to_have_class(SELECTED)
    settled(referee)
    referee.evaluate("window.stillThisPage = true")
    referee.keyboard.press("a")
    expect(panel_heading(referee)).to_have_text("Attack")
    panel = referee.locator("#panel")
    expect(panel.locator("#id_actor option:checked")).to_have_text("Goblin 3")
    assert referee.evaluate("window.stillThisPage"), "opened in the panel, not as a page"
    assert_on_screen(referee, panel_heading(referee))
    assert_on_screen(referee, panel.locator("button.primary"))  # Roll, however long the form
    panel_box, table_box = panel.bounding_box(), referee.locator("#foes").bounding_box()
    assert panel_box["x"] >= table_box["x"] + table_box["width"]  # beside the table, not over it
    assert_on_screen(referee, referee.locator("#log h2"))

    # Typed keys go to the form, not to the console: "2" in a field is not the second save.
    panel.locator("#id_target").select_option(label="Aldric")
    panel.locator("#id_damage").fill("")
    panel.locator("#id_damage").press_sequentially("2d4")
    expect(panel.locator("#id_damage")).to_have_value("2d4")
    expect(panel_heading(referee)).to_have_text("Attack")
    panel.locator("#id_natural").fill("20")
    swap_panel(referee, panel.locator("button.primary"))
    result = fresh(panel, ".result")
    expect(result).to_contain_text("Goblin 3 attacks Aldric")
    assert_on_screen(referee, result)
    expect(referee.locator("#log")).to_contain_text("Goblin 3 attacks Aldric")
    assert_top_on_screen(referee, referee.locator("#log .entry").first)  # the newest
    expect(goblin).to_have_class(SELECTED)  # the rows the roll re-rendered keep it

    # Escape closes the panel; the log has the whole column again.
    referee.locator("body").press("Escape")
    expect(panel.locator("h2")).to_have_count(0)
    expect(goblin.locator(".name")).to_be_focused()

    # The same screen in the longer words of Czech, Russian and Ukrainian.
    for language in ("cs", "ru", "uk"):
        referee.locator("#language-select").select_option(language)
        expect(referee.locator("html")).to_have_attribute("lang", language)
        expect(goblin).to_have_class(SELECTED)
        settled(referee)
        for name in (*CHARACTERS, *MONSTERS):
            assert_on_screen(referee, combatant(referee, name).locator(".line"))
        assert_on_screen(referee, goblin.locator(".actions .button").first)
        assert_on_screen(referee, referee.locator("#round .buttons > *").last)
        assert_on_screen(referee, referee.locator("#log h2"))


@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_a_letter_typed_after_a_key_opened_the_attack_form_never_changes_the_attacker(
    referee, language
):
    referee.set_viewport_size(SCREEN)
    create_encounter(referee, "The bandits' road")
    add_character(referee, "Nim", ac=5, hp=8, thac0=19, str_score=10)
    add_monsters(referee, 3, "Bandit", ac=7, hit_dice="1")
    with translation.override(language):  # the panels' headings, as this language says them
        attack, hit_points = gettext("Attack"), gettext("Damage and healing")
    if language != "en":
        in_language(referee, language)
    bandit = act_on(referee, "Bandit 3")
    name = bandit.locator(".line .name")
    panel = referee.locator("#panel")
    actor = panel.locator("#id_actor")
    settled(referee)

    # The form opens with the typing in a field that cannot say who acts, not in "Who".
    name.press("a")
    expect(panel_heading(referee)).to_have_text(attack)
    expect(actor.locator("option:checked")).to_have_text("Bandit 3")
    expect(actor).not_to_be_focused()
    expect(panel.locator(":focus")).to_have_count(1)
    # "n" would pick Nim in a focused select, or open the condition form as the console's key.
    referee.keyboard.press("n")
    expect(actor.locator("option:checked")).to_have_text("Bandit 3")
    expect(panel_heading(referee)).to_have_text(attack)

    # Esc closes the form from where the key left the typing, and the row has the focus again.
    referee.keyboard.press("Escape")
    expect(panel.locator("h2")).to_have_count(0)
    expect(name).to_be_focused()

    # From the page the keys work again; Esc closes the form from inside "Who" as well.
    referee.keyboard.press("a")
    expect(panel_heading(referee)).to_have_text(attack)
    actor.focus()
    referee.keyboard.press("Escape")
    expect(panel.locator("h2")).to_have_count(0)
    expect(name).to_be_focused()
    referee.keyboard.press("h")
    expect(panel_heading(referee)).to_have_text(hit_points)
    referee.keyboard.press("Escape")
    expect(panel.locator("h2")).to_have_count(0)


def test_the_selection_survives_a_change_made_elsewhere(referee):
    a_dozen_combatants(referee)
    act_on(referee, "Hobgoblin 1")
    # The referee's second tab (another window on the laptop) wounds a goblin.
    other = referee.context.new_page()
    other.set_viewport_size(SCREEN)
    other.goto(referee.url)
    wait_until_live(other)
    expect(combatant(other, "Hobgoblin 1")).not_to_have_class(SELECTED)  # each tab its own
    goblin = combatant(referee, "Goblin 2")
    unhurt = goblin.locator(".hp").inner_text()
    hp = swap_panel(other, act_on(other, "Goblin 2").get_by_role("link", name="HP ±"))
    hp.locator("#id_amount").fill("3")
    swap_panel(other, hp.get_by_role("button", name="Save"))

    expect(goblin.locator(".hp")).not_to_have_text(unhurt)  # live, without a reload
    hobgoblin = combatant(referee, "Hobgoblin 1")
    expect(hobgoblin).to_have_class(SELECTED)
    expect(hobgoblin.get_by_role("button", name="Remove")).to_be_visible()
    expect(goblin).not_to_have_class(SELECTED)
    expect(referee.locator("li.combatant .actions:visible")).to_have_count(1)
    # And after a reload, the same.
    referee.reload()
    wait_until_live(referee)
    expect(combatant(referee, "Hobgoblin 1")).to_have_class(SELECTED)


def test_the_join_block_is_open_until_a_player_has_joined(referee, phone):
    referee.set_viewport_size(SCREEN)
    join_link = create_encounter(referee, "The long hall")
    join_block = referee.locator("#referee-tools details.join")
    expect(join_block).to_have_attribute("open", "")
    expect(referee.get_by_role("img", name="QR code of the join link")).to_be_visible()

    join(phone(), join_link, "Anna")
    expect(referee.locator("#seats")).to_contain_text("Anna")
    referee.reload()
    wait_until_live(referee)
    expect(join_block).not_to_have_attribute("open", "")
    expect(referee.locator("a.join-link")).to_be_hidden()
    join_block.locator(":scope > summary").click()  # one click away
    expect(referee.locator("a.join-link")).to_be_visible()
    expect(referee.locator("a.join-link")).to_have_text(join_link)


def test_no_panel_opens_under_the_header(referee):
    a_dozen_combatants(referee)
    # Scrolled as far down as the page goes: the side column stays in view all the same.
    referee.mouse.wheel(0, 2000)

    def opened(control: Locator, heading: str | re.Pattern[str]) -> None:
        swap_panel(referee, control)
        expect(panel_heading(referee)).to_have_text(heading)
        assert_on_screen(referee, panel_heading(referee))
        assert_on_screen(referee, referee.locator("#log h2"))

    tools = referee.locator("#referee-tools")
    for name in ("Add combatant", "Add several monsters", "Free roll"):
        opened(tools.get_by_role("link", name=name, exact=True), name)
    settled(referee)
    referee.locator("#panel").evaluate(
        "panel => { for (const child of panel.children) child.dataset.stale = '' }"
    )
    tools.get_by_role("link", name="Bestiary", exact=True).click()
    expect(fresh(referee.locator("#panel"), ":is(h2, form)").first).to_be_visible()
    assert_on_screen(referee, referee.locator("#panel > :not([data-stale])").first)

    aldric = act_on(referee, "Aldric")
    for name, heading in (
        ("Attack", "Attack"),
        ("D: Death ray or poison", "Saving throw"),
        ("HP ±", "Damage and healing"),
        ("Condition", "Add a condition"),
        ("Edit", "Edit combatant"),
    ):
        opened(aldric.get_by_role("link", name=re.compile(rf"^{re.escape(name)}")), heading)

    # The round's own panels: starting the fight, then its initiative.
    opened(referee.locator("#round").get_by_role("link", name="Start a fight"), "Start a fight")
    panel = referee.locator("#panel")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("5")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(panel_heading(referee)).to_have_text("Initiative")
    assert_on_screen(referee, panel_heading(referee))
    opened(referee.locator("#round").get_by_role("link", name="Roll initiative"), "Initiative")


def test_on_a_tablet_the_console_is_one_column_and_the_panel_opens_in_view(referee):
    referee.set_viewport_size({"width": 820, "height": 1180})
    create_encounter(referee, "The ford")
    add_monsters(referee, 3, "Goblin", ac=6, hit_dice="1-1")
    goblin = act_on(referee, "Goblin 2")
    expect(referee.locator("li.combatant .actions:visible")).to_have_count(1)
    swap_panel(referee, goblin.get_by_role("link", name="Attack", exact=True))
    heading = panel_heading(referee)
    expect(heading).to_have_text("Attack")
    expect(heading).to_be_in_viewport()
    assert heading.bounding_box()["y"] >= header_bottom(referee)
    # The panel comes before the table's lists, under the round, as on the page before the console.
    panel, foes = referee.locator("#panel").bounding_box(), referee.locator("#foes").bounding_box()
    assert panel["y"] < foes["y"]


@pytest.mark.parametrize("system", ["dolmenwood", "becmi"])
def test_dolmenwood_and_becmi_rows_have_the_same_keys(referee, system):
    referee.set_viewport_size(SCREEN)
    referee.locator("#id_name").fill("The old mill")
    referee.locator("#id_system").select_option(system)
    referee.get_by_role("button", name="Create the encounter").click()
    wait_until_live(referee)
    add_monsters(referee, 2, "Goblin", ac=6 if system == "becmi" else 12, hit_dice="1")
    goblin = act_on(referee, "Goblin 2")
    keys = {
        "a": goblin.get_by_role("link", name="Attack", exact=True),
        "c": goblin.get_by_role("link", name="Check", exact=True),
        "h": goblin.get_by_role("link", name="HP ±", exact=True),
        "e": goblin.get_by_role("link", name="Edit", exact=True),
    }
    for key, link in keys.items():
        expect(link).to_have_attribute("aria-keyshortcuts", key)
    expect(goblin.locator(".saves .save")).to_have_count(5)
    for n in range(1, 6):
        expect(goblin.locator(".saves .save").nth(n - 1)).to_have_attribute(
            "aria-keyshortcuts", str(n)
        )
    settled(referee)
    referee.keyboard.press("1")
    expect(panel_heading(referee)).to_have_text("Saving throw")
    expect(referee.locator("#panel #id_actor option:checked")).to_have_text("Goblin 2")
    # A letter next goes nowhere that picks another actor ("G" would pick Goblin 1 in "Who").
    referee.keyboard.press("g")
    expect(referee.locator("#panel #id_actor option:checked")).to_have_text("Goblin 2")
    referee.keyboard.press("Escape")
    expect(referee.locator("#panel h2")).to_have_count(0)
    referee.keyboard.press("a")
    expect(panel_heading(referee)).to_have_text("Attack")
    referee.keyboard.press("g")
    expect(referee.locator("#panel #id_actor option:checked")).to_have_text("Goblin 2")
    referee.keyboard.press("Escape")
    expect(referee.locator("#panel h2")).to_have_count(0)
