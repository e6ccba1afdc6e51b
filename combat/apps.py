"""The encounter app: models, views, the websocket consumer and the host command."""

from __future__ import annotations

from django.apps import AppConfig
from django.contrib.staticfiles.apps import StaticFilesConfig


class FrayStaticFilesConfig(StaticFilesConfig):
    """Static files, without what django-htmx ships for other versions of htmx and for
    extensions Fray never loads: only htmx 2 and its websocket extension, minified, are
    collected and compressed (gzip and brotli) when ``host`` starts, so the first start of a
    fresh clone compresses some 60 KB instead of 800 KB."""

    ignore_patterns = [
        *StaticFilesConfig.ignore_patterns,
        "django_htmx/htmax-*",
        "django_htmx/htmx-4*",
        "django_htmx/htmx-2.js",
        "django_htmx/django-htmx.js",
        "django_htmx/ext/*-4.*",
        "django_htmx/ext/*-2.js",
        "django_htmx/ext/hx-head-*",
        "django_htmx/ext/hx-preload-*",
        "django_htmx/ext/hx-sse-*",
    ]


class CombatConfig(AppConfig):
    name = "combat"
    default = True  # the app's own config: this module holds the static files' one too
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The toolkit (combat.table) is below the live table, the zones, the rounds and the
        # systems, and never imports them: they plug into it here, once per process, before
        # any request, command or test runs.
        from combat import models, registry, rounds, table, zones
        from combat.live import state

        models.HOLDS_OF[0] = registry.holds_of  # what the table's system shows held
        table.connect(announcer=state.ANNOUNCER, hit_locations=zones.HIT_LOCATIONS)
        table.undoing(rounds.undo_entry)
        table.undoing(registry.undo)
