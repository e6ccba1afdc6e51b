"""Drawing what is stored, whatever it holds: a row, a log entry or a panel that cannot be
drawn shows a short notice in its place, and the rest of the page and its live updates go on.

A value out of every range (a file, an older version, a hand-edited database) must not take
a table down: the referee would lose the very page that removes it. So each fragment is
drawn on its own (``drawn``); the one that fails is replaced by a notice (for the referee,
with what lets them mend it: the row's Edit and Remove; for players, a neutral word and no
detail), and its error is logged once per thing per process, not on every render of every
socket. On the happy path this is a ``try`` around a fragment: no query, no cost.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from django.db import DatabaseError
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)

_SEEN: set[Hashable] = set()
_SEEN_AT_MOST = 10_000  # a process that has seen this many broken things forgets them
_LOCK = threading.Lock()


def logged_once(what: Hashable) -> None:
    """Log the exception being handled, the first time ``what`` (what failed to draw, as
    ``("row", pk)``) fails in this process: every socket and page draws it again."""
    with _LOCK:
        if what in _SEEN:
            return
        if len(_SEEN) >= _SEEN_AT_MOST:
            _SEEN.clear()
        _SEEN.add(what)
    logger.exception("Could not draw %s; a notice is shown in its place", what)


T = TypeVar("T")


def drawn(what: Hashable, draw: Callable[[], T], instead: Callable[[], T]) -> T:
    """``draw()``, or ``instead()`` when it fails (logged once, as ``what``): a fragment's
    HTML, or what it is drawn from (the round as it stands).

    A database error goes up as it was: it says the database is unwell, not that a stored
    value cannot be drawn (and on PostgreSQL it leaves the transaction unusable)."""
    try:
        return draw()
    except DatabaseError:
        raise
    except Exception:
        logged_once(what)
        return instead()


_BETWEEN_TAGS = re.compile(r">\s+<")


def tidy(html: str) -> str:
    """A fragment drawn from an indented template, with one space between its tags: it renders
    the same, and goes to every socket."""
    return _BETWEEN_TAGS.sub("> <", html.strip())


def row_notice(combatant: Any, *, referee: bool, csrf_token: str | None = None) -> str:
    """A row that cannot be drawn: its name and a notice; for the referee, the buttons that
    mend it (Edit, Remove, End of each running condition). Reads only what any stored row
    can show (its name, id, conditions' kinds)."""
    context = {
        "combatant": combatant,
        "referee": referee,
        "conditions": list(getattr(combatant, "shown_conditions", ()) or ()) if referee else [],
        "slug": combatant.encounter.slug,
        "csrf_token": csrf_token,
    }
    return render_to_string("combat/_row_notice.html", context).strip()


def entry_notice(*, referee: bool) -> str:
    """The body of a log entry that cannot be shown."""
    return render_to_string("combat/_entry_notice.html", {"referee": referee}).strip()


def part_notice(*, referee: bool, element: str = "", context: dict[str, Any] | None = None) -> str:
    """A panel that cannot be drawn (the round, the action panel), as the element ``element``
    (its id, for the live updates that swap it later; none: the panel's inside)."""
    values = (context or {}) | {"referee": referee, "element": element}
    return render_to_string("combat/_part_notice.html", values).strip()


__all__ = ["drawn", "entry_notice", "logged_once", "part_notice", "row_notice", "tidy"]
