"""What Fray stores: encounters, their seats, combatants and the append-only roll log.

Models store; ``rules`` decides. Hit points change only inside one transaction that holds the
row (``select_for_update`` on PostgreSQL, the IMMEDIATE write lock on SQLite), and every change
bumps the encounter's sequence number so browsers can tell whether they missed one.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db import connections, models, router, transaction
from django.db.models import F
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from combat import payloads, registry
from combat.bounded import checks, limits, within
from combat.classes import CharacterClass, validate_saves_as
from rules import fair, ose

# A monster's movement and special abilities as typed (combat.monsters reads them).
MOVEMENT_LIMIT = 40  # "120' (40'), fly 360' (120')"
SPECIAL_LIMIT = 500


def _referee_key() -> str:
    return secrets.token_urlsafe(24)  # 192 bits: the referee's capability


def _join_token() -> str:
    return secrets.token_urlsafe(16)  # 128 bits, as short as a safe link can be


def _display_token() -> str:
    return secrets.token_urlsafe(16)  # 128 bits: the table display's capability (read-only)


def _dice_seed() -> str:
    return fair.new_seed()  # (looked up when called: a test may draw the seeds from its own)


def _slug() -> str:
    return secrets.token_urlsafe(12)


class AttackMethod(models.TextChoices):
    MATRIX = "matrix", _("Attack matrix")
    THAC0 = "thac0", _("THAC0 computed directly")
    ASCENDING = "ascending", _("Ascending AC")


class Side(models.TextChoices):
    PARTY = "party", _("Party")
    FOES = "foes", _("Foes")


class Kind(models.TextChoices):
    CHARACTER = "character", _("Character")
    MONSTER = "monster", _("Monster")
    NORMAL_HUMAN = "normal_human", _("Normal human")
    SHIP = (
        "ship",
        _("Ship"),
    )  # BECMI naval combat (combat.systems.becmi.special): hit points are hull


class InitiativeMode(models.TextChoices):
    GROUP = "group", _("Group initiative: 1d6 per side")
    INDIVIDUAL = "individual", _("Individual initiative: 1d6 + DEX per combatant")


class HelplessRule(models.TextChoices):
    HIT = "hit", _("Attacks on a helpless target hit automatically")
    SLAIN = "slain", _("A helpless target is slain outright")


class Campaign(models.Model):
    """A group's series of encounters: what carries from one encounter to the next (the
    bestiary, the party). An encounter is given one when something first needs it
    (:meth:`Encounter.campaign_or_new`); encounters made from another share its campaign."""

    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"campaign {self.pk}"


class BestiaryEntry(models.Model):
    """A monster kept as a template in a campaign's bestiary (``combat.bestiary``): its stat
    block is the fields a combatant stores, minus what one combatant in one fight has."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="bestiary")
    # The rules systems are the registry's (combat.systems): a new one needs no migration.
    system = models.CharField(_("rules system"), max_length=16, choices=registry.choices)
    name = models.CharField(pgettext_lazy("monster", "name"), max_length=50)
    source = models.CharField(_("source"), max_length=200, blank=True)
    stats = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name_plural = "bestiary entries"
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "system", "name"], name="bestiary_entry_unique"
            )
        ]

    def __str__(self) -> str:
        return self.name


def bump_returning(connection: Any) -> str | None:
    """``Encounter.bump`` as one UPDATE that returns what it wrote, where the database can
    (SQLite 3.35 and later, PostgreSQL); None elsewhere. Every change runs it, and Django
    writes the SQL of an UPDATE and a SELECT anew each time, which costs more than running
    them (see ``combat.db.prepared``). Its parameters: 1 to move the players' number on too (0
    not to), and the encounter's id."""
    if connection.vendor not in ("sqlite", "postgresql"):
        return None
    if not connection.features.can_return_columns_from_insert:  # RETURNING, from SQLite 3.35
        return None
    table, seq, public, pk = map(
        connection.ops.quote_name, (Encounter._meta.db_table, "seq", "public_seq", "id")
    )
    return (
        f"UPDATE {table} SET {seq} = {seq} + 1, {public} = {public} + %s "
        f"WHERE {pk} = %s RETURNING {seq}, {public}"
    )


class Stale(Exception):
    """A change was decided on a copy of its table as this process last rendered it, and
    another change was stored since (``Encounter.moved_to``): nothing was applied."""


ENCOUNTER_BOUNDS = {"round": "round"}


