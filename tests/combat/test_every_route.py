"""Every route of an encounter, as every kind of visitor, with bad values in every field it
offers and in its path: never a server error.

The routes come from the URLconf itself, so a route added later is covered without being
named here; the fields come from the forms the route's own page shows the visitor.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, reverse

from combat.models import Condition, ConditionKind, Encounter
from combat.site import urls

from .conftest import character, monster

pytestmark = pytest.mark.django_db

BAD = ["", "x", "-1.5", "99999999999999999999", "\x00ž"]
FIELD = re.compile(r'<(?:input|select|textarea)\b[^>]*\bname="([^"]+)"')
PATH_VALUES = {"int": ["999999", "0"], "str": ["nope", "%00"]}


def _routes() -> list[URLPattern]:
    return [p for p in urls.encounter_patterns if isinstance(p, URLPattern)]


def _path_arguments(route: URLPattern, encounter: Encounter, own: dict[str, int]) -> list[dict]:
    """The arguments a route's path takes: real ones (the encounter's own objects, and its
    known kinds) and ones that name nothing."""
    names = route.pattern.converters
    if not names:
        return [{}]
    real = {
        "pk": own["combatant"],
        "seq": own["seq"],
        "kind": "attack",
        "panel": "group_attack",
        "what": "step",
    }
    if "condition" in route.name or route.name == "pending_save":
        real["pk"] = own["condition"]
    if route.name in ("seat_remove", "seat_give"):
        real["pk"] = own["seat"]
    found = [{name: str(real.get(name, "1")) for name in names}]
    for name, converter in names.items():
        kind = "int" if type(converter).__name__ == "IntConverter" else "str"
        for value in PATH_VALUES[kind]:
            found.append({**found[0], name: value})
    return found


def _fields(page: bytes) -> set[str]:
    return set(FIELD.findall(page.decode(errors="replace"))) - {"csrfmiddlewaretoken"}


def _url(route: URLPattern, encounter: Encounter, arguments: dict) -> str:
    base = reverse("encounter", args=[encounter.slug])
    path = str(route.pattern)
    for name, value in arguments.items():
        path = re.sub(rf"<\w+:{name}>", value, path)
    return base + path


@pytest.fixture
def visitors(encounter: Encounter, referee: Client, player: Client, outsider: Client):
    seat = player.seat
    hero = character(encounter, "Aldric", seat=seat)
    goblin = monster(encounter, "Goblin")
    condition = Condition.objects.create(combatant=goblin, kind=ConditionKind.PRONE)
    referee.post(
        reverse("hit_points", args=[encounter.slug]),
        {"actor": goblin.pk, "action": "damage", "amount": 1},
    )
    encounter.refresh_from_db()
    own = {"combatant": hero.pk, "seq": encounter.seq, "condition": condition.pk, "seat": seat.pk}
    return {"referee": referee, "player": player, "outsider": outsider}, own


@pytest.mark.parametrize("system", ["ose", "dolmenwood", "becmi"])
@pytest.mark.parametrize("who", ["referee", "player", "outsider"])
def test_no_route_answers_a_visitor_with_a_server_error(encounter, visitors, who, system):
    Encounter.objects.filter(pk=encounter.pk).update(system=system, hit_locations=True)
    clients, own = visitors
    client = clients[who]
    client.raise_request_exception = False
    failures = []
    for route in _routes():
        real, *naming_nothing = _path_arguments(route, encounter, own)
        for arguments in naming_nothing:  # a path naming nothing: refused, whatever it carries
            url = _url(route, encounter, arguments)
            for answer in (client.get(url), client.post(url, {"actor": "1", "zone": "x"})):
                if answer.status_code >= 500:
                    failures.append((url, answer.status_code))
        url = _url(route, encounter, real)
        shown = client.get(url, HTTP_HX_REQUEST="true")
        if shown.status_code >= 500:
            failures.append(("GET", url, shown.status_code))
            continue
        fields = _fields(shown.content) | {"actor", "target", "zone", "once"}
        for bad in BAD:
            query = {name: bad for name in fields}
            for method in (client.get, client.post):
                answer = method(url, query, HTTP_HX_REQUEST="true")
                if answer.status_code >= 500:
                    failures.append((method.__name__, url, bad, answer.status_code))
    assert failures == []
