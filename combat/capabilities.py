"""The capability links, in one list: URL paths whose segment after the prefix is a secret that
hands out part of a table.

``/r/<referee key>/`` referees it, ``/join/<join token>/`` seats a stranger, ``/d/<display
token>/`` shows it on a screen. The URLconf routes them from these prefixes (combat/site/urls.py),
every log line redacts the segment after them (combat/logs.py), and every answer to them,
redirects and refusals included, is kept out of caches (combat/site/middleware.py). A capability
route added later is added here, and is then covered by all three.

Nothing here imports Django's models or views: the logging configuration reads this list
before the apps are loaded.
"""

from __future__ import annotations

import re

__all__ = ["DISPLAY", "JOIN", "PREFIXES", "REFEREE", "prefix_pattern"]

REFEREE = "r"
JOIN = "join"
DISPLAY = "d"

PREFIXES: tuple[str, ...] = (REFEREE, JOIN, DISPLAY)


def prefix_pattern() -> str:
    """A regular expression alternation of every prefix: ``(?:r|join|d)``."""
    return "(?:" + "|".join(re.escape(prefix) for prefix in PREFIXES) + ")"
