"""The actions every system shares: hit points changed or corrected, rest, a free roll, an undo."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction

from combat import registry
from combat.access import Viewer
from combat.errors import Refused
from combat.models import SHOWABLE, Combatant, EntryKind, LogEntry
from combat.payloads import table as entries
from combat.table import hooks
from combat.table.life import able, alive, hurt, set_hp, unsurprised
from combat.table.locks import locked
from combat.table.record import kept_secret, record
from combat.table.rolls import RNG, roll_data
from rules import dice, ose

logger = logging.getLogger(__name__)


@transaction.atomic
def change_hit_points(
    viewer: Viewer, *, actor: Combatant, action: str, amount: int, once: str = ""
) -> LogEntry:
    """Damage (``action == "damage"``) or healing the referee or a player applies by hand."""
    actor = locked(viewer, actor)
    if action == "damage":
        if registry.of(viewer.encounter).zero_floor and actor.hp >= 0:
            amount = min(amount, actor.hp)  # the system's hit points never drop below 0
        effect, killed = hurt(actor, amount)
        kind = EntryKind.DAMAGE
    else:
        effect, killed = set_hp(actor, ose.apply_healing(actor.hp, actor.hp_max, amount).after)
        kind = EntryKind.HEAL
    data = entries.HitPoints(
        who=actor.name,
        # Players do not see a foe's numbers: how much of a healing took would tell them.
        side=actor.side,
        amount=amount,
        applied=abs(effect["hp"]),
        killed=killed,
    )
    return record(
        viewer, kind, data, secret=kept_secret(viewer, False, actor), effects=[effect], once=once
    )


def correct_hit_points(viewer: Viewer, *, actor: Combatant, hp: int) -> LogEntry:
    """The referee sets hit points outright (an edit form): logged, and undoable, like any
    other change of hit points. Runs inside the caller's transaction, which holds the row."""
    before = actor.hp
    effect, killed = set_hp(actor, hp)
    data = entries.Correction(
        who=actor.name,
        side=actor.side,
        before=before,
        after=actor.hp,
        killed=killed,
        revived=before <= 0 < actor.hp,
    )
    return record(
        viewer, EntryKind.CORRECT, data, secret=kept_secret(viewer, False, actor), effects=[effect]
    )


@transaction.atomic
def rest(
    viewer: Viewer,
    *,
    actor: Combatant,
    days: int,
    interrupted: int,
    day_dice: list[int] | None,
    once: str = "",
) -> LogEntry:
    """Days of rest: a die of healing for each full day."""
    actor = alive(locked(viewer, actor))
    secret = kept_secret(viewer, False, actor)  # before any die is cast
    # Full days first; which of the days were interrupted does not change the sum.
    schedule = [True] * (days - interrupted) + [False] * interrupted
    result = ose.natural_healing(
        schedule, rng=RNG, naturals=day_dice, current_hp=actor.hp, max_hp=actor.hp_max
    )
    effect, _killed = set_hp(actor, result.hp.after)
    data = entries.Rest(
        who=actor.name,
        days=days,
        interrupted=interrupted,
        dice=[n for n in result.naturals if n is not None],
        entered=day_dice is not None,
        healed=effect["hp"],
    )
    return record(
        viewer,
        EntryKind.REST,
        data,
        secret=secret,
        effects=[effect],
        once=once,
    )


@transaction.atomic
def free_roll(
    viewer: Viewer,
    *,
    expression: dice.DiceExpression,
    label: str,
    entered: list[int] | None,
    secret: bool = False,
    once: str = "",
) -> LogEntry:
    """Any dice, for anything the table needs rolled."""
    secret = kept_secret(viewer, secret)  # before any die is cast
    rolled = dice.roll(expression, rng=RNG, entered=entered)
    data = entries.FreeRoll.of(rolled, entered=entered is not None, label=label)
    return record(viewer, EntryKind.ROLL, data, secret=secret, once=once)


class AlreadyUndone(Exception):
    """The entry was undone before (the undo that did it is ``undo``), or is itself an undo."""

    def __init__(self, undo: LogEntry | None = None) -> None:
        super().__init__()
        self.undo = undo


