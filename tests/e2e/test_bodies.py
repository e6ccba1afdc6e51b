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
    expect(diagrams).to_have_count(18)
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


def test_tapping_a_zone_opens_its_panel(phone):
    """A zone of the SVG and its button in the list beneath both ask htmx for the zone's URL
    and put the answer in the action panel, as the other action buttons do."""
    from django.template import Context, Template

    from rules.hit_location import body_plan

    diagram = Template("{% load bodies %}{% body_diagram plan None tap_url='/tap/?actor=1' %}")
    html = diagram.render(Context({"plan": body_plan("humanoid")}))
    page = phone(width=360, height=740)
    page.route(
        "**/tap/**",
        lambda route: route.fulfill(
            content_type="text/html",
            body=f"<p class='tapped'>{route.request.url.split('?')[1]}</p>",
        ),
    )
    page.goto("/hit-locations/")
    page.evaluate(
        """html => {
            const main = document.querySelector('main');
            const added = '<div id="panel"></div><div id="tap">' + html + '</div>';
            main.insertAdjacentHTML('afterbegin', added);
            htmx.process(document.getElementById('tap'));
        }""",
        html,
    )
    page.locator('#tap svg path[data-zone="left_arm"]').click()
    expect(page.locator("#panel .tapped")).to_have_text("actor=1&zone=left_arm")
    page.locator("#tap .zone-list").get_by_role("link", name="head").click()
    expect(page.locator("#panel .tapped")).to_have_text("actor=1&zone=head")
    assert page.url.endswith("/hit-locations/"), "an htmx swap, not a page load"
