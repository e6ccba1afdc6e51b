"""The payloads of the round's course (``combat.rounds``): the fight's start and end (kind
``combat``), initiative, turns and the round's end (``turn``), morale checks and conditions.
Every system shares them.

A kind's events share one class: the keys only one event stores are fields stored only when
set (:func:`~combat.payloads.base.omitted`, None when the entry is another event's), so each
entry keeps the shape it always had. The course's entries keep the round as it was before them
(:class:`Before`): that is what their undo puts back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from combat.payloads.base import Payload, kind, omitted
from combat.payloads.zones import ZoneTick


@dataclass(kw_only=True)
class Before(Payload):
    """The round as it stood before a change of its course: the encounter's ``round`` and
    ``turn`` document, and (the fight's start only) its side's ``morale`` records."""

    round: int = 0
    turn: dict[str, Any] = field(default_factory=dict)
    morale: dict[str, Any] | None = omitted()


@dataclass(kw_only=True)
class Surprise(Payload):
    """The surprise rolls at the fight's start: each side's ``[natural, typed in, surprised]``
    and who is ``surprised`` ("party", "foes", "both" or "")."""

    party: list[Any] = field(default_factory=list)
    foes: list[Any] = field(default_factory=list)
    surprised: str = ""


@dataclass(kw_only=True)
class Award(Payload):
    """The experience for one slain foe, as the referee shared it: its ``name``, Hit Dice
    (``hd``), whether it was ``hidden``, the referee's ``xp`` and the table's figure
    (``table``, with its ``base`` and ``bonus``; None: the table says nothing for it)."""

    name: str = ""
    hd: str = ""
    hidden: bool = False
    xp: int = 0
    table: int | None = None
    base: int | None = None
    bonus: int | None = None


@dataclass(kw_only=True)
class Combat(Payload):
    """The fight's start or end (``event``: "start", "end"), with the round before it.

    The start: the ``surprise`` rolls, if any. The end (``combat.rounds.end_fight``): the
    ``rounds`` fought, who ``fell`` and who ``fled`` (``[[side, [{"name", "hidden"}, ...]],
    ...]``), the ``awards``, their ``xp_total``, the referee's ``extra`` line, the ``shares``
    and what each gets (``per_share``, ``remainder``), and the period of the server's dice
    its end revealed (``dice_period``: ``combat.table.dice``), if any roll used it."""

    event: str = ""
    before: Before | None = None
    surprise: Surprise | None = omitted()
    rounds: int | None = omitted()
    fell: list[list[Any]] | None = omitted()
    fled: list[list[Any]] | None = omitted()
    awards: list[Award] | None = omitted()
    xp_total: int | None = omitted()
    extra: str | None = omitted()
    shares: int | None = omitted()
    per_share: int | None = omitted()
    remainder: int | None = omitted()
    dice_period: int | None = omitted()


@dataclass(kw_only=True)
class Initiative(Payload):
    """Initiative for a ``round`` (``again``: the referee's re-roll), with the round before.

    Group (``mode`` "group"): each side's d6 (``party``, ``foes``: ``[natural, typed in]``),
    the ties re-rolled (``rerolls``: ``[party, foes]`` each) and who acts ``first``.
    Individual: ``rolls``, ``[name, natural, typed in, modifier, total]`` each. In the
    fight's first round, the side that lost it to surprise (``surprised``: "party", "foes"
    or "both"): it does not act, whatever the dice say."""

    round: int = 0
    before: Before | None = None
    again: bool = False
    mode: str = ""
    party: list[Any] | None = omitted()
    foes: list[Any] | None = omitted()
    rerolls: list[list[int]] | None = omitted()
    first: str | None = omitted()
    rolls: list[list[Any]] | None = omitted()
    surprised: str = omitted("")


@dataclass(kw_only=True)
class Acting(Payload):
    """Who acts now: ``sides`` (group initiative) or combatants' ``names`` (individual)."""

    sides: list[str] = omitted(factory=list)
    names: list[str] = omitted(factory=list)


@dataclass(kw_only=True)
class Turn(Payload):
    """A turn passed or a round ended (``event``: "next", "round"), in ``round``, with the
    round before.

    The next turn: whether everyone has acted (``done``) or who is ``acting`` now. The
    round's end: the conditions it counted down (``ticked``: their ids, which an undo counts
    back up), those that ran out (``expired``: ``[name, condition, note]`` each) and, with hit
    locations, what it did to each body (``zones``)."""

    event: str = ""
    round: int = 0
    before: Before | None = None
    done: bool | None = omitted()
    acting: Acting | None = omitted()
    ticked: list[int] | None = omitted()
    expired: list[list[Any]] | None = omitted()
    zones: list[ZoneTick] | None = omitted()


@dataclass(kw_only=True)
class Morale(Payload):
    """A side's morale check (``combat.rounds.check_morale``): the ``side``, its ``score``,
    ``why`` it was due, the 2d6 (``dice``, ``entered``: typed in) and their ``total``, whether
    it ``passed`` (``automatic``: a rule that decided it; ``to_the_death``: they now fight to
    the death), who ``fled`` (and their ids, ``fled_ids``) and the morale records before it
    (``before_morale``), which its undo puts back."""

    side: str = ""
    score: int = 0
    why: str = ""
    dice: list[int] = field(default_factory=list)
    entered: bool = False
    total: int = 0
    passed: bool = False
    automatic: str = ""
    to_the_death: bool = False
    fled: list[str] = field(default_factory=list)
    fled_ids: list[int] = field(default_factory=list)
    before_morale: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class ConditionChange(Payload):
    """A condition added or ended (``event``: "add", "end") on ``who``: its ``kind``,
    ``note`` and id (``condition``). Added: for how many ``rounds`` (None: until ended).
    Ended: the ``rounds_left`` it had, which its undo gives it back."""

    event: str = ""
    who: str = ""
    kind: str = ""
    note: str = ""
    condition: int | None = None
    rounds: int | None = omitted()
    rounds_left: int | None = omitted()


kind("combat")(Combat)
kind("initiative")(Initiative)
kind("turn")(Turn)
kind("morale")(Morale)
kind("condition")(ConditionChange)