class Encounter(models.Model):
    slug = models.CharField(max_length=32, unique=True, default=_slug, editable=False)
    name = models.CharField(pgettext_lazy("encounter", "name"), max_length=80)
    system = models.CharField(
        _("rules system"), max_length=16, choices=registry.choices, default=registry.default_key
    )
    attack_method = models.CharField(
        _("attack resolution"), max_length=16, choices=AttackMethod, default=AttackMethod.MATRIX
    )
    show_foe_hp = models.BooleanField(_("show foes' hit points to players"), default=False)
    players_enter_dice = models.BooleanField(
        _("players may enter dice rolled at the table"),
        default=True,
        help_text=_("The log shows every die as rolled by the server or typed in."),
    )
    players_adjust_hp = models.BooleanField(
        _("players may adjust their own hit points"),
        default=False,
        help_text=_("Damage and healing by hand; attacks and saves change them anyway."),
    )
    players_claim = models.BooleanField(
        _("players may claim a party member"),
        default=False,
        help_text=_("A seated player takes a party member no one plays, from their own page."),
    )
    initiative_mode = models.CharField(
        _("initiative"), max_length=16, choices=InitiativeMode, default=InitiativeMode.GROUP
    )
    reroll_ties = models.BooleanField(
        _("re-roll initiative ties"),
        default=False,
        help_text=_("Otherwise both sides act at once on a tie."),
    )
    helpless_rule = models.CharField(
        _("attacks on the helpless"), max_length=8, choices=HelplessRule, default=HelplessRule.HIT
    )
    # Hit locations (``combat.zones``): every combatant has a body and zone hit points.
    hit_locations = models.BooleanField(
        _("hit locations"),
        default=False,
        help_text=_("Each hit lands in a body zone: zone hit points, severed limbs, bleeding."),
    )
    # Dolmenwood (combat.systems.dolmenwood): players may roll the referee's X-in-6 and
    # percentage chances.
    players_roll_chances = models.BooleanField(
        _("players may make chance rolls"),
        default=False,
        help_text=_("Dolmenwood: X-in-6 and percentage chances from the players' phones."),
    )
    # The fight in progress: round 0 is none. ``turn`` holds this round's order and where it
    # stands (see ``combat.rounds``); ``morale`` each side's checks so far.
    round = models.PositiveIntegerField(default=0, validators=within("round"))
    turn = models.JSONField(default=dict, blank=True)
    morale = models.JSONField(default=dict, blank=True)
    referee_key = models.CharField(max_length=64, unique=True, default=_referee_key)
    join_token = models.CharField(max_length=64, unique=True, default=_join_token)
    display_token = models.CharField(max_length=64, unique=True, default=_display_token)
    seq = models.PositiveBigIntegerField(default=0)
    # The log's numbering as players see it: entries they cannot see take no number, so the
    # numbers they do see have no gaps to count secret rolls by.
    public_seq = models.PositiveBigIntegerField(default=0)
    campaign = models.ForeignKey(
        Campaign, on_delete=models.SET_NULL, null=True, blank=True, related_name="encounters"
    )
    # The encounter the party went on to from this one (combat.party): its players follow.
    moved_on_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    # The server's dice (combat.table.dice): the open period's number, its secret seed (every
    # screen shows its commitment, ``dice_commitment``) and how many rolls it has covered; the
    # secret rolls' seed (one per secret roll: its commitment shown to the referee only) and
    # how many secret rolls there have been. Written only by ``combat.table.dice``, in the
    # statement that takes a roll's number: never by a save of the whole row (``save``).
    dice_period = models.PositiveIntegerField(default=1, editable=False)
    dice_rolls = models.PositiveIntegerField(default=0, editable=False)
    dice_seed = models.CharField(max_length=64, default=_dice_seed, editable=False)
    secret_rolls = models.PositiveIntegerField(default=0, editable=False)
    secret_seed = models.CharField(max_length=64, default=_dice_seed, editable=False)

    # Not stored: True on a copy of the encounter as this process last rendered it
    # (``combat.live.hub.encounter_as_rendered``) until its first bump confirms it (``moved_to``).
    as_rendered = False

    # Every stored number's range (combat.bounded): field -> quantity of rules.bounds.
    bounded = ENCOUNTER_BOUNDS

    class Meta:
        ordering = ["-created"]
        # "End the round" steps it on: past the engine's count, no round could end.
        constraints = checks("encounter", ENCOUNTER_BOUNDS)

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        """A stored encounter saved whole writes every field but the dice's: their numbers move
        on in the statements that take them (``combat.table.dice``), never back from a copy
        read before."""
        if not self._state.adding and kwargs.get("update_fields") is None and not args:
            kwargs["update_fields"] = [
                f.name
                for f in self._meta.concrete_fields
                if not f.primary_key and f.name not in DICE_FIELDS
            ]
        super().save(*args, **kwargs)

    @property
    def dice_commitment(self) -> str:
        """The open period's commitment: SHA-256 of its seed, shown before every roll it covers."""
        return fair.commitment(self.dice_seed)

    @property
    def secret_commitment(self) -> str:
        """The next secret roll's commitment, shown to the referee only."""
        return fair.commitment(self.secret_seed)

    def campaign_or_new(self) -> Campaign:
        """This encounter's campaign, made now if it has none yet (two requests racing to make
        one agree on the first that was stored)."""
        if self.campaign_id is None:
            with transaction.atomic():
                fresh = Campaign.objects.create()
                if not Encounter.objects.filter(pk=self.pk, campaign=None).update(campaign=fresh):
                    fresh.delete()
                self.campaign_id = Encounter.objects.values_list("campaign", flat=True).get(
                    pk=self.pk
                )
        return Campaign.objects.get(pk=self.campaign_id)

    def bump(self, *, public: bool = False) -> int:
        """Advance the sequence number inside the caller's transaction; returns the new one.

        The row's write lock is held until the transaction ends, so two changes never share a
        number and the number never goes backwards. With ``public`` the players' log number
        advances too (read back as ``public_seq``).
        """
        connection = connections[router.db_for_write(Encounter)]
        returning = bump_returning(connection)
        if returning is not None:  # one statement instead of Django's UPDATE and SELECT
            with connection.cursor() as cursor:
                cursor.execute(returning, [int(public), self.pk])
                written = cursor.fetchone()
            if written is None:  # removed meanwhile, as Django's .get() would say
                raise Encounter.DoesNotExist("Encounter matching query does not exist.")
            self.moved_to(*written)
            return self.seq
        changes = {"seq": F("seq") + 1}
        if public:
            changes["public_seq"] = F("public_seq") + 1
        Encounter.objects.filter(pk=self.pk).update(**changes)
        self.moved_to(*Encounter.objects.values_list("seq", "public_seq").get(pk=self.pk))
        return self.seq

    def moved_to(self, seq: int, public_seq: int) -> None:
        """Take the numbers a bump has just written (in the caller's transaction).

        A copy of the encounter as this process last rendered it (``as_rendered``, see
        ``combat.live.hub.encounter_as_rendered``) stood for the table at its number: a change
        decided on it read nothing again. Its first bump confirms that nothing
        changed since, the number moving on by exactly one, or raises ``Stale`` (the caller's
        transaction then rolls back, and the change is decided again on what is stored). Every
        write to a table moves its number on, so an unchanged number is an unchanged table."""
        if self.__dict__.pop("as_rendered", False) and seq != self.seq + 1:
            raise Stale(self.pk)
        self.seq, self.public_seq = seq, public_seq

    def new_links(self) -> None:
        """Replace the referee key, the join token and the table display's token: the old
        links stop working at once. Seats already taken stay (they are bound to their
        browsers, not to the link); a display opened with the old link stops showing. The way
        in from the encounter the party came from is closed by ``combat.party.new_links``,
        which the New links button calls."""
        self.referee_key, self.join_token = _referee_key(), _join_token()
        self.display_token = _display_token()
        self.save(update_fields=["referee_key", "join_token", "display_token"])

    @property
    def group_name(self) -> str:
        return f"encounter-{self.pk}"


