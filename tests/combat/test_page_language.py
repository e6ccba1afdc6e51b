"""Every page a table shows, read in Czech, Russian and Ukrainian: no English word, no Latin
die letter, no participle that must agree with a name, no decimal point, no two fields of a
form labelled alike, feet that agree with their number (issue 32).

For each system (OSE with hit locations and without, Dolmenwood, BECMI) a referee speaking the
language sets the table up through the app's own forms: a player's seat, monsters from the
starter bestiary, a condition, attacks with a monster's attack buttons, a save, a check, damage,
healing, a round; BECMI a wrestling hold and a ship, Dolmenwood a skill check. Then every page
is read in the language and in English (a word of the English page that survives into the
translated one is English): the referee's page, the player's, the table display, the log, the
hit-location tables, the formats page, the home page, the bestiary, every panel the referee's
page opens (and each one's odds for the values it starts with), and the live snapshot for the
referee and for a player. Every failure of every page is collected before the test fails.

Set FRAY_SCAN_OUT to a file name to have every failure appended to it, one JSON line each, and
FRAY_SCAN_DUMP to a folder to have each page's visible text written there, one file per system
and language, for a native speaker's page-by-page read.
"""

from __future__ import annotations

import json
import os
import random
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

import combat
from combat.access import Viewer
from combat.live.state import render_snapshot
from combat.models import Combatant, Condition, Encounter, Kind

from . import language_scan as scan
from .conftest import character, fixed_dice

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
LANGUAGES = ("cs", "ru", "uk")
SYSTEMS = {  # id: (system, hit locations)
    "ose-hl": ("ose", True),
    "dolmenwood": ("dolmenwood", False),
    "becmi": ("becmi", False),
    "ose": ("ose", False),
}
# What the test types (names of people, places and things): none is an English word.
TABLE, HERO, HEROINE, SEAT, SHIP = "Brod", "Mirek", "Zora", "Anna", "Vlna"
TYPED = {TABLE, HERO, HEROINE, SEAT, SHIP}
# The starter bestiary's monsters the referee adds (by their slug), and how many.
MONSTERS = {
    "goblin": 2,
    "ogre": 1,
    "gelatinous-cube": 1,
    "spider-black-widow": 1,
    "normal-human": 1,
    "owlbear": 1,
}
# Routes not to open: files, and what changes the table at the tap of a GET (none should).
SKIPPED = re.compile(r"\.json$|\.svg$|/delete/|/hide/|/remove/|/links/|/give/|/seen/|/undo/")


# --- acting as the referee ------------------------------------------------------------------


