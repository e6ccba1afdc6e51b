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
    act_on,
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
    # The display shares the seatless players' rendering; a seat's "the referee will give you
    # a character" is not the table's to read (display.css).
    expect(laptop.locator("#party .hint.waiting")).to_be_hidden()
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


# --- Twelve at a glance (issue 31): "two combatants per column fit; the bleeding thief and a
# bandit were below the edge of a screen no one can scroll" -------------------------------------

SCREENS = [(1920, 1080), (1280, 800)]


def a_table_of_twelve(referee: Page) -> None:
    """Hit locations on; four in the party, eight bandits; a fight under way; a wound and
    a few rolls in the log."""
    from .test_zones import turn_on_hit_locations

    create_encounter(referee, "The bandits' ford")
    turn_on_hit_locations(referee)
    for name in ("Aldric", "Bára", "Thief of Lysander", "Wendeline"):
        add_character(referee, name, ac=4, hp=40, thac0=17, str_score=13)
    add_monsters(referee, 8, "Bandit", ac=7, hit_dice="2")
    panel = open_panel(referee, "Start a fight")
    panel.locator("#id_party_die").fill("5")
    panel.locator("#id_foes_die").fill("4")
    swap_panel(referee, panel.get_by_role("button", name="Start"))
    expect(fresh(panel, "h2")).to_have_text("Initiative")
    for name in ("Thief of Lysander", "Bandit 8"):
        condition = swap_panel(referee, act_on(referee, name).get_by_role("link", name="Condition"))
        condition.locator("#id_kind").select_option("asleep")
        condition.locator("#id_duration").fill("2")
        swap_panel(referee, condition.get_by_role("button", name="Add"))
        expect(combatant(referee, name).locator(".condition")).to_be_visible()
    free_roll(referee, "Torches gutter", dice="1d20")
    free_roll(referee, "Rope holds", dice="1d6")


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def everyone_on_screen(tv: Page, width: int, height: int) -> list[str]:
    """The names of every combatant shown whose box lies wholly inside the screen."""
    return tv.evaluate(
        """([width, height]) => [...document.querySelectorAll('.display li.combatant')]
            .filter(li => li.getClientRects().length)
            .filter(li => { const r = li.getBoundingClientRect();
                return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= height
                    && r.right <= width; })
            .map(li => li.querySelector('.name').textContent.trim())""",
        [width, height],
    )


@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_twelve_with_hit_locations_fit_the_screen_readable_across_a_room(
    width, height, referee, new_context
):
    a_table_of_twelve(referee)
    tv = open_display(referee, new_context, viewport={"width": width, "height": height})
    expect(tv.locator(".display li.combatant")).to_have_count(12)
    expect(combatant(tv, "Bandit 8").locator(".body-diagram svg")).to_be_visible()
    expect(tv.locator("#log-entries > .entry").first).to_contain_text("Rope holds")
    shown = everyone_on_screen(tv, width, height)
    assert len(shown) == 12, shown  # every one of them, nothing below the edge
    expect(tv.locator(".display .pager:visible")).to_have_count(0)  # no paging needed
    assert tv.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert_fits_the_screen(tv)
    # Large type: names, health words, the newest roll; the body's figures where they fit.
    scale = width / 1920
    name = combatant(tv, "Thief of Lysander").locator(".name")
    assert font_px(name) >= 26 * scale, font_px(name)
    assert font_px(combatant(tv, "Bandit 3").locator(".health")) >= 22 * scale
    assert font_px(tv.locator("#log-entries > .entry").first) >= 30 * scale
    for name in ("Thief of Lysander", "Bandit 8"):  # a condition, whole, in its card
        card, asleep = combatant(tv, name), combatant(tv, name).locator(".condition")
        expect(asleep).to_contain_text("asleep")
        assert inside(asleep.bounding_box(), card.bounding_box()), name
        assert font_px(asleep) >= 22 * scale, font_px(asleep)
    figures = tv.evaluate(
        """() => [...document.querySelectorAll('.display .body-diagram svg')].map(svg => {
            const scale = svg.getBoundingClientRect().height / svg.viewBox.baseVal.height;
            return parseFloat(getComputedStyle(svg).fontSize) * scale; })"""
    )
    assert len(figures) == 12 and min(figures) >= 12 * max(scale, 1), figures


def test_more_than_fit_page_by_themselves(referee, new_context):
    """Twenty bandits: the foes are shown a page at a time, the pages turning by themselves,
    each saying which it is; every bandit shown in turn, none ever past the screen's edge."""
    create_encounter(referee, "The bandits' camp")
    from .test_zones import turn_on_hit_locations

    turn_on_hit_locations(referee)
    add_character(referee, "Aldric", ac=4, hp=40, thac0=17, str_score=13)
    add_monsters(referee, 24, "Bandit", ac=7, hit_dice="2")
    tv = open_display(referee, new_context, viewport={"width": 1280, "height": 800})
    pager = tv.locator("#foes .pager")
    expect(pager).to_have_text(re.compile(r"^page 1 of [23]$"))
    pages = int(pager.inner_text().rsplit(" ", 1)[1])
    cards = tv.locator(".display li.combatant:visible")
    seen: list[set[str]] = []
    for page in range(1, pages + 1):
        expect(pager).to_have_text(f"page {page} of {pages}")
        shown = everyone_on_screen(tv, 1280, 800)
        assert len(shown) == cards.count() <= 16, shown  # a page: each card whole on screen
        seen.append(set(shown) - {"Aldric"})
    bandits = [name for page in seen for name in page]
    assert sorted(bandits) == sorted(f"Bandit {n}" for n in range(1, 25)), seen  # once each
    expect(pager).to_have_text(f"page 1 of {pages}")  # and round again
    assert tv.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    # A live update replaces the foes whole: still a page at a time, all of it on the screen.
    condition = swap_panel(
        referee, act_on(referee, "Bandit 2").get_by_role("link", name="Condition")
    )
    condition.locator("#id_kind").select_option("asleep")
    condition.locator("#id_duration").fill("2")
    swap_panel(referee, condition.get_by_role("button", name="Add"))
    expect(combatant(tv, "Bandit 2").locator(".condition")).to_have_count(1)
    expect(pager).to_be_visible()
    tv.wait_for_function(  # Aldric and a page of the foes, whichever page it is by now
        """sizes => sizes.includes([...document.querySelectorAll('.display li.combatant')]
            .filter(li => li.getClientRects().length).length)""",
        arg=[len(page) + 1 for page in seen],
    )
    shown = everyone_on_screen(tv, 1280, 800)
    assert len(shown) == cards.count(), shown
