"""Verifiable server dice (version 1): commit to a secret seed, derive every die from it, reveal
the seed later, and let anyone check that no die was changed or chosen.

The algorithm
-------------
* A seed is 32 random bytes (:func:`new_seed`), written as 64 lowercase hex characters.
* Its commitment (:func:`commitment`) is SHA-256 of the seed's 32 bytes (not of the hex text),
  as 64 lowercase hex characters. The commitment is published before any die is drawn; the seed
  is revealed when its period ends.
* The player's value is what the acting browser sent: 0 to 64 lowercase hex characters.
  :func:`player_value` normalises what arrives (strip, lowercase; anything that is not 0-64 hex
  characters becomes ``""``). Mixing it in means the server cannot know a die before the player
  asks for it, even though it knows the seed.
* A die with ``sides`` for roll number ``roll`` (1, 2, 3 … within its seed's period), die index
  ``index`` (0, 1, 2 … in the order the dice were drawn within that roll) and player value
  ``player`` (:func:`die`)::

      for attempt in 0, 1, 2, ...:
          message = f"fray-dice-1:{roll}:{index}:{attempt}:{player}".encode("utf-8")
          mac = HMAC-SHA256(key = seed's 32 bytes, message)
          x = int.from_bytes(mac[0:4], "big")              # 0 .. 2**32 - 1
          limit = 2**32 - (2**32 % sides)                  # the largest multiple of sides <= 2**32
          if x < limit:
              return x % sides + 1                         # 1 .. sides, no modulo bias

  Rejecting ``x >= limit`` (:func:`_accept`) removes the modulo bias; for a d1000 fewer than one
  draw in four million is rejected, so a second attempt is rare and a third practically never
  happens.

Sides: server dice have 2 to 1000 sides. The rules engine also allows a d1 (``1d1`` is valid
dice notation and reaches ``randint(1, 1)``), so everything here accepts ``sides == 1`` too: the
formula above gives 1 for it (every ``x`` is below ``limit == 2**32``), and a d1 is recorded
and verified like any other die, so that a document built from :class:`CommittedDice` always
verifies.

The proof document (what the verify page, ``manage.py verify_dice`` and an export carry)::

    {
      "version": 1,
      "periods": [{"number": 1, "commitment": "<64 hex>", "seed": "<64 hex>" or null}],
      "rolls": [{"entry": 12, "period": 1, "roll": 3, "player": "<hex or empty>",
                 "dice": [[20, 14], [8, 5]]}],
      "secret": [{"entry": 13, "commitment": "<64 hex>", "seed": "<64 hex>", "player": "...",
                  "dice": [[20, 7]]}]
    }

Verification (:func:`verify`; ``static/dice-proof.js`` does exactly the same in the browser):

1. A period with a seed: SHA-256(seed) must equal its commitment, else the period is "failed"
   and every roll in it fails with problem "seed". A period without a seed (null or missing) is
   "committed" (still open). A period that is not an object, whose number is not a whole number,
   whose commitment or seed is not 64 lowercase hex characters, or whose number appears twice,
   is "failed" too.
2. Within each period the rolls, taken in entry order, must be numbered 1, 2, 3 …: the k-th roll
   of a period must have ``roll == k``, else it fails with problem "order". Every roll whose
   entry, period and roll number are readable takes its place in that count, even if the rest
   of it is malformed.
3. A roll in a revealed period: die i must equal ``die(seed, roll, i, player, sides)``, else the
   roll fails with problem "die" (the die's "expected" value is given). A roll in an open period
   is "committed". A roll naming a period that is not in "periods" (or that appears there more
   than once) fails with problem "period".
4. A secret roll has its own seed, so its roll number is always 1: SHA-256(seed) must equal its
   commitment (problem "seed") and die i must equal ``die(seed, 1, i, player, sides)`` (problem
   "die"). A secret roll whose seed is null is "committed".
4a. A roll that says which dice its log entry's text shows (``shown``: a list of values; Fray's
   documents say it) must show exactly its dice, in any order, else it fails with problem
   "shown": the log was changed after the roll and its proof was not.
5. The report::

       {"ok": bool,  # nothing failed: no roll and no period
        "counts": {"verified": n, "committed": n, "failed": n},  # of the rolls, secret included
        "periods": [{"number": int|None, "state": "verified"|"committed"|"failed"}],
        "rolls": [{"entry": int|None, "period": int|None, "roll": int|None, "secret": bool,
                   "state": "verified"|"committed"|"failed",
                   "problem": None|"seed"|"die"|"order"|"period"|"malformed"|"shown",
                   "dice": [{"index": int, "sides": int|None, "value": int|None,
                             "expected": int|None, "ok": bool|None}]}]}

   "periods" in document order; "rolls" are the public rolls in document order, then the secret
   ones. A roll has at most one problem, the first of: "malformed", "period", "seed", "order",
   "die". A die's "expected" and "ok" are given whenever its seed is known good and both the
   roll and the die are readable (also when the roll fails for another reason); a malformed die
   has "ok" false; otherwise both are None.

Malformed content never raises: a roll with a field of the wrong type, a player value that is not
0-64 lowercase hex characters, a die that is not ``[sides, value]`` with sides 1..1000 and value
1..sides, or a roll number below 1 fails with problem "malformed". Whole numbers are ints (not
bools) or integral floats, within ±(2**53 - 1) so that the browser's numbers read them the same;
any number that is not one is shown as None in the report. Only a document that is not an object
with the lists "periods" and "rolls" (and, when present and not null, a list "secret"), or whose
"version" is present and is not 1, is refused with ``ValueError``.

This module is pure (the standard library only) so that the rules engine, the server and an
auditor's script can all use it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = [
    "MAX_SIDES",
    "SEED_BYTES",
    "VERSION",
    "CommittedDice",
    "commitment",
    "derive",
    "die",
    "new_seed",
    "player_value",
    "verify",
]

SEED_BYTES = 32
VERSION = 1
#: The most sides a die may have (as in :data:`rules.core.MAX_SIDES`; the fewest is 1).
MAX_SIDES = 1000
#: The most hex characters of a player's value.
PLAYER_HEX = 64

_HEX = frozenset("0123456789abcdef")
_RANGE = 2**32
# The browser reads JSON numbers as doubles: beyond this an integer is no longer exact there.
_SAFE = 2**53 - 1

_NOT_A_DOCUMENT = 'a dice proof must be a JSON object with the lists "periods" and "rolls"'
_BAD_SECRET = 'the "secret" of a dice proof, when present, must be a list'
_BAD_VERSION = f"this dice proof is not of version {VERSION}, the only one this verifier reads"


def _is_hex(value: object, low: int, high: int) -> bool:
    return isinstance(value, str) and low <= len(value) <= high and _HEX.issuperset(value)


def _is_seed(value: object) -> bool:
    return _is_hex(value, SEED_BYTES * 2, SEED_BYTES * 2)


def _whole(value: object) -> int | None:
    """``value`` as a whole number the browser reads exactly, else ``None`` (bools are not)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -_SAFE <= value <= _SAFE else None
    if isinstance(value, float) and value.is_integer() and -_SAFE <= value <= _SAFE:
        return int(value)
    return None


