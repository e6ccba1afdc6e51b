"""A combatant's row as every screen draws it (``combat/_combatant.html``, through
``combat.templatetags.fray_live.row_html``): who sees which numbers, what is escaped, and the
words in the viewer's language."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.utils import translation

from combat.models import Combatant, Kind, Seat, Side
from combat.templatetags.fray_live import row_html


def _foe(**fields) -> Combatant:
    values = dict(pk=7, name="Gob<b>lin</b>", side=Side.FOES, kind=Kind.MONSTER, hp=3, hp_max=9)
    foe = Combatant(**(values | dict(ac=6) | fields))
    foe.shown_conditions = []  # as a page or the live view sets them (else read when asked)
    return foe


def _row(combatant, language="en", **how) -> str:
    how = dict(referee=False, controlled=False, show_numbers=False, rest="<div>R</div>") | how
    with translation.override(language):
        return row_html(combatant, **how)


def test_players_see_a_foes_health_in_words_unless_the_referee_shows_numbers() -> None:
    foe = _foe()
    assert '<span class="health badly">badly wounded</span>' in _row(foe)
    assert "HP</abbr>" not in _row(foe) and 'class="ac"' not in _row(foe)
    assert "HP</abbr> 3/9</span>" in _row(foe, show_numbers=True)
    referee = _row(foe, referee=True, controlled=True)
    assert "HP</abbr> 3/9</span>" in referee and "AC</abbr> 6</span>" in referee
    assert 'class="combatant own"' not in referee, "the referee controls all, owns none"


def test_what_a_player_typed_is_escaped_and_the_rest_kept_as_drawn() -> None:
    foe = _foe(hidden=True)
    foe.shown_conditions = [
        SimpleNamespace(get_kind_display=lambda: "Paralysed", note="by <ghoul>", rounds_left=2)
    ]
    html = _row(foe, referee=True, controlled=True)
    assert "Gob&lt;b&gt;lin&lt;/b&gt;" in html and "<b>" not in html
    assert "Paralysed: by &lt;ghoul&gt; · 2 rounds</span>" in html
    assert html.startswith('<li class="combatant hidden-from-players" id="combatant-7">')
    assert html.endswith("</div> <div>R</div> </li>")


def test_the_dead_the_fled_a_seat_and_a_ship_in_the_viewers_language() -> None:
    dead = _foe(hp=-4)
    assert '<span class="health down">' in _row(dead), "down, never how far below zero"
    assert "-4" not in _row(dead)
    hero = Combatant(pk=3, name="Aldric", side=Side.PARTY, kind=Kind.CHARACTER, hp=5, hp_max=9)
    hero.ac, hero.fled, hero.seat = 4, True, Seat(pk=1, name="Anna")
    hero.shown_conditions = []
    mine = _row(hero, "cs", controlled=True)
    assert 'class="combatant own"' in mine and "badge yours" in mine
    assert "badge fled" in mine and "Anna" not in mine, "only the referee sees the seat"
    assert '<span class="seat">Anna</span>' in _row(hero, referee=True, controlled=True)
    ship = _foe(kind=Kind.SHIP)
    assert "HP</abbr>" not in _row(ship, referee=True, controlled=True), "its hull instead"
    with translation.override("cs"):
        said = translation.gettext("AC")
    assert said != "AC" and f">{said}</abbr> 4</span>" in mine


@pytest.mark.parametrize("language", ["en", "cs", "ru", "uk"])
def test_a_rows_words_are_the_catalogues_in_every_language(language) -> None:
    hero = Combatant(pk=3, name="Aldric", side=Side.PARTY, kind=Kind.CHARACTER, hp=0, hp_max=9)
    hero.ac, hero.hidden = 4, True
    hero.shown_conditions = [
        SimpleNamespace(get_kind_display=lambda: "Prone", note="", rounds_left=1)
    ]
    html = _row(hero, language, controlled=True)
    with translation.override(language):
        words = [
            translation.gettext("your character"),
            translation.gettext("hidden"),
            translation.pgettext("health", "down"),
            translation.gettext("armour class"),
            translation.ngettext("%(rounds)s round", "%(rounds)s rounds", 1) % {"rounds": 1},
        ]
    for word in words:
        assert f">{word}<" in html or f'"{word}"' in html or f"· {word}<" in html, word
    assert html.startswith('<li class="combatant dead hidden-from-players own" id="combatant-3">')
    assert "HP</abbr>" not in html, "a player sees that their character is down, not how far"


def test_a_page_draws_the_row_a_live_view_draws(encounter, fighter) -> None:
    from django.template import Context

    from combat.access import Viewer
    from combat.templatetags.fray_live import combatant_row

    fighter.shown_conditions = []
    viewer = Viewer(encounter, is_referee=False, seat=fighter.seat)
    context = Context(
        {
            "viewer": viewer,
            "encounter": encounter,
            "controlled_ids": {fighter.pk},
            "show_numbers": False,
            "action_urls": {"attack": "/a/", "save": "/s/", "check": "/c/", "hit_points": "/h/"},
        }
    )
    page = combatant_row(context, fighter)  # the rest below its line drawn with it
    _line, rest = page.split("</div> ", 1)
    assert rest.endswith(" </li>") and 'class="actions"' in rest
    assert _row(fighter, controlled=True, rest=rest.removesuffix(" </li>")) == page
