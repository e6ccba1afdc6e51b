"""The server's dice: sealed before the roll, revealed after, checkable by anyone at the table.

Every die the server rolls for an action derives from a secret seed (``rules.fair``): HMAC-SHA256
of the seed over the roll's number, the die's index and a value the acting browser sent with
the action (``dice``: its own randomness), with rejection sampling. Every screen shows the
seed's commitment (its SHA-256) before the first roll it covers, so the server could not pick
the dice after seeing the player's value, and the player could not either (the seed is secret).

Public rolls are numbered 1, 2, 3... in a *period*; when the fight ends, when the referee
rotates the seed (:func:`rotate`) or when the encounter is exported, the period's seed is
revealed (a :class:`~combat.models.DiceSeed`) and a new period starts with a new commitment.
Anyone can then derive every die of the period again: the browser's verify page, ``manage.py
verify_dice`` or a dozen lines of their own (the README).

Secret rolls (the referee's, and every roll a hidden combatant takes part in) come from a
stream of their own: each secret roll has its own seed, whose commitment only the referee
sees before it and which goes with the roll's entry (so a secret roll revealed later carries
its proof, and players never learn from the public numbering that a secret roll happened).

How an action uses it: its view runs it inside :func:`server_dice` (``act_once`` does, for
every panel); the action decides whether it is secret (``combat.table.kept_secret``) *before*
its first die, and :data:`RNG`'s dice then come from the right stream; ``record`` takes the
dice drawn so far into the entry's ``proof`` (:func:`taken`). A roll number is taken in the
action's transaction, in the statement that moves the encounter's count on (its row stays
locked until the entry is written): a change that rolls back takes no number, so the numbers
have no gaps.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import connections, router, transaction
from django.db.models import F

from combat.models import DiceSeed, Encounter, EntryKind, LogEntry
from combat.unseen import for_players
from rules import fair

logger = logging.getLogger(__name__)

# Tests set this: a die drawn and never recorded, or a secret entry whose dice came from the
# public stream, raises instead of being logged (either would leave a gap in the numbers).
STRICT = False


class DiceMisuse(RuntimeError):
    """An action drew server dice in a way that would leave a gap players could see."""


def _misuse(message: str) -> None:
    if STRICT:
        raise DiceMisuse(message)
    logger.error("server dice: %s", message)


def _returning(sql: str, params: list[Any]) -> tuple[Any, ...]:
    connection = connections[router.db_for_write(Encounter)]
    table = connection.ops.quote_name(Encounter._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(sql.format(table=table), params)
        row = cursor.fetchone()
    if row is None:
        raise Encounter.DoesNotExist("Encounter matching query does not exist.")
    return tuple(row)


class ServerRoll:
    """The server dice of one action in progress: its public roll and its secret one, each
    taken (numbered, its seed read) at its first die."""

    def __init__(self, encounter_id: int, player: object = "") -> None:
        self.encounter_id = encounter_id
        self.player = fair.player_value(player)
        self.secret = False  # the action is secret: its dice come from the secret stream
        self.forced = 0  # inside ``secret_dice``: these dice are secret whatever the action is
        self.public: fair.CommittedDice | None = None
        self.period = 0
        self.hidden: fair.CommittedDice | None = None
        self.hidden_number = 0
        # Numbers taken ahead for this action's next public rolls (``own_roll``'s ``after``),
        # with their period and seed.
        self.ahead: list[int] = []
        self.ahead_of: tuple[int, str] = (0, "")

    @property
    def drawn(self) -> bool:
        return self.public is not None or self.hidden is not None

    def draw(self, a: int, b: int, fixed: Any = None) -> int:
        source = self._secret() if self.secret or self.forced else self._public()
        if fixed is None:
            return source.randint(a, b)
        value = fixed.randint(a, b)  # a test's fixed dice: recorded, not derived
        source.dice.append([b, value])
        return value

    def _public(self) -> fair.CommittedDice:
        if self.public is None:
            if self.ahead:
                (period, seed), number = self.ahead_of, self.ahead.pop(0)
            else:
                period, seed, number = self._take(1)
            self.period = period
            self.public = fair.CommittedDice(seed, number, self.player)
        return self.public

    def _take(self, count: int) -> tuple[int, str, int]:
        """``count`` public roll numbers: the period, its seed and the last of them."""
        period, seed, last = _returning(
            "UPDATE {table} SET dice_rolls = dice_rolls + %s WHERE id = %s"
            " RETURNING dice_period, dice_seed, dice_rolls",
            [count, self.encounter_id],
        )
        return period, seed, last

    def _secret(self) -> fair.CommittedDice:
        if self.hidden is None:
            number, seed = _returning(
                "UPDATE {table} SET secret_rolls = secret_rolls + 1 WHERE id = %s"
                " RETURNING secret_rolls, secret_seed",
                [self.encounter_id],
            )
            # Each secret roll has its own seed: the next one's commitment is sealed now.
            Encounter.objects.filter(pk=self.encounter_id).update(secret_seed=fair.new_seed())
            self.hidden_number = number
            self.hidden = fair.CommittedDice(seed, 1, self.player)
        return self.hidden

    def taken(self, secret_entry: bool) -> dict[str, Any]:
        """The dice drawn since the last entry, as the next entry's ``proof``."""
        proof: dict[str, Any] = {}
        if self.public is not None:
            proof["public"] = {
                "period": self.period,
                "roll": self.public.roll,
                "player": self.player,
                "dice": self.public.dice,
            }
            if secret_entry:
                _misuse("a secret entry drew dice from the public stream")
        if self.hidden is not None:
            proof["secret"] = {
                "number": self.hidden_number,
                "seed": self.hidden.seed,
                "commitment": fair.commitment(self.hidden.seed),
                "player": self.player,
                "dice": self.hidden.dice,
            }
        self.public = self.hidden = None
        self.secret = False
        return proof