def _is_list(value: object) -> bool:
    return isinstance(value, list | tuple)


def new_seed() -> str:
    """A fresh secret seed: 32 random bytes as 64 lowercase hex characters."""
    return secrets.token_hex(SEED_BYTES)


def commitment(seed: str) -> str:
    """SHA-256 of the seed's 32 bytes, as 64 lowercase hex characters."""
    if not _is_seed(seed):
        raise ValueError("a seed is 64 lowercase hex characters")
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def player_value(text: object) -> str:
    """What the acting browser sent, normalised: stripped and lowercased if it is then 0-64 hex
    characters, else ``""``."""
    if not isinstance(text, str):
        return ""
    value = text.strip().lower()
    return value if _is_hex(value, 0, PLAYER_HEX) else ""


def _accept(x: int, sides: int) -> int | None:
    """The die shown by 32 bits ``x`` (0 .. 2**32 - 1), or ``None`` when ``x`` is rejected
    (``x >= limit``, the largest multiple of ``sides`` not above 2**32)."""
    limit = _RANGE - _RANGE % sides
    return x % sides + 1 if x < limit else None


def _mac(key: bytes, message: bytes) -> bytes:
    return hmac.digest(key, message, "sha256")


def _die(key: bytes, roll: int, index: int, player: str, sides: int) -> int:
    attempt = 0
    while True:
        message = f"fray-dice-1:{roll}:{index}:{attempt}:{player}".encode()
        value = _accept(int.from_bytes(_mac(key, message)[:4], "big"), sides)
        if value is not None:
            return value
        attempt += 1