# The encounter's dice fields: never written by a save of the whole row (``Encounter.save``).
DICE_FIELDS = frozenset({"dice_period", "dice_rolls", "dice_seed", "secret_rolls", "secret_seed"})


class DiceSeed(models.Model):
    """A period of an encounter's server dice that is over, its seed revealed to everyone: the
    rolls numbered 1 to ``rolls`` in it can be checked against ``commitment``, which every
    screen showed before the first of them (``combat.table.dice``)."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="dice_seeds")
    number = models.PositiveIntegerField()
    seed = models.CharField(max_length=64)
    rolls = models.PositiveIntegerField(default=0)
    revealed = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["encounter", "number"], name="dice_seed_unique"),
        ]

    def __str__(self) -> str:
        return f"dice period {self.number} of encounter {self.encounter_id}"

    @property
    def commitment(self) -> str:
        return fair.commitment(self.seed)


class Seat(models.Model):
    """A player's place at the table, bound to one browser through its session."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="seats")
    name = models.CharField(pgettext_lazy("seat", "name"), max_length=40)
    # The seat this one's player takes in the encounter the party moved on to (combat.party).
    moved_on_to = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # What the seat's player dismissed of their personal feed (combat.live.feed): the log
    # entries up to this public number, and "your side acts" for this turn (round:index).
    feed_seen = models.PositiveBigIntegerField(default=0)
    feed_turn_seen = models.CharField(max_length=24, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        return self.name


# The ranges of what a combatant stores, as the forms name them (declared in rules.bounds).
HP_FLOOR, HP_LIMIT = limits("hp")  # the true total's floor, far below dead; the most there is
THAC0_MIN, THAC0_MAX = limits("thac0")
AC_MIN, AC_MAX = limits("ac")
SAVE_MIN, SAVE_MAX = limits("save")
ABILITY_MIN, ABILITY_MAX = limits("ability")
MORALE_MIN, MORALE_MAX = limits("morale")
LENGTH_LIMIT = limits("height_ft")[1]  # feet: beyond any creature (the engine allows more)
NOTES_LIMIT = 2000  # a combatant's notes: spells left, ammunition, torches (combat.classes)


class Preloaded:
    """A list on a model instance that a page or a live render sets for many rows with one
    query; a row on its own reads it when first asked."""

    def __init__(self, load: Callable[[Any], Iterable[Any]]) -> None:
        self.load = load

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = f"_{name}"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        cached = instance.__dict__.get(self.key)
        if cached is None:
            cached = instance.__dict__[self.key] = list(self.load(instance))
        return cached

    def __set__(self, instance: Any, value: list[Any]) -> None:
        instance.__dict__[self.key] = value


class BodyKind(models.TextChoices):
    """The body types of ``rules.hit_location`` (its ``BodyType`` keys)."""

    HUMANOID = "humanoid", pgettext_lazy("body", "humanoid")
    BIRD = "bird", pgettext_lazy("body", "bird-like")
    REPTILE = "reptile", pgettext_lazy("body", "reptile")
    INSECTOID = "insectoid", pgettext_lazy("body", "insectoid")
    FISH = "fish", pgettext_lazy("body", "fish")
    SNAKE = "snake", pgettext_lazy("body", "snake")


class WingCount(models.IntegerChoices):
    NONE = 0, pgettext_lazy("wings", "none")
    TWO = 2, pgettext_lazy("wings", "2")
    FOUR = 4, pgettext_lazy("wings", "4")
    SIX = 6, pgettext_lazy("wings", "6")


# Every number a combatant stores (combat.bounded): field -> quantity of rules.bounds. The
# validators, the check constraints, the edit forms and the importers all read it.
COMBATANT_BOUNDS = {
    "ac": "ac",
    "hp_max": "hp_max",
    "hp": "hp",
    "thac0": "thac0",
    "save_death": "save",
    "save_wands": "save",
    "save_paralysis": "save",
    "save_breath": "save",
    "save_spells": "save",
    "str_score": "ability",
    "dex_score": "ability",
    "morale": "morale",
    "level": "level",  # characters (combat.classes)
    "int_score": "ability",
    "con_score": "ability",
    "cha_score": "ability",
    "xp": "xp",  # monster entries (combat.monsters)
    "height_ft": "height_ft",  # hit locations (combat.zones)
    "weapon_ft": "weapon_ft",
    "attack_bonus": "attack_bonus",  # Dolmenwood
    "wis_score": "ability",
    "speed": "speed",  # a BECMI ship (combat.systems.becmi.special)
    "crew": "crew",
    "rowers": "rowers",
    "rowers_lost": "rowers_lost",
    "hull_repaired": "hull_repaired",
}


class Combatant(models.Model):
    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    name = models.CharField(pgettext_lazy("combatant", "name"), max_length=60)
    side = models.CharField(_("side"), max_length=8, choices=Side, default=Side.FOES)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind, default=Kind.MONSTER)
    ac = models.SmallIntegerField(_("armour class"), validators=within("ac"))
    hp_max = models.PositiveSmallIntegerField(_("maximum hit points"), validators=within("hp_max"))
    # The true total, below 0 too (OSE keeps it); wide enough for any damage the dice allow.
    hp = models.IntegerField(_("hit points"), validators=within("hp"))
    hit_dice = models.CharField(_("Hit Dice"), max_length=16, blank=True)
    thac0 = models.SmallIntegerField("THAC0", validators=within("thac0"))
    save_death = models.PositiveSmallIntegerField(
        pgettext_lazy("save", "death"), validators=within("save")
    )
    save_wands = models.PositiveSmallIntegerField(
        pgettext_lazy("save", "wands"), validators=within("save")
    )
    save_paralysis = models.PositiveSmallIntegerField(
        pgettext_lazy("save", "paralysis"), validators=within("save")
    )
    save_breath = models.PositiveSmallIntegerField(
        pgettext_lazy("save", "breath"), validators=within("save")
    )
    save_spells = models.PositiveSmallIntegerField(
        pgettext_lazy("save", "spells"), validators=within("save")
    )
    str_score = models.PositiveSmallIntegerField(_("STR"), default=10, validators=within("ability"))
    dex_score = models.PositiveSmallIntegerField(_("DEX"), default=10, validators=within("ability"))
    morale = models.PositiveSmallIntegerField(
        _("morale"),
        null=True,
        blank=True,
        validators=within("morale"),
        help_text=_("2–12, for monsters and retainers: 2 never fights, 12 never checks."),
    )
    fled = models.BooleanField(_("fled"), default=False)
    hidden = models.BooleanField(_("hidden from players"), default=False)
    seat = models.ForeignKey(
        Seat,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="combatants",
        verbose_name=_("controlled by"),
    )
    # Hit locations (``combat.zones``): the body, its optional parts, heights in feet, and the
    # zone state (``zones``, empty until the encounter's option is on).
    body = models.CharField(
        _("body type"), max_length=12, choices=BodyKind, default=BodyKind.HUMANOID
    )
    wings = models.PositiveSmallIntegerField(_("wings"), choices=WingCount, default=0)
    tail = models.BooleanField(_("tail"), default=False)
    legs = models.PositiveSmallIntegerField(_("legs"), null=True, blank=True)
    height_ft = models.DecimalField(
        _("height (ft)"),
        max_digits=7,
        decimal_places=2,
        default=Decimal(6),
        validators=within("height_ft"),
    )
    weapon_ft = models.DecimalField(
        _("weapon length (ft)"),
        max_digits=7,
        decimal_places=2,
        default=Decimal(0),
        validators=within("weapon_ft"),
    )
    zones = models.JSONField(default=dict, blank=True)
    # Dolmenwood (combat.systems.terms): ascending attack bonus (None: 19 - THAC0), WIS for saves
    # against magic (None: a monster, no modifier), the skill sheet and the immunities.
    attack_bonus = models.SmallIntegerField(
        _("attack bonus"), null=True, blank=True, validators=within("attack_bonus")
    )
    wis_score = models.PositiveSmallIntegerField(
        _("WIS"), null=True, blank=True, validators=within("ability")
    )
    skills = models.JSONField(_("skills"), default=list, blank=True)
    immunities = models.JSONField(_("immunities"), default=list, blank=True)
    # Characters (combat.classes): class and level fill THAC0 and saves; the other ability
    # scores beside STR, DEX and WIS; notes only the referee and the combatant's player see.
    char_class = models.CharField(
        pgettext_lazy("character", "class"), max_length=12, choices=CharacterClass, blank=True
    )
    level = models.PositiveSmallIntegerField(
        pgettext_lazy("character", "level"),
        null=True,
        blank=True,
        validators=within("level"),
    )
    int_score = models.PositiveSmallIntegerField(
        _("INT"), null=True, blank=True, validators=within("ability")
    )
    con_score = models.PositiveSmallIntegerField(
        _("CON"), null=True, blank=True, validators=within("ability")
    )
    cha_score = models.PositiveSmallIntegerField(
        _("CHA"), null=True, blank=True, validators=within("ability")
    )
    notes = models.CharField(_("notes"), max_length=NOTES_LIMIT, blank=True)
    # BECMI naval combat (its package's special): a ship's hit points are its hull points; its
    # base speed, crew and rowers (those lost slow it), and hull points temporarily repaired.
    speed = models.PositiveIntegerField(
        _("speed"), null=True, blank=True, validators=within("speed")
    )
    crew = models.PositiveIntegerField(_("crew"), null=True, blank=True, validators=within("crew"))
    rowers = models.PositiveIntegerField(_("rowers"), default=0, validators=within("rowers"))
    rowers_lost = models.PositiveIntegerField(
        _("rowers lost"), default=0, validators=within("rowers_lost")
    )
    hull_repaired = models.PositiveIntegerField(
        _("hull points temporarily repaired"), default=0, validators=within("hull_repaired")
    )
    # Monster entries (combat.monsters): attacks as a list of {name, count, damage}, movement
    # as written, XP, and special notes only the referee sees.
    attacks = models.JSONField(_("attacks"), default=list, blank=True)
    movement = models.CharField(_("movement"), max_length=MOVEMENT_LIMIT, blank=True)
    xp = models.PositiveIntegerField(_("XP"), null=True, blank=True, validators=within("xp"))
    special_notes = models.CharField(
        _("special (referee only)"), max_length=SPECIAL_LIMIT, blank=True
    )
    # What a monster saves as ("fighter:3", "normal-human"; combat.classes): its five saves
    # were filled from that row of the encounter's system, and follow it when it changes.
    saves_as = models.CharField(
        _("saves as"), max_length=20, blank=True, validators=[validate_saves_as]
    )
    created = models.DateTimeField(auto_now_add=True)

    bounded = COMBATANT_BOUNDS

    class Meta:
        ordering = ["created", "pk"]
        # The database holds the same bounds as the forms, whatever writes the row.
        constraints = checks("combatant", COMBATANT_BOUNDS)

    def __str__(self) -> str:
        return self.name

    @property
    def dead(self) -> bool:
        return self.hp <= 0

    @property
    def health(self) -> str:
        """A word players may see instead of the numbers: unhurt, wounded, badly, down."""
        if self.hp <= 0:
            return "down"
        if self.hp >= self.hp_max:
            return "unhurt"
        if self.hp * 2 > self.hp_max:
            return "wounded"
        return "badly"

    def save_value(self, category: str) -> int:
        return getattr(self, f"save_{category}")

    # Set for many rows at once by whoever loaded them (``combat.live.state``), else read here.
    shown_conditions = Preloaded(lambda c: c.conditions.running())
    saves_to_roll = Preloaded(lambda c: c.pending_saves.filter(resolved=False))
    # What the table's rules system shows this combatant held in (wrestling), as a row says it.
    holds = Preloaded(lambda c: HOLDS_OF[0](c))


