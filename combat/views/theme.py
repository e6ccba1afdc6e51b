"""The theme switch without JavaScript: the header's form posts here (fray.js sets the same
cookie in place when scripts run)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from combat import theme


@require_POST
def set_theme(request: HttpRequest) -> HttpResponse:
    """Remember the theme chosen ("auto" forgets it), then go back to the page it came from."""
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "/"
    response = HttpResponseRedirect(back)
    value = request.POST.get("theme", "")
    if value in theme.FIXED:
        # Not HttpOnly: fray.js rewrites it when the switch changes without a reload.
        response.set_cookie(theme.COOKIE, value, max_age=theme.COOKIE_AGE, samesite="Lax")
    elif value == "auto":
        response.delete_cookie(theme.COOKIE, samesite="Lax")
    else:
        messages.error(request, _("There is no such theme; the page keeps its colours."))
    return response