def _check_sides(sides: object) -> int:
    if not isinstance(sides, int) or isinstance(sides, bool) or not 1 <= sides <= MAX_SIDES:
        raise ValueError(f"a die has 1 to {MAX_SIDES} sides, not {sides!r}")
    return sides


def _check_roll(seed: object, roll: object, player: object) -> bytes:
    if not _is_seed(seed):
        raise ValueError("a seed is 64 lowercase hex characters")
    if not isinstance(roll, int) or isinstance(roll, bool) or roll < 1:
        raise ValueError(f"a roll number is a whole number from 1, not {roll!r}")
    if not _is_hex(player, 0, PLAYER_HEX):
        raise ValueError(
            f"a player value is 0 to {PLAYER_HEX} lowercase hex characters "
            f"(normalise it with player_value), not {player!r}"
        )
    return bytes.fromhex(seed)  # type: ignore[arg-type]


def die(seed: str, roll: int, index: int, player: str, sides: int) -> int:
    """Die ``index`` (from 0) of roll ``roll`` (from 1) drawn from ``seed`` for ``player``:
    1 .. ``sides``. ``ValueError`` for arguments that are not what the algorithm takes."""
    key = _check_roll(seed, roll, player)
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise ValueError(f"a die index is a whole number from 0, not {index!r}")
    return _die(key, roll, index, player, _check_sides(sides))


def derive(seed: str, roll: int, player: str, sides_list: object) -> list[int]:
    """The dice of one roll: die i has ``sides_list[i]`` sides."""
    key = _check_roll(seed, roll, player)
    return [_die(key, roll, i, player, _check_sides(s)) for i, s in enumerate(sides_list)]  # type: ignore[arg-type]


class CommittedDice:
    """A random source for the rules engine whose dice are drawn from a committed seed: each
    ``randint(1, sides)`` is the next die of roll ``roll`` (index 0, 1, 2 …), and ``dice``
    keeps ``[sides, value]`` of every die in the order drawn (what a proof document carries).

    ``player`` must already be normalised (:func:`player_value`)."""

    def __init__(self, seed: str, roll: int, player: str) -> None:
        self._key = _check_roll(seed, roll, player)
        self.seed = seed
        self.roll = roll
        self.player = player
        self.dice: list[list[int]] = []

    def randint(self, a: int, b: int) -> int:
        """The next die of ``b`` sides (the rules only ask ``randint(1, sides)``)."""
        if not isinstance(a, int) or isinstance(a, bool) or a != 1:
            raise ValueError(f"committed dice roll from 1, not from {a!r}")
        sides = _check_sides(b)
        value = _die(self._key, self.roll, len(self.dice), self.player, sides)
        self.dice.append([sides, value])
        return value


# ----- verification -----


