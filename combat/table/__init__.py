"""The toolkit every action uses: locks, one-time keys, numbering, recording, life and death.

This is the layer between the models and the systems (``rules`` → models → **table** →
systems, zones, rounds, campaign → views and live → site; ``lint-imports`` keeps it).
Everything here is public and imported from ``combat.table``. Nothing here imports a system,
the zones, the rounds, the views or the live table: what it needs of them is plugged in when
the apps are ready (:mod:`combat.table.hooks`, connected by ``combat.apps``): the live
table's announcer, hit locations, and what an undo puts back besides hit points.

The contract
============

An action is one transaction (``@transaction.atomic``) that, in this order:

1. **locks** the combatants it changes, before it writes anything: :func:`locked` (one),
   :func:`locked_pair` (two, in id order, so that two changes at once never wait for each
   other) or :func:`attack_pair` (the pair, with the conditions in force on each, read in
   the same query). They raise ``Combatant.DoesNotExist`` for a combatant not the viewer's
   encounter's. The encounter's own row is locked last, by the number :func:`record` takes.
   On a copy of the table as this process last rendered it (``Encounter.as_rendered``),
   nothing is read: the rows are taken as they are, and the lock goes with the next
   statement; the change's number confirms the copy, or the transaction rolls back
   (``Encounter.moved_to``).
2. **checks** who may act: :func:`alive` (the dead do not act), :func:`able` (paralysed,
   asleep or held: no attack, check or rest), :func:`armed` (hit locations: wounds that
   forbid attacking), :func:`unsurprised` (a surprised side loses the fight's first round:
   every action in the round asks it, and the referee may rule otherwise, which the entry
   records as its ``despite_surprise``); each raises ``Refused`` with a message naming the
   combatant, which rolls everything back.
3. asks ``rules`` for the outcome, with :data:`RNG` (the server's dice, sealed before the
   roll and kept as the entry's proof: :mod:`combat.table.dice`; an action that may be
   secret asks :func:`kept_secret` before its first die, so that a secret roll's dice come
   from the secret stream) or the dice typed in from the table, and **changes hit points**
   only through :func:`set_hp` or :func:`hurt`, which return the entry's effect
   (``{"combatant": pk, "hp": change}``, what an undo reverses) and whether the change
   killed.
4. **records** exactly one log entry with :func:`record` (or, for a change that writes no
   entry, :func:`touch`), its ``secret`` from :func:`kept_secret`. ``record`` numbers the
   entry with the encounter's next sequence number (and the next public one, unless it is
   secret), claims the action's one-time key for it (:func:`claim`; a key used before
   raises :class:`Repeated` and the whole transaction rolls back, so a form sent twice is
   applied once), stamps the combatants it names who are hidden now (``combat.unseen``),
   and announces the change **after commit** (:func:`announce`): never before, never for
   a transaction that rolls back, and at once outside a transaction.

An attack is all of that in one place: a system subclasses :class:`Attack` with its own
entry, hit roll and damage, and :meth:`Attack.run` keeps the order above for every system
(lock the pair; alive, able, unsurprised, armed, not itself; locate the hit; the target
alive; the helpless rule or the roll; damage, landed in a zone or taken from the hit points;
one entry).

The log entry's ``data`` is keys and numbers only, so each viewer reads it in their own
language: an action builds its kind's payload (``combat.payloads``), the parts of a roll
with :func:`roll_data` and :func:`damage_data` (a ``Roll`` and a ``DamageRoll``), their
modifiers with :func:`modifiers`. Its ``effects`` are what :func:`undo` reverses: a new
entry, the original kept, each entry undone once however many ask at once
(:class:`AlreadyUndone`).

The death rule: a combatant at 0 hit points or fewer is dead (``Combatant.dead``): it does
not act (:func:`alive`) and cannot be attacked (``target_is_dead``); the rules refuse to
heal it, so only an undo or the referee's correction (:func:`correct_hit_points`) brings it
back. Hit points never go below ``HP_FLOOR`` (:func:`set_hp`), and a system may stop them at
0 (its :meth:`Attack.after_damage`, or the registry's ``zero_floor``). :func:`set_hp` reports
a death when hit points go from above 0 to 0 or below; an undo that lifts them above 0 again
names who it revived.

The helpless rule: a target a condition leaves helpless (paralysed, asleep, held;
``rules.rounds.HELPLESS``) is not rolled against: the table's ``helpless_rule`` says it is
hit automatically (``HelplessRule.HIT``: the damage is rolled, and lands as any hit's) or
slain outright (``SLAIN``: its hit points go to 0). :func:`helpless_outcome` is the one
question every attack and every odds preview asks.
"""

from __future__ import annotations

from combat.table.actions import (
    AlreadyUndone,
    ability_check,
    change_hit_points,
    correct_hit_points,
    free_roll,
    rest,
    show,
    undo,
)
from combat.table.attack import LOCATION_FIELDS, Attack, classic_damage, deal_damage, where
from combat.table.dice import UNLOGGED, own_roll, reveal, seal, secret_dice, server_dice
from combat.table.hooks import Announcer, HitLocations, connect, undoing
from combat.table.life import (
    able,
    alive,
    armed,
    caught,
    helpless,
    helpless_outcome,
    hurt,
    set_hp,
    surprised,
    unsurprised,
)
from combat.table.locks import attack_pair, conditions_in_force, locked, locked_pair
from combat.table.record import (
    Repeated,
    announce,
    claim,
    first_result,
    kept_secret,
    record,
    secret_for,
    touch,
    usable_key,
)
from combat.table.rolls import RNG, damage_data, modifiers, roll_data

__all__ = [
    "LOCATION_FIELDS",
    "RNG",
    "UNLOGGED",
    "AlreadyUndone",
    "Announcer",
    "Attack",
    "HitLocations",
    "Repeated",
    "ability_check",
    "able",
    "alive",
    "announce",
    "armed",
    "attack_pair",
    "caught",
    "change_hit_points",
    "claim",
    "classic_damage",
    "conditions_in_force",
    "connect",
    "correct_hit_points",
    "damage_data",
    "deal_damage",
    "first_result",
    "free_roll",
    "helpless",
    "helpless_outcome",
    "hurt",
    "kept_secret",
    "locked",
    "locked_pair",
    "modifiers",
    "own_roll",
    "record",
    "rest",
    "reveal",
    "roll_data",
    "seal",
    "secret_dice",
    "secret_for",
    "server_dice",
    "set_hp",
    "show",
    "surprised",
    "touch",
    "undo",
    "undoing",
    "unsurprised",
    "usable_key",
    "where",
]
