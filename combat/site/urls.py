"""URL routes: pages, the referee's table, rolls."""

from __future__ import annotations

import os

from django.urls import include, path

from combat.capabilities import DISPLAY, JOIN, REFEREE
from combat.views import (
    bestiary,
    characters,
    dice,
    display,
    feed,
    formats,
    group,
    pages,
    panels,
    party,
    rounds,
    table,
    theme,
    transfer,
    undo,
    zones_tables,
)
from combat.views import zones as zone_views

encounter_patterns = [
    path("", pages.encounter, name="encounter"),
    path("log/", pages.log, name="log"),
    path("dice/", dice.page, name="dice"),
    path("dice/proofs.json", dice.proofs, name="dice_proofs"),
    path("dice/new-seal/", dice.rotate, name="dice_rotate"),
    path("qr.svg", pages.join_qr, name="join_qr"),
    path("display/", display.display, name="display"),
    path("settings/", table.encounter_settings, name="encounter_settings"),
    path("links/", table.new_links, name="new_links"),
    path("export.json", transfer.export, name="export_encounter"),
    path("party.json", party.export, name="export_party"),
    path("party/import/", party.import_file, name="import_party"),
    path("party/next/", party.move_on, name="party_next"),
    path("party/follow/", party.follow, name="party_follow"),
    path("party/claim/", party.claim, name="party_claim"),
    path("combatants/new/", table.combatant_new, name="combatant_new"),
    path("combatants/quick-add/", table.quick_add, name="quick_add"),
    path("combatants/<int:pk>/bestiary/", bestiary.save, name="bestiary_save"),
    path("bestiary/", bestiary.add, name="bestiary"),
    path("bestiary/<int:pk>/", bestiary.edit, name="bestiary_edit"),
    path("bestiary/<int:pk>/delete/", bestiary.delete, name="bestiary_delete"),
    path("bestiary/export.json", bestiary.export, name="bestiary_export"),
    path("bestiary/import/", bestiary.import_file, name="bestiary_import"),
    path("combatants/fill/", characters.combatant_fill, name="combatant_fill"),
    path("combatants/<int:pk>/notes/", characters.combatant_notes, name="combatant_notes"),
    path("combatants/<int:pk>/", table.combatant_edit, name="combatant_edit"),
    path("combatants/<int:pk>/delete/", table.combatant_delete, name="combatant_delete"),
    path("combatants/<int:pk>/hide/", table.combatant_toggle_hidden, name="combatant_hide"),
    path("combatants/<int:pk>/zones/", zone_views.zone, name="zone"),
    path("directions/", zone_views.directions, name="zone_directions"),
    path("body-preview/", zone_views.body_preview, name="body_preview"),
    path("seats/<int:pk>/remove/", table.seat_remove, name="seat_remove"),
    path("seats/<int:pk>/give/", table.seat_give, name="seat_give"),
    path("seats/<int:pk>/seen/", feed.seen, name="feed_seen"),
    path("undo/<int:seq>/", undo.undo, name="undo"),
    path("show/<int:seq>/", undo.show, name="show_entry"),
    # Every rules system's panels and the ones every table has, with their odds, from the
    # registry of systems (combat.registry).
    *panels.urlpatterns(),
    path("saves/<int:pk>/", group.pending_save, name="pending_save"),
    path("fight/", rounds.fight, name="fight"),
    path("fight/initiative/", rounds.initiative, name="initiative"),
    path("fight/next/<str:what>/", rounds.advance, name="advance"),
    path("fight/morale/", rounds.morale, name="morale"),
    path("conditions/new/", rounds.condition_new, name="condition_new"),
    path("conditions/<int:pk>/end/", rounds.condition_end, name="condition_end"),
]

urlpatterns = [
    path("", pages.home, name="home"),
    path("import/", transfer.import_file, name="import_encounter"),
    # The capability links: their prefixes are listed once in combat/capabilities.py, which
    # the log redaction and the no-store rule read too. A new one is added there first.
    path(f"{REFEREE}/<slug:key>/", pages.referee_link, name="referee_link"),
    path(f"{JOIN}/<slug:token>/", pages.join, name="join"),
    path(f"{DISPLAY}/<slug:token>/", display.display_link, name="display_link"),
    path("e/<slug:slug>/", include(encounter_patterns)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("theme/", theme.set_theme, name="set_theme"),
    path("hit-locations/", zones_tables.hit_locations, name="hit_locations"),
    path("formats/", formats.formats, name="formats"),
]

# Only in servers that `manage.py bench_live` starts (it sets FRAY_BENCH=1), as the bench socket
# in combat/live/routing.py: a plain POST that broadcasts, the floor for what a change costs before
# Fray's own work. Never routed in normal serving.
if os.environ.get("FRAY_BENCH") == "1":
    from combat.live.bench_socket import bench_send

    urlpatterns.append(path("bench/send/<str:group>/", bench_send, name="bench_send"))