class _Form(HTMLParser):
    """The first form of a panel: its action, and the values a browser sends."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.action: str | None = None
        self.inside = self.done = False
        self.values: dict[str, str] = {}
        self.select: str | None = None
        self.options: list[str] = []
        self.chosen: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and not self.done and not self.inside:
            self.inside, self.action = True, a.get("action", "")
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.values[name] = a.get("value") or "on"
            elif a.get("type") not in ("submit", "button"):
                self.values[name] = a.get("value", "")
        elif tag == "select" and name:
            self.select, self.options, self.chosen = name, [], None
        elif tag == "option" and self.select:
            self.options.append(a.get("value", ""))
            if "selected" in a:
                self.chosen = a.get("value", "")
        elif tag == "textarea" and name:
            self.values[name] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self.select:
            first = self.options[0] if self.options else ""
            self.values[self.select] = first if self.chosen is None else self.chosen
            self.select = None
        elif tag == "form" and self.inside:
            self.inside, self.done = False, True


def first_form(html: str) -> tuple[str | None, dict[str, str]]:
    reader = _Form()
    reader.feed(html)
    reader.values.pop("csrfmiddlewaretoken", None)
    return reader.action, reader.values


class Table:
    """The referee's client, speaking ``language``, and what went wrong setting up."""

    def __init__(self, encounter: Encounter, referee: Client, language: str) -> None:
        self.encounter, self.referee, self.language = encounter, referee, language
        self.slug = encounter.slug
        self.problems: list[str] = []
        referee.cookies[settings.LANGUAGE_COOKIE_NAME] = language

    def url(self, name: str, query: str = "") -> str:
        return reverse(name, args=[self.slug]) + (f"?{query}" if query else "")

    def act(self, url: str, **values: Any) -> str:
        """Open the panel at ``url``, fill in ``values`` over what it offers, and send it."""
        shown = self.referee.get(url, **HX)
        if shown.status_code != 200:
            self.problems.append(f"GET {url}: {shown.status_code}")
            return ""
        action, sent = first_form(shown.content.decode())
        sent |= {k: str(v) for k, v in values.items()}
        answer = self.referee.post(action or url, sent, **HX)
        html = answer.content.decode()
        if answer.status_code != 200 or 'class="errorlist' in html:
            errors = [
                scan.visible(e)
                for e in re.findall(r'class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S)
            ]
            self.problems.append(f"POST {action or url} {sent}: {answer.status_code} {errors}")
        return html

    def monsters(self) -> list[Combatant]:
        return list(self.encounter.combatants.exclude(kind=Kind.CHARACTER).order_by("pk"))


def set_up(encounter: Encounter, referee: Client, player: Client, language: str) -> Table:
    """The table as a referee speaking ``language`` sets it up, with a round of fighting."""
    table = Table(encounter, referee, language)
    hero = character(encounter, HERO, seat=player.seat, hp_max=90, hp=90)
    character(encounter, HEROINE, thac0=19, ac=7, hp_max=8, hp=8)
    bestiary = table.url("bestiary")
    offered = re.findall(r'<option value="s:([^"]+)"', referee.get(bestiary, **HX).content.decode())
    for slug, count in MONSTERS.items():
        if slug in offered:
            table.act(bestiary, entry=f"s:{slug}", count=count, side="foes")
    monsters = table.monsters()
    goblin = monsters[0]
    system = encounter.system
    attack = {"ose": "attack", "dolmenwood": "dw_attack", "becmi": "becmi_attack"}[system]
    save = {"ose": "save", "dolmenwood": "dw_save", "becmi": "becmi_save"}[system]
    # Each monster attacks the hero with its first attack button, the hero a monster.
    # (The d20s rolled at the table: each attack hits, and says where.)
    for monster in monsters[:4]:
        url = table.url(attack, f"actor={monster.pk}&attack=0")
        table.act(url, target=hero.pk, natural=18)
    table.act(table.url(attack, f"actor={hero.pk}"), target=monsters[1].pk, natural=18)
    table.act(table.url(save, f"actor={hero.pk}&category=death"))
    if system == "ose":
        table.act(table.url("check", f"actor={hero.pk}&ability=str"))
    elif system == "dolmenwood":
        table.act(table.url("dw_check", f"actor={hero.pk}"))
        table.act(table.url("dw_skill", f"actor={hero.pk}"))
    else:
        # A hold that takes (the dice rolled at the table), so its round is offered too.
        wrestle = table.url("bx_wrestle", f"actor={hero.pk}")
        table.act(wrestle, target=goblin.pk, attacker_natural=20, defender_natural=1)
        table.act(table.url("bx_strike", f"actor={hero.pk}"), target=monsters[-1].pk)
        table.act(table.url("bx_ship"), name=SHIP, side="foes")
    table.act(table.url("free_roll"), expression="2d6", label="")
    # A condition, damage and healing.
    table.act(table.url("condition_new", f"combatant={goblin.pk}"), kind="prone")
    table.act(table.url("hit_points", f"actor={monsters[-1].pk}"), action="damage", amount=2)
    table.act(table.url("hit_points", f"actor={hero.pk}"), action="damage", amount=5)
    table.act(table.url("hit_points", f"actor={hero.pk}"), action="heal", amount=2)
    # A round: the fight begins, initiative.
    table.act(table.url("fight"), surprised="")
    table.act(table.url("initiative"))
    return table


# --- the pages ------------------------------------------------------------------------------


def _pages_of(html: str, slug: str) -> list[str]:
    """The addresses a page opens under the encounter (links, htmx loads), once each kind."""
    found = re.findall(r'(?:hx-get|href)="(/e/' + re.escape(slug) + r'/[^"]*)"', html)
    return [unescape(u) for u in dict.fromkeys(found) if not SKIPPED.search(urlsplit(u).path)]


def _kind_of(pks: dict[int, tuple[str, str]], url: str) -> str:
    """A page's address with each combatant named by its kind (a hero, a goblin, a ship),
    so that a panel is opened once for each kind of combatant, not once for each one."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    # A monster's attack buttons: each monster's own (its attacks' names).
    own = any(k == "attack" for k, _v in query)

    def kind(pk: str) -> str:
        found = pks.get(int(pk), ("n", "n"))
        return found[1] if own else found[0]

    path = re.sub(r"/(\d+)/", lambda m: f"/{kind(m.group(1))}/", parts.path)
    named = sorted(
        (k, kind(v) if v.isdigit() and k in ("actor", "combatant", "target") else v)
        for k, v in query
        if k not in ("category", "zone")  # each category, each zone: the same form
    )
    return path + "?" + urlencode(named)


def _odds_of(html: str) -> list[str]:
    """The odds a panel's form asks for as it changes, for the values it starts with."""
    found = []
    for odds in re.findall(r'<output class="odds"[^>]*hx-get="([^"]+)"', html):
        _action, values = first_form(html)
        found.append(unescape(odds) + "?" + urlencode(values))
    return found


WHOLE_PAGES = {
    "referee page",
    "player page",
    "display",
    "log",
    "player log",
    "hit-location tables",
    "formats",
    "home",
}


def pages(table: Table, player: Client, display: Client) -> dict[str, tuple[Client, str]]:
    """Every page to read: its name, and who reads it at which address."""
    slug, encounter = table.slug, table.encounter
    referee = table.referee
    found: dict[str, tuple[Client, str]] = {
        "referee page": (referee, table.url("encounter")),
        "player page": (player, table.url("encounter")),
        "display": (display, table.url("display")),
        "log": (referee, table.url("log")),
        "player log": (player, table.url("log")),
        "hit-location tables": (referee, reverse("hit_locations")),
        "formats": (referee, reverse("formats")),
        "home": (referee, reverse("home")),
    }
    pks = {
        c.pk: ("hero", "hero") if c.kind == Kind.CHARACTER else (c.kind, f"{c.kind}-{c.pk}")
        for c in encounter.combatants.all()
    }
    # Every panel the referee's page opens, and the pages those open, once for each kind.
    seen = {_kind_of(pks, url) for _client, url in found.values()}
    queue = _pages_of(referee.get(table.url("encounter")).content.decode(), slug)
    if encounter.hit_locations:
        queue += [table.url("zone_directions"), table.url("body_preview")]
    # And the panels a player opens from their own page, as the player.
    players = _pages_of(player.get(table.url("encounter")).content.decode(), slug)
    for who, client, todo in (("", referee, queue), ("player: ", player, players)):
        while todo:
            url = todo.pop(0)
            key = who + _kind_of(pks, url)
            if key in seen or len(seen) > 300:
                continue
            seen.add(key)
            name = who + (key[len(who) :].replace(f"/e/{slug}/", "").rstrip("?") or "page")
            found.setdefault(name, (client, url))
            answer = client.get(url, **HX)
            if answer.status_code == 200 and "html" in answer.get("Content-Type", ""):
                html = answer.content.decode()
                todo += _pages_of(html, slug)
                for odds in _odds_of(html):
                    found.setdefault(f"odds of {name}", (client, odds))
    return found


def read(client: Client, url: str, language: str, whole: bool) -> tuple[int, str]:
    """A page as a browser loads it (``whole``), or a panel as htmx asks for it."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    answer = client.get(url, **({} if whole else HX))
    return answer.status_code, answer.content.decode(errors="replace")


def snapshots(encounter: Encounter, player: Client, language: str) -> dict[str, str]:
    referee = Viewer(encounter, is_referee=True, seat=None)
    seated = Viewer(encounter, is_referee=False, seat=player.seat)
    return {
        "live snapshot (referee)": render_snapshot(referee, language)[1],
        "live snapshot (player)": render_snapshot(seated, language)[1],
    }


STARTER = (Path(combat.__file__).parent / "bestiary" / "bx.json").read_text(encoding="utf-8")


def stored_words(encounter: Encounter) -> set[str]:
    """Words of what the table stored in the referee's language: a monster from the starter
    bestiary is named and noted in it, so the English page shows them too. Not a word of the
    starter bestiary's own English: a name or a note left in English is still English."""
    stored = [encounter.name, *encounter.seats.values_list("name", flat=True)]
    for combatant in encounter.combatants.all():
        stored += [combatant.name, combatant.notes, combatant.movement, combatant.special_notes]
        stored += [str(attack.get("name", "")) for attack in combatant.attacks or []]
        stored += [str(skill.get("name", "")) for skill in combatant.skills or []]
    stored += Condition.objects.filter(combatant__encounter=encounter).values_list(
        "note", flat=True
    )
    return set(scan.WORD.findall(" ".join(stored))) - set(scan.WORD.findall(STARTER))


def allowed_words(table: Table, language: str, system: str) -> set[str]:
    """Names typed, what the app stored in the referee's language, and the words every
    language shares."""
    return (
        TYPED
        | stored_words(table.encounter)
        | scan.ALLOWED_EVERYWHERE
        | scan.ALLOWED[language]
        | scan.FORMAT_WORDS
    )


# --- the test -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_page_reads_in_the_language(
    encounter, referee, player, system_id, language, monkeypatch
) -> None:
    fixed_dice(monkeypatch, random.Random(32))  # the same rolls, the same pages, every run
    system, hit_locations = SYSTEMS[system_id]
    Encounter.objects.filter(pk=encounter.pk).update(
        name=TABLE, system=system, hit_locations=hit_locations
    )
    encounter.refresh_from_db()
    table = set_up(encounter, referee, player, language)
    encounter.refresh_from_db()
    display = Client()
    display.get(reverse("display_link", args=[encounter.display_token]))
    allowed = allowed_words(table, language, system)

    failures = [("setting up", "setup", problem) for problem in table.problems]
    for name, (client, url) in pages(table, player, display).items():
        whole = name in WHOLE_PAGES
        status, english = read(client, url, "en", whole)
        shown_status, html = read(client, url, language, whole)
        if status == shown_status == 204:  # nothing to show (a form with nothing to fill)
            continue
        if shown_status != 200 or status != 200:
            failures.append((name, "status", f"{url}: {status}/{shown_status}"))
            continue
        failures += [
            (name, kind, what) for kind, what in scan.check(html, english, language, allowed)
        ]
        _dump(system_id, language, name, html)
    english_snapshots = snapshots(encounter, player, "en")
    for name, html in snapshots(encounter, player, language).items():
        found = scan.check(html, english_snapshots[name], language, allowed)
        failures += [(name, kind, what) for kind, what in found]

    out = os.environ.get("FRAY_SCAN_OUT")
    if out:
        with open(out, "a", encoding="utf-8") as file:
            for page, kind, what in failures:
                record = {"system": system_id, "language": language, "page": page}
                file.write(json.dumps(record | {"kind": kind, "text": what}, ensure_ascii=False))
                file.write("\n")
    report = "\n".join(f"[{kind}] {page}: {what}" for page, kind, what in failures)
    assert not failures, f"{system_id} in {language}: {len(failures)} failures\n{report}"