def _period_state(item: object) -> str:
    if not isinstance(item, dict) or _whole(item.get("number")) is None:
        return "failed"
    committed, seed = item.get("commitment"), item.get("seed")
    if not _is_seed(committed):
        return "failed"
    if seed is None:
        return "committed"
    if not _is_seed(seed):
        return "failed"
    return "verified" if commitment(seed) == committed else "failed"


def _die_item(item: object) -> tuple[int | None, int | None, bool]:
    """``(sides, value, well_formed)`` of one ``[sides, value]``."""
    if not _is_list(item) or len(item) != 2:  # type: ignore[arg-type]
        return None, None, False
    sides, value = _whole(item[0]), _whole(item[1])  # type: ignore[index]
    good = sides is not None and value is not None and 1 <= sides <= MAX_SIDES
    return sides, value, good and 1 <= value <= sides  # type: ignore[operator]


def _dice_report(
    raw: object, key: bytes | None, roll: int | None, player: str
) -> tuple[list[dict], bool, bool]:
    """The dice of one roll checked against ``key`` (``None``: nothing to check against):
    ``(reports, all well formed, all as expected)``."""
    reports: list[dict] = []
    well_formed = all_ok = True
    for index, item in enumerate(raw if _is_list(raw) else ()):  # type: ignore[arg-type]
        sides, value, good = _die_item(item)
        expected: int | None = None
        ok: bool | None = None
        if not good:
            well_formed, ok = False, False
        elif key is not None and roll is not None:
            expected = _die(key, roll, index, player, sides)  # type: ignore[arg-type]
            ok = value == expected
            all_ok = all_ok and ok
        reports.append(
            {"index": index, "sides": sides, "value": value, "expected": expected, "ok": ok}
        )
    return reports, well_formed, all_ok


def _dice_problems(item: object, well_formed: bool, all_ok: bool) -> list[str]:
    """What a roll's dice say is wrong with it: unreadable, not the seed's, not its entry's."""
    found = [] if well_formed else ["malformed"]
    if not all_ok:
        found.append("die")
    if not _shows(item):
        found.append("shown")
    return found


def _shows(item: object) -> bool:
    """Whether a roll's ``shown`` (the dice its log entry's text shows, when the document
    says) are its dice, in any order; a roll that does not say passes."""
    shown = _field(item, "shown")
    if shown is None:
        return True
    dice = _field(item, "dice")
    if not isinstance(shown, list) or not isinstance(dice, list):
        return False
    pairs = [pair if isinstance(pair, list) and len(pair) == 2 else [None, None] for pair in dice]
    values = [_whole(pair[1]) for pair in pairs]
    told = [_whole(value) for value in shown]
    if None in values or None in told:
        return False
    return sorted(told) == sorted(values)  # type: ignore[type-var]


def _field(item: object, name: str) -> object:
    return item.get(name) if isinstance(item, dict) else None


def _roll_report(
    entry: int | None,
    period: int | None,
    roll: int | None,
    secret: bool,
    problems: list[str],
    state: str,
    dice: list[dict],
) -> dict:
    order = ("malformed", "period", "seed", "order", "die", "shown")
    problem = next((p for p in order if p in problems), None)
    return {
        "entry": entry,
        "period": period,
        "roll": roll,
        "secret": secret,
        "state": "failed" if problem else state,
        "problem": problem,
        "dice": dice,
    }


def _document_lists(document: object) -> tuple[list | tuple, list | tuple, list | tuple]:
    if not isinstance(document, dict):
        raise ValueError(_NOT_A_DOCUMENT)
    periods, rolls = document.get("periods"), document.get("rolls")
    if not _is_list(periods) or not _is_list(rolls):
        raise ValueError(_NOT_A_DOCUMENT)
    secret = document.get("secret")
    if secret is None:
        secret = []
    elif not _is_list(secret):
        raise ValueError(_BAD_SECRET)
    if "version" in document and _whole(document["version"]) != VERSION:
        raise ValueError(_BAD_VERSION)
    return periods, rolls, secret  # type: ignore[return-value]


