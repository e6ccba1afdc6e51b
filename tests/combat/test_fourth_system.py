"""A fourth rules system is one package and one registration: a toy system kept in this test
package (``toy_system``: one panel, one kind of log entry, its two templates) is registered
through the registry alone and played through the views and the live path, with no change to
generic code."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.urls import clear_url_caches, reverse

from combat import registry
from combat.access import Viewer
from combat.forms import EncounterForm
from combat.live.state import render_snapshot
from combat.models import Encounter, LogEntry

from .conftest import character, form_values, monster
from .toy_system.system import SYSTEM

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).parent / "toy_system" / "templates"
JINJA = Path(__file__).parent / "toy_system" / "jinja2"  # its log entry's (combat.jinja)


def _routes() -> None:
    """The URLconf again, as a new process would build it from the registry."""
    import combat.site.urls

    importlib.reload(combat.site.urls)
    clear_url_caches()


@pytest.fixture
def toy(settings) -> Iterator[None]:
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [*templates[0]["DIRS"], TEMPLATES]
    templates[1]["DIRS"] = [*templates[1]["DIRS"], JINJA]
    settings.TEMPLATES = templates  # where a package's app would have them found
    registry.register(SYSTEM)
    _routes()
    yield
    registry.unregister(SYSTEM.key)
    _routes()


@pytest.fixture
def toy_table(toy, encounter: Encounter) -> Encounter:
    encounter.system = SYSTEM.key
    encounter.save(update_fields=["system"])
    return encounter


def test_its_panel_opens_rolls_and_lands_in_the_log_and_on_every_screen(
    toy_table, referee, player
) -> None:
    hero = character(toy_table, "Hero", seat=toy_table.seats.get())
    monster(toy_table, "Goblin")
    slug = toy_table.slug
    page = referee.get(reverse("encounter", args=[slug])).content.decode()
    url = reverse("toy_luck", args=[slug])
    assert f'href="{url}?actor={hero.pk}"' in page, "its row button, from its own template"

    opened = referee.get(url, {"actor": hero.pk}, headers={"HX-Request": "true"})
    form = opened.content.decode()
    assert "<h2>Test your luck</h2>" in form and f'action="{url}"' in form

    values = form_values(form, url) | {"actor": str(hero.pk), "natural": "5"}
    rolled = referee.post(url, values, headers={"HX-Request": "true"}).content.decode()
    entry = LogEntry.objects.get(encounter=toy_table)
    assert entry.data == {"system": "toy", "natural": 5, "entered": True, "lucky": True}
    assert type(entry.payload).__name__ == "Luck" and entry.payload.lucky, "its own payload"
    assert "tests their luck: 5 on a d6, lucky" in rolled, "its own log template draws it"

    again = referee.post(url, values, headers={"HX-Request": "true"})
    assert again.status_code == 200 and LogEntry.objects.count() == 1, "once per one-time key"

    for who in (referee, player):  # the page and the live path both draw it its own way
        shown = who.get(reverse("encounter", args=[slug])).content.decode()
        assert "tests their luck: 5 on a d6, lucky" in shown
    seated = Viewer(toy_table, is_referee=False, seat=toy_table.seats.get())
    _seq, snapshot = render_snapshot(seated, "en")  # what a socket is sent when it opens
    assert "tests their luck: 5 on a d6, lucky" in snapshot


def test_another_systems_panel_is_not_on_its_table_nor_its_panel_on_theirs(
    toy_table, referee, encounter
) -> None:
    hero = character(toy_table, "Hero")
    assert (
        referee.get(reverse("attack", args=[toy_table.slug]), {"actor": hero.pk}).status_code == 404
    )
    toy_table.system = "ose"
    toy_table.save(update_fields=["system"])
    assert referee.get(reverse("toy_luck", args=[toy_table.slug])).status_code == 404


def test_once_unregistered_its_tables_play_the_default_system(toy_table, referee) -> None:
    registry.unregister(SYSTEM.key)
    _routes()
    page = referee.get(reverse("encounter", args=[toy_table.slug]))
    assert page.status_code == 200, "a stored system no longer known falls back, never a 500"


def test_its_key_is_a_stored_choice_without_a_migration(toy, encounter: Encounter) -> None:
    """The encounter's choice of system is the registry's: a new system's key validates as a
    stored one, and its name is offered wherever a system is chosen."""
    from combat.systems.common import system_choices

    encounter.system = SYSTEM.key
    encounter.full_clean()  # the model's own validation takes it
    assert (SYSTEM.key, SYSTEM.label) in system_choices()
    form = str(EncounterForm())
    assert f'<option value="{SYSTEM.key}">' in form and "initial-system" not in form
    registry.unregister(SYSTEM.key)
    try:
        with pytest.raises(ValidationError):
            encounter.full_clean()
    finally:
        registry.register(SYSTEM)