_ROLL: ContextVar[ServerRoll | None] = ContextVar("fray_server_roll", default=None)


class ServerDice:
    """The server's random source (``combat.table.RNG``): inside :func:`server_dice`, every
    die derives from the encounter's sealed seed and is kept for the entry's proof; outside
    (a management command, a test calling an action directly), a system random die.

    A test that fixes the dice sets ``fixed`` (``tests.combat.conftest.fixed_dice``): its
    dice are used, and still numbered and recorded as the server's."""

    def __init__(self) -> None:
        self.fixed: Any = None
        self._system = secrets.SystemRandom()

    def randint(self, a: int, b: int) -> int:
        roll = _ROLL.get()
        if roll is None:
            return (self.fixed or self._system).randint(a, b)
        return roll.draw(a, b, self.fixed)


RNG = ServerDice()

# Dice no entry shows, so no proof can cover: a new monster's hit points, rolled as it is
# added (the referee may change them at once).
UNLOGGED = secrets.SystemRandom()


@contextmanager
def server_dice(encounter: Encounter, player: object = "") -> Iterator[ServerRoll]:
    """Run an action's server dice from ``encounter``'s sealed seeds, with ``player`` (the
    value the acting browser sent: ``fair.player_value`` keeps 0-64 hex digits, else none)."""
    roll = ServerRoll(encounter.pk, player)
    token = _ROLL.set(roll)
    try:
        yield roll
        if roll.drawn or roll.ahead:
            _misuse("server dice were drawn, or numbers taken, and no entry recorded them")
    finally:
        _ROLL.reset(token)


@contextmanager
def secret_dice(secret: bool = True) -> Iterator[None]:
    """The dice drawn inside come from the secret stream when ``secret``: a hidden
    combatant's initiative in an entry players read without it."""
    roll = _ROLL.get()
    if roll is None or not secret:
        yield
        return
    roll.forced += 1
    try:
        yield
    finally:
        roll.forced -= 1