def verify(document: object) -> dict:
    """The report on a proof document (see the module docstring); ``ValueError`` only for a
    document that is not one at all."""
    periods, rolls, secrets_ = _document_lists(document)

    period_reports = []
    states: dict[int, list[tuple[str, object]]] = {}
    for item in periods:
        number, state = _whole(_field(item, "number")), _period_state(item)
        period_reports.append({"number": number, "state": state})
        if number is not None:
            states.setdefault(number, []).append((state, _field(item, "seed")))
    for report in period_reports:
        if len(states.get(report["number"], ())) > 1:
            report["state"] = "failed"

    # The order: every roll whose place is readable, by period, in entry order.
    places: dict[int, list[tuple[int, int, int]]] = {}
    for position, item in enumerate(rolls):
        entry, period = _whole(_field(item, "entry")), _whole(_field(item, "period"))
        roll = _whole(_field(item, "roll"))
        if entry is not None and period is not None and roll is not None and roll >= 1:
            places.setdefault(period, []).append((entry, position, roll))
    out_of_order = set()
    for placed in places.values():
        placed.sort()  # by entry (then by place in the document)
        for k, (_entry, position, roll) in enumerate(placed, 1):
            if roll != k:
                out_of_order.add(position)

    roll_reports = []
    for position, item in enumerate(rolls):
        entry, period = _whole(_field(item, "entry")), _whole(_field(item, "period"))
        roll, player = _whole(_field(item, "roll")), _field(item, "player")
        problems = []
        readable = (
            isinstance(item, dict)
            and entry is not None
            and period is not None
            and roll is not None
            and roll >= 1
            and _is_hex(player, 0, PLAYER_HEX)
            and _is_list(item.get("dice"))
        )
        if not readable:
            problems.append("malformed")
        key, state = None, "committed"
        named = states.get(period, []) if period is not None else []
        if period is not None and len(named) != 1:
            problems.append("period")
        elif named:
            period_state, seed = named[0]
            if period_state == "failed":
                problems.append("seed")
            elif period_state == "verified":
                key, state = bytes.fromhex(seed), "verified"  # type: ignore[arg-type]
        if position in out_of_order:
            problems.append("order")
        dice, well_formed, all_ok = _dice_report(
            _field(item, "dice"),
            key if readable else None,
            roll,
            player,  # type: ignore[arg-type]
        )
        problems += _dice_problems(item, well_formed, all_ok)
        roll_reports.append(_roll_report(entry, period, roll, False, problems, state, dice))

    for item in secrets_:
        entry, player = _whole(_field(item, "entry")), _field(item, "player")
        committed, seed = _field(item, "commitment"), _field(item, "seed")
        problems = []
        readable = (
            isinstance(item, dict)
            and entry is not None
            and _is_seed(committed)
            and (seed is None or _is_seed(seed))
            and _is_hex(player, 0, PLAYER_HEX)
            and _is_list(item.get("dice"))
        )
        key, state = None, "committed"
        if not readable:
            problems.append("malformed")
        elif seed is not None:
            if commitment(seed) == committed:  # type: ignore[arg-type]
                key, state = bytes.fromhex(seed), "verified"  # type: ignore[arg-type]
            else:
                problems.append("seed")
        dice, well_formed, all_ok = _dice_report(_field(item, "dice"), key, 1, player)  # type: ignore[arg-type]
        problems += _dice_problems(item, well_formed, all_ok)
        roll_reports.append(_roll_report(entry, None, 1, True, problems, state, dice))

    counts = {"verified": 0, "committed": 0, "failed": 0}
    for report in roll_reports:
        counts[report["state"]] += 1
    failed = counts["failed"] > 0 or any(p["state"] == "failed" for p in period_reports)
    return {"ok": not failed, "counts": counts, "periods": period_reports, "rolls": roll_reports}