@transaction.atomic
def show(viewer: Viewer, entry: LogEntry) -> LogEntry:
    """The referee shows players a secret roll: a new entry, in their log, saying what the
    secret one said, with its dice and their proof (the secret roll's own seed goes with it, so
    they can check it at once), the combatants hidden now worded as players read any hidden
    name. The secret entry stays as it was; the new one changes nothing, and has no undo. Shown
    once (``Repeated`` the second time)."""
    if not entry.secret:
        raise Refused("not_secret")
    if entry.kind not in SHOWABLE:
        raise Refused("cannot_show")
    if entry.undone_seq:
        raise Refused("cannot_show_undone")
    data = entry.payload
    data.shown, data.public, data.unseen = entry.seq, [], {}
    hidden = entry.proof.get("secret") if isinstance(entry.proof, dict) else None
    return record(
        viewer,
        entry.kind,
        data,
        once=f"show-{entry.seq}",
        names=list(viewer.encounter.combatants.all()),
        proof={"secret": hidden} if isinstance(hidden, dict) else {},
    )


def undo(viewer: Viewer, entry: LogEntry) -> LogEntry:
    """A new entry that reverses ``entry``'s hit-point changes; the original stays. Each entry
    is undone at most once, however many taps or requests ask for it at once."""
    try:
        return _undo(viewer, entry)
    except IntegrityError:  # another request undid it between our check and our write
        raise AlreadyUndone(LogEntry.objects.filter(undoes=entry).first()) from None


@transaction.atomic
def _undo(viewer: Viewer, entry: LogEntry) -> LogEntry:
    entry = LogEntry.objects.select_for_update().get(pk=entry.pk, encounter=viewer.encounter)
    if entry.kind == EntryKind.UNDO:
        raise AlreadyUndone
    done = LogEntry.objects.filter(undoes=entry).first()
    if done is not None:
        raise AlreadyUndone(done)
    try:
        reversed_effects, revived = _put_back(viewer, entry)
    except (AttributeError, KeyError, IndexError, TypeError, ValueError):
        # Stored data this code cannot read (written by hand, or by a version that wrote it
        # otherwise): nothing is put back (the transaction rolls back), and the referee is
        # told why rather than shown a server error.
        logger.warning("entry #%s cannot be undone: its data cannot be read", entry.seq)
        raise Refused("entry_unreadable") from None
    data = entries.Undo(
        entry_seq=entry.seq,
        entry_public_seq=entry.public_seq,
        entry_kind=entry.kind,
        revived=[c.name for c in revived],
    )
    return record(
        viewer,
        EntryKind.UNDO,
        data,
        secret=entry.secret,
        effects=reversed_effects,
        undoes=entry,
        names=revived,
    )


def _put_back(viewer: Viewer, entry: LogEntry) -> tuple[list[dict[str, int]], list[Combatant]]:
    """What ``entry`` changed, put back: the effects that reverse its hit points, and who
    they brought back to life."""
    for put_back in hooks.undoers():  # the round's course, a condition, a hold, a ship...
        put_back(viewer, entry)
    reversed_effects = []
    revived = []
    rows = Combatant.objects.select_for_update().filter(encounter=viewer.encounter)
    for effect in entry.effects:
        combatant = rows.filter(pk=effect["combatant"]).first()
        if combatant is None:  # removed since: nothing left to reverse
            continue
        reversed_effect, _killed = set_hp(combatant, combatant.hp - effect["hp"])
        if "zones" in effect:  # hit locations: the zones as they were
            hooks.hit_locations().put_back(combatant, effect)
        reversed_effects.append(reversed_effect)
        if combatant.hp > 0 >= combatant.hp - reversed_effect["hp"]:
            revived.append(combatant)
    return reversed_effects, revived


@transaction.atomic
def ability_check(
    viewer: Viewer,
    *,
    actor: Combatant,
    ability: str,
    score: int,
    modifier: int,
    natural: int | None,
    secret: bool = False,
    once: str = "",
    despite_surprise: bool = False,
) -> LogEntry:
    """An ability check as B/X plays it, and BECMI with it: a d20 at or under the score (with
    the referee's modifier) succeeds, a natural 1 always, a natural 20 never."""
    actor = able(alive(locked(viewer, actor)))
    secret = kept_secret(viewer, secret, actor)  # before any die is cast
    overruled = unsurprised(viewer, actor, despite_surprise=despite_surprise)
    result = ose.resolve_ability_check(score=score, modifier=modifier, rng=RNG, natural=natural)
    data = entries.Check(
        who=actor.name,
        ability=ability,
        score=score,
        roll=roll_data(result, needed=score, success=result.success, entered=natural is not None),
        despite_surprise=overruled,
    )
    return record(viewer, EntryKind.CHECK, data, secret=secret, once=once)