@contextmanager
def own_roll(secret: bool = False, after: int = 0) -> Iterator[ServerRoll | None]:
    """The dice drawn inside are a roll of their own, for an entry written later (pass it to
    ``record`` as ``roll``) after ``after`` entries with public server rolls of the same action:
    an area effect's damage, rolled first and written after the saves it causes, which it
    heads in the log. Players' roll numbers follow the entries (``rules.fair``: the k-th roll
    of a period is roll k), so its number is the one after theirs, which are taken with it
    for the action's next ``after`` public rolls. ``secret``: the entry it goes to is secret."""
    outer = _ROLL.get()
    if outer is None:
        yield None
        return
    roll = _Later(outer, after)
    roll.secret = secret
    token = _ROLL.set(roll)
    try:
        yield roll
    finally:
        _ROLL.reset(token)


class _Later(ServerRoll):
    """A roll written after ``after`` more public rolls of the action ``outer``."""

    def __init__(self, outer: ServerRoll, after: int) -> None:
        super().__init__(outer.encounter_id, outer.player)
        self.outer, self.after = outer, after

    def _take(self, count: int) -> tuple[int, str, int]:
        period, seed, last = super()._take(count + self.after)
        self.outer.ahead = list(range(last - self.after, last))
        self.outer.ahead_of = (period, seed)
        return period, seed, last


def secret_action() -> None:
    """The action in progress is secret: its dice come from the secret stream (asked by
    ``kept_secret``, before the first die)."""
    roll = _ROLL.get()
    if roll is None:
        return
    if roll.public is not None:
        _misuse("an action turned secret after drawing public dice")
    roll.secret = True


def taken(secret_entry: bool, roll: ServerRoll | None = None) -> dict[str, Any]:
    """The dice the action drew since its last entry (or ``roll``'s, from :func:`own_roll`),
    as the ``proof`` of the entry being written (``record``); empty outside
    :func:`server_dice` or when none were drawn."""
    roll = roll if roll is not None else _ROLL.get()
    return roll.taken(secret_entry) if roll is not None else {}


# --- periods -----------------------------------------------------------------------------------


def reveal(encounter: Encounter, *, only_if_rolled: bool = False) -> DiceSeed | None:
    """End ``encounter``'s dice period, in the caller's transaction: its seed revealed to
    everyone, a new seed sealed for the next (``only_if_rolled``: not when no roll used it).
    The caller records or announces the change."""
    assert transaction.get_connection().in_atomic_block, "reveal runs inside a transaction"
    period, seed, rolls = (
        Encounter.objects.select_for_update()
        .values_list("dice_period", "dice_seed", "dice_rolls")
        .get(pk=encounter.pk)
    )
    if only_if_rolled and not rolls:
        return None
    fresh = fair.new_seed()
    Encounter.objects.filter(pk=encounter.pk).update(
        dice_period=F("dice_period") + 1, dice_rolls=0, dice_seed=fresh
    )
    encounter.dice_period, encounter.dice_rolls, encounter.dice_seed = period + 1, 0, fresh
    return DiceSeed.objects.create(encounter=encounter, number=period, seed=seed, rolls=rolls)


# What an entry's data holds besides what it says: the round as it was (for an undo), who was
# hidden, what players saw of a secret entry, its group.
_NOT_SAID = frozenset({"before", "before_morale", "unseen", "public", "group", "awards"})


def shown_dice(kind: str, data: Any) -> list[int] | None:
    """The server's dice ``data`` (an entry's, as its reader reads it) shows: every roll's
    natural and every list of dice not typed in, a monster's escape roll, and the round's own
    lists (surprise, initiative). None for data that is not an entry's."""
    if not isinstance(data, dict):
        return None
    found: list[int] = []
    _walk(data, found)
    if kind == EntryKind.COMBAT and isinstance(data.get("surprise"), dict):
        for side in ("party", "foes"):  # [natural, typed in, surprised]
            found += _untyped(data["surprise"].get(side))
    if kind == EntryKind.INITIATIVE:
        for side in ("party", "foes"):  # [natural, typed in]
            found += _untyped(data.get(side))
        for rerolled in data.get("rerolls") or ():  # [party, foes]: the server's
            found += [n for n in rerolled if _whole(n)] if isinstance(rerolled, list) else []
        for row in data.get("rolls") or ():  # [name, natural, typed in, modifier, total]
            found += _untyped(row[1:3] if isinstance(row, list) else None)
    return found