# Reads a combatant's holds when no one preloaded them: the app lends the registry of rules
# systems' reader here when it is ready (``combat.apps``), the models knowing no system.
HOLDS_OF: list[Callable[[Combatant], list[Any]]] = [lambda combatant: []]


class ConditionKind(models.TextChoices):
    PARALYSED = "paralysed", pgettext_lazy("condition", "paralysed")
    ASLEEP = "asleep", pgettext_lazy("condition", "asleep")
    HELD = "held", pgettext_lazy("condition", "held")
    CHARMED = "charmed", pgettext_lazy("condition", "charmed")
    BLINDED = "blinded", pgettext_lazy("condition", "blinded")
    INVISIBLE = "invisible", pgettext_lazy("condition", "invisible")
    STUNNED = "stunned", pgettext_lazy("condition", "stunned")
    PRONE = "prone", pgettext_lazy("condition", "prone")
    FLEEING = "fleeing", pgettext_lazy("condition", "fleeing")
    OTHER = "other", pgettext_lazy("condition", "other")
    KNOCKED_OUT = "knocked_out", pgettext_lazy("condition", "knocked out")  # BECMI striking


class ConditionQuerySet(models.QuerySet):
    def running(self) -> ConditionQuerySet:
        """Those still in force: 0 rounds left is over (kept so an undo can restore it)."""
        return self.exclude(rounds_left=0)