def _dump(system_id: str, language: str, name: str, html: str) -> None:
    folder = os.environ.get("FRAY_SCAN_DUMP")
    if folder:
        path = Path(folder) / f"{system_id}-{language}.txt"
        with path.open("a", encoding="utf-8") as file:
            file.write(f"===== {name}\n{scan.visible(html)}\n")


# --- the checks catch what they look for (and leave what is right) ---------------------------

CAUGHT = [
    ("cs", "<p>Mirek: mrtvý</p>", "gender"),
    ("cs", "<p>Skrytá Zora</p>", "gender"),
    ("ru", "<p>Zora сохранена</p>", "gender"),
    ("ru", "<p>Поговорить с ней</p>", "gender"),
    ("uk", "<p>Mirek поранений</p>", "gender"),
    ("cs", "<p>útok 1d8</p>", "die"),
    ("ru", "<p>урон 1k8</p>", "die"),
    ("uk", "<p>шкода d6</p>", "die"),
    ("cs", "<p>šance 45%</p>", "decimal"),
    ("ru", "<p>шанс 5.5</p>", "decimal"),
    ("ru", "<p>на 22 футов</p>", "feet"),
    ("uk", "<p>на 3 футів</p>", "feet"),
    ("ru", '<button title="Close">×</button>', "english"),
    ("uk", '<input placeholder="Name">', "english"),
    ("ru", '<select><option value="x">Foes</option></select>', "english"),
    ("cs", '<input type="submit" value="Save">', "english"),
    (
        "cs",
        '<form><label for="id_a">Kryt:</label><input id="id_a">'
        '<label for="id_b">Kryt</label><input id="id_b"></form>',
        "duplicate label",
    ),
]
LEFT = [
    ("cs", "<p>Mirek: skryto, uloženo, 1k20, 45 %, 5,5</p>"),
    ("ru", "<p>Zora: скрыто, сохранено, 1к20, 22 фута, 21 фут, 25 футов</p>"),
    ("uk", "<p>Zora: приховано, збережено, 1к20, 3 фути, 5 футів, 1 фут</p>"),
    ("cs", "<p>Zabitý nepřítel · cíl je rovnou zabit</p>"),
    ("ru", '<input value="Save" name="x"><a href="/save/">ок</a>'),
]


@pytest.mark.parametrize(("language", "html", "kind"), CAUGHT)
def test_a_check_catches_what_it_looks_for(language, html, kind):
    english = html.replace("mrtvý", "").replace("Kryt", "Cover")
    found = scan.check(html, english + " Save", language, {"Mirek", "Zora"})
    assert kind in {k for k, _what in found}, found


@pytest.mark.parametrize(("language", "html"), LEFT)
def test_a_check_leaves_what_is_right(language, html):
    assert scan.check(html, "Save Mirek Zora", language, {"Mirek", "Zora"}) == []
