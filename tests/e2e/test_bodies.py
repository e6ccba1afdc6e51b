"""The body diagrams and the hit-location tables on a 360 px phone, in a real browser: what a
layout needs a browser for (sizes, overflow); the markup itself is tested in
tests/combat/test_bodies.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_the_tables_page_fits_a_small_phone_and_draws_every_zone(phone):
    page = phone(width=360, height=740)
    page.goto("/hit-locations/")
    expect(page.get_by_role("heading", name="Hit location tables")).to_be_visible()
    expect(page.locator(".reconstruction-note").first).to_contain_text("1975")
    # The page itself never scrolls sideways: a wide table scrolls in its own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    diagrams = page.locator("figure.body-diagram")
    expect(diagrams).to_have_count(13)
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('figure.body-diagram path[data-zone]')].map(p => {
            const r = p.getBoundingClientRect();
            return [p.dataset.zone, r.width, r.height];
        })"""
    )
    assert sizes and all(width > 5 and height > 5 for _, width, height in sizes), sizes
    for figure in diagrams.all()[:3]:
        box = figure.locator("svg").bounding_box()
        assert box is not None and box["width"] <= 360


def test_a_zone_is_named_with_its_state_for_screen_readers(phone):
    page = phone(width=360, height=740)
    page.goto("/hit-locations/#humanoid")
    humanoid = page.locator("#humanoid figure.body-diagram")
    expect(humanoid.get_by_role("img", name="left arm: unhurt")).to_have_count(1)
    page.locator("#language-select").select_option("ru")
    expect(page.get_by_role("heading", name="Таблицы мест попадания")).to_be_visible()
    expect(
        page.locator("#humanoid figure.body-diagram").get_by_role("img", name="левая рука: без ран")
    ).to_have_count(1)