CONDITION_BOUNDS = {"rounds_left": "rounds_left"}


class Condition(models.Model):
    """A state a combatant is in for a while: counted down at the end of every round, and
    gone (with a line in the log) when it runs out. No ``rounds_left``: until removed."""

    combatant = models.ForeignKey(Combatant, on_delete=models.CASCADE, related_name="conditions")
    kind = models.CharField(_("condition"), max_length=12, choices=ConditionKind)
    note = models.CharField(_("note"), max_length=60, blank=True)
    rounds_left = models.PositiveIntegerField(
        _("rounds left"), null=True, blank=True, validators=within("rounds_left")
    )
    created = models.DateTimeField(auto_now_add=True)

    objects = ConditionQuerySet.as_manager()

    bounded = CONDITION_BOUNDS

    class Meta:
        ordering = ["created", "pk"]
        # Every "End the round" counts it down: past the engine's count, no round could end.
        constraints = checks("condition", CONDITION_BOUNDS)

    def __str__(self) -> str:
        return self.kind


class PendingSave(models.Model):
    """A saving throw an area effect left to a player: the damage is rolled, the character's
    player rolls its save from their phone (or the referee for them), and only then is the
    damage taken. Resolved once: ``entry`` is the save it made."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="+")
    combatant = models.ForeignKey(Combatant, on_delete=models.CASCADE, related_name="pending_saves")
    category = models.CharField(max_length=12)
    modifier = models.SmallIntegerField(default=0)
    amount = models.PositiveIntegerField()
    on_save = models.CharField(max_length=8)
    secret = models.BooleanField(default=False)
    label = models.CharField(max_length=60, blank=True)
    group = models.JSONField(default=dict)
    resolved = models.BooleanField(default=False)
    entry = models.ForeignKey(
        "LogEntry", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        return f"{self.category} ({self.amount})"

    @property
    def needed(self) -> int:
        return self.combatant.save_value(self.category)

    @property
    def needed_if_known(self) -> int | None:
        """``needed``, or None for a category its combatant has no save for (a database edited
        by hand): what keys a row or a feed that shows it, which then says it cannot."""
        return getattr(self.combatant, f"save_{self.category}", None)

    @property
    def chance(self) -> Fraction:
        """The chance the save succeeds, shown on the button before the roll."""
        return ose.save_odds(self.needed, self.modifier)


class EntryKind(models.TextChoices):
    ATTACK = "attack", _("Attack")
    SAVE = "save", _("Saving throw")
    CHECK = "check", _("Ability check")
    DAMAGE = "damage", _("Damage")
    HEAL = "heal", _("Healing")
    REST = "rest", _("Rest")
    ROLL = "roll", _("Roll")
    CORRECT = "correct", _("Correction")
    UNDO = "undo", _("Undo")
    COMBAT = "combat", _("Combat")
    INITIATIVE = "initiative", _("Initiative")
    TURN = "turn", _("Turn")
    MORALE = "morale", _("Morale")
    CONDITION = "condition", _("Condition")
    ZONE = "zone", _("Body zone")
    SKILL = "skill", _("Skill check")  # Dolmenwood
    CHANCE = "chance", _("Chance roll")  # Dolmenwood
    STRIKE = "strike", _("Unarmed strike")  # BECMI (combat.systems.becmi.special)
    WRESTLE = "wrestle", _("Wrestling")  # BECMI
    NAVAL = "naval", _("Naval combat")  # BECMI
    CONVERT = "convert", _("Armour class converted")  # a change of rules system (rules.scales)


UNDOABLE_WITHOUT_EFFECTS = frozenset(
    {EntryKind.COMBAT, EntryKind.INITIATIVE, EntryKind.TURN, EntryKind.MORALE, EntryKind.CONDITION}
)
# The secret rolls the referee may show players (``combat.table.show``): rolls that changed
# nothing an undo of the shown copy could put back (a wrestling hold, a ship, the round).
SHOWABLE = frozenset(
    {
        EntryKind.ATTACK,
        EntryKind.SAVE,
        EntryKind.CHECK,
        EntryKind.ROLL,
        EntryKind.REST,
        EntryKind.SKILL,
        EntryKind.CHANCE,
        EntryKind.STRIKE,
    }
)


class LogEntry(models.Model):
    """One line of the append-only roll log.

    ``data`` holds the rules result as keys and numbers, never translated text, so each viewer
    reads it in their own language: its kind's payload (``combat.payloads``) as JSON, read back
    typed as :attr:`payload`. ``effects`` lists the hit-point changes actually applied,
    ``[{"combatant": id, "hp": delta}]``, which is what an undo reverses.

    ``seq`` is the encounter's change number (the referee's numbering); ``public_seq`` the
    number players see, None for an entry they cannot see at all. A secret entry that changed
    what players see (their character's hit points) gets a public number and is shown to them
    as its ``data["public"]`` outcome only, without its cause.
    """

    # Found through ``log_seq_unique``, whose first column it is: an index of its own would
    # be a second, smaller one the database prefers for "of this encounter, numbered past n"
    # when it cannot tell how many entries are past n (a statement prepared on PostgreSQL),
    # reading the encounter's whole log where the pair reads only the entries asked for.
    encounter = models.ForeignKey(
        Encounter, on_delete=models.CASCADE, related_name="log", db_index=False
    )
    seq = models.PositiveBigIntegerField()
    public_seq = models.PositiveBigIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=16, choices=EntryKind)
    actor = models.CharField(max_length=60)
    by_referee = models.BooleanField(default=False)
    seat = models.ForeignKey(Seat, on_delete=models.SET_NULL, null=True, blank=True)
    secret = models.BooleanField(default=False)
    data = models.JSONField(default=dict)
    effects = models.JSONField(default=list)
    # The server dice it drew and how anyone can check them (combat.table.dice): its
    # ``public`` roll (period, number, the player's value, the dice) and its ``secret`` one
    # (the referee's: its own seed, revealed with it). Empty when no server die was drawn.
    proof = models.JSONField(default=dict, blank=True)
    undoes = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="undone_by"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seq", "-pk"]
        verbose_name_plural = "log entries"
        constraints = [
            models.UniqueConstraint(fields=["encounter", "seq"], name="log_seq_unique"),
            models.UniqueConstraint(
                fields=["encounter", "public_seq"], name="log_public_seq_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.seq}"

    @property
    def undoable(self) -> bool:
        """Whether an undo has something to put back: hit points, or the round's course
        (its latest change), a morale check or a condition."""
        if self.kind == EntryKind.UNDO:
            return False
        if self.effects or self.kind in UNDOABLE_WITHOUT_EFFECTS:
            return True
        # BECMI (combat.systems.becmi.special): a hold, a knock-out or a ship's state to put back.
        try:
            return bool(self.payload.get("restore"))
        except ValueError:  # data no payload reads (combat.payloads.Unreadable): nothing to undo
            return False

    @property
    def payload(self) -> payloads.Payload:
        """``data`` typed: its kind's payload (``combat.payloads``), read afresh each time."""
        return payloads.read(self.kind, self.data)

    @property
    def undone_seq(self) -> int | None:
        """The number of the entry that undid this one, if any: no query when the log was
        loaded with it (``combat.live.state.log_for`` annotates ``undo_seq``)."""
        if hasattr(self, "undo_seq"):
            return self.undo_seq
        try:
            return self.undone_by.seq
        except LogEntry.undone_by.RelatedObjectDoesNotExist:
            return None


class ActionKey(models.Model):
    """A one-time key an action form carried, stored in the transaction that applied it: a
    form sent twice (a double tap, a browser retrying a request whose answer was lost) is
    applied once, and the second sending is shown the first one's result."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    entry = models.ForeignKey(
        LogEntry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["encounter", "key"], name="action_key_unique")
        ]

    def __str__(self) -> str:
        return self.key


class Hold(models.TextChoices):
    """BECMI wrestling's holds (``rules.becmi_wrestling.Hold``), one step at a time."""

    FREE = "free", pgettext_lazy("wrestling hold", "free")
    GRABBED = "grabbed", pgettext_lazy("wrestling hold", "grabbed")
    THROWN = "thrown", pgettext_lazy("wrestling hold", "thrown down")
    PINNED = "pinned", pgettext_lazy("wrestling hold", "pinned")


WRESTLE_BOUNDS = {
    "attacker_ac": "ac",
    "defender_ac": "ac",
    "started_round": "round",
    "rounds": "round",
}


class Wrestle(models.Model):
    """BECMI wrestling between two combatants (``combat.systems.becmi.special``): it lasts across
    rounds until one breaks free, a side dies or the referee ends it. The attacker is the one
    who started it; helpers are combatant ids on each side; basic ACs as given at the start."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="wrestles")
    attacker = models.ForeignKey(Combatant, on_delete=models.CASCADE, related_name="+")
    defender = models.ForeignKey(Combatant, on_delete=models.CASCADE, related_name="+")
    hold = models.CharField(max_length=8, choices=Hold, default=Hold.FREE)
    attacker_helpers = models.JSONField(default=list, blank=True)
    defender_helpers = models.JSONField(default=list, blank=True)
    attacker_ac = models.SmallIntegerField(default=9, validators=within("ac"))
    defender_ac = models.SmallIntegerField(default=9, validators=within("ac"))
    started_round = models.PositiveIntegerField(default=0, validators=within("round"))
    rounds = models.PositiveIntegerField(default=0, validators=within("round"))
    ended = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    bounded = WRESTLE_BOUNDS

    class Meta:
        ordering = ["created", "pk"]
        constraints = checks("wrestle", WRESTLE_BOUNDS)

    def __str__(self) -> str:
        return f"{self.attacker_id} vs {self.defender_id}: {self.hold}"
