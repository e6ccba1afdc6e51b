"""The colour theme a browser chose with the switch in the page header: light, dark, or (no
choice stored) whatever the system prefers.

The choice is a cookie, not session data, so that the page is rendered in it from the first
byte (no flash of the other theme) on every page, the error pages included; ``static/fray.js``
writes the same cookie when the switch changes without a reload.
"""

from __future__ import annotations

from django.http import HttpRequest

__all__ = ["COOKIE", "COOKIE_AGE", "FIXED", "chosen"]

COOKIE = "fray_theme"
COOKIE_AGE = 365 * 24 * 60 * 60
# The themes a browser may fix; without the cookie the system's preference decides.
FIXED = ("light", "dark")


def chosen(request: HttpRequest) -> str:
    """The fixed theme this browser chose, or "" to follow the system."""
    value = request.COOKIES.get(COOKIE, "")
    return value if value in FIXED else ""
