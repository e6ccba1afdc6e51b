"""The table display in real browsers: a TV at 1920×1080 opened with the display link follows
the referee's laptop live, large enough to read across a room, with nothing to press and no
hidden fact; it passes axe in both themes, and fits a 1280×800 laptop too."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_accessibility import Audit, choose_theme
from .test_rounds import in_language, roll, round_button
from .test_table import (
    add_character,
    add_monsters,
    combatant,
    create_encounter,
    free_roll,
    fresh,
    open_panel,
    swap_panel,
    wait_until_live,
)

pytestmark = pytest.mark.e2e

TV = {"viewport": {"width": 1920, "height": 1080}}
DISPLAY_PAGE = re.compile(r"/e/[^/]+/display/$")


def open_display(referee: Page, new_context, **options) -> Page:
    """The referee hands the display link to the TV's browser, which opens it."""
    link = referee.locator(".display-link a").get_attribute("href")
    tv = new_context(**(TV | options)).new_page()
    tv.goto(link)
    expect(tv).to_have_url(DISPLAY_PAGE)  # the token traded for a mark, gone from the address
    wait_until_live(tv)
    return tv


def assert_nothing_to_press(tv: Page) -> None:
    """Only the header's language and theme menus, which change this screen alone."""
    shown = tv.locator("main :is(a, button, input, select, textarea, form):visible")
    expect(shown).to_have_count(0)


def assert_fits_the_screen(tv: Page) -> None:
    """No sideways scrolling: a TV has no one to scroll it."""
    assert tv.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def left_of(page: Page, first: str, second: str) -> bool:
    return page.locator(first).bounding_box()["x"] < page.locator(second).bounding_box()["x"]


def font_px(locator) -> float:
    return float(locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


def test_the_display_follows_the_table_live_with_no_hidden_fact(referee, new_context):
    create_encounter(referee, "The goblin cave")
    add_character(referee, "Aldric", ac=4, hp=12, thac0=17, str_score=13)
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    add_monsters(referee, 1, "Lurking kobold", ac=7, hit_dice="1-1", hidden=True)
    tv = open_display(referee, new_context)
    expect(combatant(tv, "Aldric")).to_be_visible()
    expect(combatant(tv, "Goblin 2").locator(".health")).to_have_text("unhurt")
    expect(tv.locator("#foes")).not_to_contain_text("HP")  # foes' hit points: not shown
    assert_nothing_to_press(tv)
    assert_fits_the_screen(tv)

    # The referee's laptop: a secret roll, a fight started, initiative, and a public roll.
    free_roll(referee, "Ambush check", secret=True)
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("4")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    expect(tv.locator("#round h2")).to_have_text("Round 1")
    panel.locator("#id_party_die").fill("2")
    panel.locator("#id_foes_die").fill("5")
    roll(referee, panel)
    # The side acting now is first on the screen, and edged.
    expect(tv.locator("#round .acting")).to_have_text("The foes act.")
    expect(tv.locator("#foes")).to_have_css("border-top-width", "2px")
    assert left_of(tv, "#foes", "#party")
    round_button(referee, "Next side")
    expect(tv.locator("#round .acting")).to_have_text("The party acts.")
    expect(tv.locator("#party")).to_have_css("border-top-width", "2px")
    assert left_of(tv, "#party", "#foes")
    free_roll(referee, "Torches gutter", dice="1d20")

    latest = tv.locator("#log-entries > .entry").first
    expect(latest).to_contain_text("Torches gutter")
    expect(tv.locator("#log")).to_contain_text("The foes act first.")
    # Large, and the newest the largest: read across a room.
    assert font_px(latest) >= 36, font_px(latest)
    assert font_px(tv.locator("#log-entries > .entry").nth(1)) >= 26
    assert font_px(combatant(tv, "Aldric").locator(".name")) >= 30
    assert font_px(tv.locator("#round .acting")) >= 36
    # What the laptop saw and the TV never did: the hidden kobold and the secret roll.
    expect(referee.locator("#log")).to_contain_text("Ambush check")
    expect(combatant(referee, "Lurking kobold")).to_be_visible()
    html = tv.content()
    assert "Lurking kobold" not in html and "Ambush check" not in html
    assert_nothing_to_press(tv)

    # Reloaded (the TV was switched off and on): the same, and live again.
    tv.reload()
    wait_until_live(tv)
    expect(tv.locator("#log-entries > .entry").first).to_contain_text("Torches gutter")
    free_roll(referee, "Rope holds", dice="1d6")
    expect(tv.locator("#log-entries > .entry").first).to_contain_text("Rope holds")
    html = tv.content()
    assert "Lurking kobold" not in html and "Ambush check" not in html


def test_the_display_speaks_its_own_language_and_fits_a_laptop(referee, new_context):
    create_encounter(referee, "The crypt")
    add_character(referee, "Bára", ac=4, hp=12, thac0=17, str_score=13)
    add_monsters(referee, 1, "Ghoul", ac=6, hit_dice="2*")
    add_monsters(referee, 12, "Skeleton", ac=7, hit_dice="1")
    laptop = open_display(referee, new_context, viewport={"width": 1280, "height": 800})
    # Thirteen foes: in two columns, the last one still on the screen.
    last = combatant(laptop, "Skeleton 12").bounding_box()
    assert last["y"] + last["height"] <= 800, last
    in_language(laptop, "cs")
    expect(laptop.locator("#party h2")).to_have_text("Družina")
    expect(combatant(laptop, "Ghoul").locator(".health")).to_have_text("bez zranění")
    free_roll(referee, "Wandering monsters", dice="1d6")
    expect(laptop.locator("#log-entries > .entry").first).to_contain_text("Wandering monsters")
    expect(referee.locator("#party h2")).to_have_text("Party")  # the referee's stays English
    # Landscape: party, foes and the log side by side, nothing off the screen's edge.
    party, foes, log = (laptop.locator(s).bounding_box() for s in ("#party", "#foes", "#log"))
    assert party["x"] < foes["x"] < log["x"]
    assert_fits_the_screen(laptop)
    assert_nothing_to_press(laptop)


def test_new_links_take_the_display_off_the_screen(referee, new_context):
    create_encounter(referee, "The vault")
    add_monsters(referee, 1, "Skeleton", ac=7, hit_dice="1")
    tv = open_display(referee, new_context)
    expect(combatant(tv, "Skeleton")).to_be_visible()
    referee.locator("summary", has_text="New links").click()
    referee.get_by_role("button", name="Replace the links").click()
    wait_until_live(referee)
    # The display's socket is closed for good; the page reloads and finds nothing.
    expect(tv.locator("body")).to_contain_text("Nothing here for you")
    expect(tv.locator("body")).not_to_contain_text("Skeleton")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_display_passes_axe_in_both_themes(theme, referee, new_context):
    audit = Audit(theme)
    create_encounter(referee, "The wyvern's nest")
    add_character(referee, "Bára", ac=4, hp=12, thac0=17, str_score=13)
    add_monsters(referee, 2, "Goblin", ac=6, hit_dice="1-1")
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("4")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    free_roll(referee, "Torches gutter", dice="1d20")
    tv = open_display(referee, new_context)
    expect(tv.locator("#log-entries > .entry").first).to_contain_text("Torches gutter")
    choose_theme(tv, theme)
    audit.check(tv, "table display")
    audit.assert_clean()
