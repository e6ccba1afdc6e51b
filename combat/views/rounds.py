"""The round, the referee's: start a fight, initiative, the next step, side and round, the
fight's end (a summary the referee adjusts, then shares), morale checks and conditions. The
rest of the table sees it live."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django.db import DataError
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from combat import rounds, table
from combat.access import Viewer, referee_for
from combat.errors import Refused, message_for
from combat.fragments import logged_once
from combat.models import Condition, InitiativeMode
from combat.round_forms import (
    SUMMARY_CHANGED,
    ConditionForm,
    EndFightForm,
    InitiativeForm,
    MoraleForm,
    StartFightForm,
)
from combat.views.common import act_once, panel_reply
from rules import rounds as rules
from rules.errors import RulesError


def _panel(
    request: HttpRequest, viewer: Viewer, panel: str, form: Any, done: bool = False, **extra: Any
) -> HttpResponse:
    return panel_reply(
        request,
        viewer,
        panel,
        done=done,
        form=form,
        round_panel=True,
        **_odds(viewer, panel, form) | extra,
    )


def _odds(viewer: Viewer, panel: str, form: Any) -> dict[str, Any]:
    """What the panel shows before the roll, exact, from the rules."""
    encounter = viewer.encounter
    if panel == "fight":
        return {"surprise_chance": rules.surprise_odds()}
    surprised = table.caught(encounter) if panel == "initiative" else ""
    if surprised and encounter.initiative_mode == InitiativeMode.GROUP:
        return {"initiative_surprised": surprised}  # the dice decide nothing this round
    if panel == "initiative" and encounter.initiative_mode == InitiativeMode.GROUP:
        odds = rules.group_initiative_odds(tie_rule=rounds.tie_rule(encounter))
        return {
            "initiative_odds": {
                "party": odds[rules.InitiativeOrder.PARTY],
                "foes": odds[rules.InitiativeOrder.FOES],
                "tie": odds[rules.InitiativeOrder.SIMULTANEOUS],
            }
        }
    if panel == "initiative":
        return {
            "modifiers": [(c.name, rounds.initiative_modifier(c)) for c in form.combatants],
            "initiative_surprised": surprised,
        }
    if panel == "morale":
        score = form["score"].value()
        try:
            score = int(score)
        except (TypeError, ValueError):
            return {}
        if rules.MORALE_MIN <= score <= rules.MORALE_MAX:
            return {"morale_fails": rules.morale_failure_odds(score)}
    return {}


def _act(
    request: HttpRequest,
    viewer: Viewer,
    panel: str,
    form: Any,
    act: Callable[[], Any],
    then: Callable[[], tuple[str, Any]] | None = None,
) -> HttpResponse:
    """Validate, act once (a form sent twice shows what the first sending did), and answer
    with the result and what comes next (``then``: the next panel and its form)."""
    done, entry = act_once(viewer, request.POST.get("once", ""), form, act)
    if not done:
        return _panel(request, viewer, panel, form)
    if then is None:
        return panel_reply(request, viewer, "message", done=True, result=entry)
    fresh_viewer = dataclasses.replace(viewer)
    next_panel, next_form = then(fresh_viewer)
    return _panel(request, fresh_viewer, next_panel, next_form, done=True, result=entry)


@require_http_methods(["GET", "POST"])
def fight(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    if request.method == "GET":
        return _panel(request, viewer, "fight", StartFightForm(viewer=viewer))
    form = StartFightForm(request.POST, viewer=viewer)
    return _act(
        request,
        viewer,
        "fight",
        form,
        lambda: rounds.start(
            viewer,
            surprise=form.cleaned_data["surprise"],
            party_die=form.cleaned_data.get("party_die"),
            foes_die=form.cleaned_data.get("foes_die"),
            once=form.cleaned_data["once"],
        ),
        lambda fresh: ("initiative", InitiativeForm(viewer=fresh, combatants=fresh.combatants)),
    )


@require_http_methods(["GET", "POST"])
def initiative(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    combatants = viewer.combatants

    def new_form() -> InitiativeForm:
        return InitiativeForm(viewer=viewer, combatants=combatants)

    if request.method == "GET":
        return _panel(request, viewer, "initiative", new_form())
    form = InitiativeForm(request.POST, viewer=viewer, combatants=combatants)
    return _act(
        request,
        viewer,
        "initiative",
        form,
        lambda: rounds.roll_initiative(
            viewer, once=form.cleaned_data["once"], **form.action_values()
        ),
    )


NEXT = {
    "step": rounds.next_step,
    "turn": rounds.next_turn,
    "round": rounds.end_round,
}


@require_http_methods(["GET", "POST"])
def advance(request: HttpRequest, slug: str, what: str) -> HttpResponse:
    """The round's buttons. Each names the state it was pressed in: a second tap (or a
    second referee's) on a round already moved on changes nothing. "End the fight" opens the
    summary to adjust and share (``end``)."""
    viewer = referee_for(request, slug)
    if what == "end":
        return end(request, viewer)
    step = NEXT.get(what)
    if step is None:
        return HttpResponse(status=404)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        with table.server_dice(viewer.encounter, request.POST.get("dice", "")):
            entry = rounds.advance_if_current(viewer, request.POST.get("at", ""), step)
    except Refused as refused:
        return panel_reply(request, viewer, "message", message=message_for(refused))
    except STUCK:
        # A stored value out of range (a condition lasting past what the rules count, a round
        # number past what the database holds, a round's course that is not one): nothing
        # was written (the step's transaction rolled back); the referee is told what to mend.
        logged_once(("advance", what, viewer.encounter.pk))
        return panel_reply(request, viewer, "message", message=_stuck(viewer, what))
    return panel_reply(request, viewer, "message", done=True, result=entry)


# What stepping the round raises from a stored value it cannot step from (not a bug's every
# error: a database error other than a value out of its column's range goes up).
STUCK = (RulesError, OverflowError, DataError, TypeError, AttributeError, KeyError, IndexError)


def _stuck(viewer: Viewer, what: str) -> str:
    """Why the round could not move on from what is stored, naming what to mend."""
    encounter = viewer.encounter
    endless = (
        Condition.objects.filter(
            combatant__encounter=encounter, rounds_left__gt=rules.MAX_DURATION_ROUNDS
        )
        .select_related("combatant")
        .order_by("combatant__pk", "pk")
        .first()
    )
    if endless is not None:
        return _(
            "The round cannot end: the condition “%(condition)s” (%(name)s) has more rounds "
            "left (%(rounds)s) than a condition can last (%(limit)s). End that condition on "
            "its row, then end the round."
        ) % {
            "condition": endless.get_kind_display(),
            "name": endless.combatant.name,
            "rounds": endless.rounds_left,
            "limit": rules.MAX_DURATION_ROUNDS,
        }
    if encounter.round >= rules.MAX_ROUNDS:
        return _(
            "The round cannot end: round %(round)s is past the last one the table counts "
            "(%(limit)s). End the fight to start counting again."
        ) % {"round": encounter.round, "limit": rules.MAX_ROUNDS}
    return _(
        "The round cannot move on: a stored value is out of range. Check the combatants' "
        "conditions and the round, or end the fight."
    )


MOVED_ON = Refused("round_moved_on")


def _end_form(viewer: Viewer, data: Any = None, **initial: Any) -> EndFightForm:
    summary = rounds.fight_summary(viewer.encounter, viewer.combatants)
    return EndFightForm(data, viewer=viewer, summary=summary, initial=initial)


def end(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """The fight's end: GET (the round's button) shows the summary as it would be shared,
    with the experience to adjust; its form (``share``) ends the fight and logs it. A bare
    POST (a round's button from before there was a summary to check) shows the summary too:
    the fight ends only from it. Every way in refuses a round moved on from its ``at``."""
    if request.method == "GET" and request.GET.get("part") == "totals":
        form = _end_form(viewer, request.GET)
        return render(request, "combat/_round_panel.html", {"part": "totals", "form": form})
    if request.method == "POST" and "share" in request.POST:
        return _share(request, viewer)
    values = request.POST if request.method == "POST" else request.GET
    encounter = viewer.encounter
    try:
        now = rounds.marker(encounter)
        at = values.get("at", now)
        if at != now or not encounter.round:
            refused = MOVED_ON if encounter.round else Refused("no_fight")
            return panel_reply(request, viewer, "message", message=message_for(refused))
        return _panel(request, viewer, "end", _end_form(viewer, at=at))
    except STUCK:
        logged_once(("advance", "end", encounter.pk))
        return panel_reply(request, viewer, "message", message=_stuck(viewer, "end"))


def _share(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Share the summary and end the fight, once, as the round stood when it was drawn."""
    once = request.POST.get("once", "")
    done, entry = table.first_result(viewer, once)
    if done:  # sent twice: what the first sending did
        return panel_reply(request, viewer, "message", done=True, result=entry)
    if request.POST.get("at") != rounds.marker(viewer.encounter):
        return panel_reply(request, viewer, "message", message=message_for(MOVED_ON))
    form = _end_form(viewer, request.POST)
    opened = {name for name in request.POST if name.startswith("xp_")}
    if opened != set(form.xp_names):  # someone fell, or was healed, since it was drawn
        return _summary_changed(request, viewer, form)
    if not form.is_valid():
        return _panel(request, viewer, "end", form)
    data = form.cleaned_data
    try:
        entry = rounds.end_fight(
            viewer,
            at=data["at"],
            xp=form.xp_values(),
            extra=data["extra"],
            shares=data["shares"],
            once=data["once"],
        )
    except table.Repeated as repeated:
        entry = table.first_result(viewer, repeated.key)[1]
    except Refused as refused:
        if refused.code == "summary_changed":
            return _summary_changed(request, viewer, form)
        return panel_reply(request, viewer, "message", message=message_for(refused))
    return panel_reply(request, viewer, "message", done=True, result=entry)


def _summary_changed(request: HttpRequest, viewer: Viewer, sent: EndFightForm) -> HttpResponse:
    """The summary drawn again as the fight stands, keeping what the referee typed (for the
    foes still slain), with a word on why."""
    fresh = dataclasses.replace(viewer)
    summary = rounds.fight_summary(fresh.encounter, fresh.combatants)
    names = ["at", "extra", "shares", *(f"xp_{foe.pk}" for foe in summary.slain)]
    kept = {name: sent.data[name] for name in names if sent.data.get(name)}
    form = EndFightForm(viewer=fresh, summary=summary, initial=kept)
    return _panel(request, fresh, "end", form, message=SUMMARY_CHANGED)


@require_http_methods(["GET", "POST"])
def morale(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    side = request.GET.get("side", "foes")

    def new_form() -> MoraleForm:
        initial = {"side": side, "why": request.GET.get("why", "")}
        score = rounds.side_morale(viewer.combatants, side)
        if score is not None:
            initial["score"] = score
        return MoraleForm(viewer=viewer, initial=initial)

    if request.method == "GET":
        return _panel(request, viewer, "morale", new_form())
    form = MoraleForm(request.POST, viewer=viewer)
    return _act(
        request,
        viewer,
        "morale",
        form,
        lambda: rounds.check_morale(
            viewer,
            side=form.cleaned_data["side"],
            score=form.cleaned_data["score"],
            dice=form.cleaned_data["dice"],
            why=form.cleaned_data["why"],
            flee=form.cleaned_data["flee"],
            once=form.cleaned_data["once"],
        ),
    )


@require_http_methods(["GET", "POST"])
def condition_new(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = referee_for(request, slug)
    wanted = request.GET.get("combatant", "")

    def new_form() -> ConditionForm:
        return ConditionForm(viewer=viewer, initial={"combatant": wanted} if wanted else {})

    if request.method == "GET":
        return _panel(request, viewer, "condition", new_form())
    form = ConditionForm(request.POST, viewer=viewer)
    return _act(
        request,
        viewer,
        "condition",
        form,
        lambda: rounds.add_condition(
            viewer,
            combatant=form.cleaned_data["combatant"],
            kind=form.cleaned_data["kind"],
            rounds=form.rounds,
            note=form.cleaned_data["note"],
            once=form.cleaned_data["once"],
        ),
        lambda fresh: ("condition", ConditionForm(viewer=fresh)),
    )


@require_POST
def condition_end(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = referee_for(request, slug)
    condition = get_object_or_404(Condition, pk=pk, combatant__encounter=viewer.encounter)
    try:
        entry = rounds.end_condition(viewer, condition)
    except Refused as refused:  # ended meanwhile: a second tap, another referee, the round
        return panel_reply(request, viewer, "message", message=message_for(refused))
    return panel_reply(request, viewer, "message", done=True, result=entry)