def _walk(value: Any, found: list[int]) -> None:
    if isinstance(value, list):
        for item in value:
            _walk(item, found)
        return
    if not isinstance(value, dict):
        return
    typed = bool(value.get("entered"))
    if _whole(value.get("natural")) and not typed:
        found.append(value["natural"])
    if isinstance(value.get("dice"), list) and not typed:
        found += [n for n in value["dice"] if _whole(n)]
    if _whole(value.get("escape")) and not value.get("escape_entered"):
        found.append(value["escape"])
    for key, item in value.items():
        if key not in _NOT_SAID and key not in ("natural", "dice", "escape"):
            _walk(item, found)


def _untyped(pair: Any) -> list[int]:
    """``[natural, typed in, ...]``: the natural, when the server rolled it."""
    if isinstance(pair, list) and len(pair) >= 2 and _whole(pair[0]) and not pair[1]:
        return [pair[0]]
    return []


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def readable(
    proof: Any, data: Any, *, secret: bool, referee: bool
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The parts of an entry's ``proof`` a viewer may read, ``(public, secret)``: players, the
    public roll of an entry they read whole, and the secret one of a secret roll the referee
    showed them (``table.show``: it carries its own seed); the referee, both. The one rule the
    log's marks and the proof document follow."""
    proof = proof if isinstance(proof, dict) else {}
    public, hidden = proof.get("public"), proof.get("secret")
    shown = not secret and isinstance(data, dict) and bool(data.get("shown"))
    return (
        public if isinstance(public, dict) and (referee or not secret) else None,
        hidden if isinstance(hidden, dict) and (referee or shown) else None,
    )


def seal(encounter: Encounter, *, referee: bool) -> tuple[int, str, str]:
    """What the seal shows a viewer: the open period, its commitment and, to the referee, the
    next secret roll's."""
    secret = encounter.secret_commitment if referee else ""
    return encounter.dice_period, encounter.dice_commitment, secret


def periods(encounter: Encounter) -> list[dict[str, Any]]:
    """Every period of ``encounter``'s dice: those over, with their revealed seeds, and the
    open one, its seal alone."""
    found: list[dict[str, Any]] = [
        {"number": s.number, "commitment": s.commitment, "seed": s.seed}
        for s in DiceSeed.objects.filter(encounter=encounter)
    ]
    found.append(
        {"number": encounter.dice_period, "commitment": encounter.dice_commitment, "seed": None}
    )
    return found


def document(encounter: Encounter, *, referee: bool) -> dict[str, Any]:
    """The proof document (``rules.fair.verify`` reads it) of every server die a viewer may
    see: players, the public rolls of the entries they read, numbered as they see them, and
    the secret rolls the referee showed them; the referee, every roll, secret ones too."""
    periods_ = periods(encounter)
    rolls, secret = [], []
    entries = (
        LogEntry.objects.filter(encounter=encounter)
        .exclude(proof={})
        .order_by("seq")
        .values_list("seq", "public_seq", "secret", "proof", "kind", "data")
    )
    for seq, public_seq, is_secret, proof, kind, data in entries:
        public, hidden = readable(proof, data, secret=is_secret, referee=referee)
        number = seq if referee else public_seq
        # The dice the entry's text shows, as this viewer reads it (players, without its hidden
        # ones' dice): said of a roll that is all the entry shows this viewer.
        said = shown_dice(kind, data if referee else for_players(data))
        told = {"shown": said} if said is not None and not (public and hidden) else {}
        if public:
            rolls.append({"entry": number, **public} | told)
        if hidden:
            secret.append({"entry": number, **hidden} | told)
    found: dict[str, Any] = {"version": fair.VERSION, "periods": periods_, "rolls": rolls}
    if referee or secret:
        found["secret"] = secret
    return found
