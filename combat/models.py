"""What Fray stores: encounters, their seats, combatants and the append-only roll log.

Models store; ``rules`` decides. Hit points change only inside one transaction that holds the
row (``select_for_update`` on PostgreSQL, the IMMEDIATE write lock on SQLite), and every change
bumps the encounter's sequence number so browsers can tell whether they missed one.
"""

from __future__ import annotations

import secrets

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


def _referee_key() -> str:
    return secrets.token_urlsafe(24)  # 192 bits: the referee's capability


def _join_token() -> str:
    return secrets.token_urlsafe(16)  # 128 bits, as short as a safe link can be


def _slug() -> str:
    return secrets.token_urlsafe(12)


class RulesSystem(models.TextChoices):
    OSE = "ose", _("Old-School Essentials (B/X)")
    BECMI = "becmi", _("BECMI / Rules Cyclopedia")
    DOLMENWOOD = "dolmenwood", _("Dolmenwood")


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


class Encounter(models.Model):
    slug = models.CharField(max_length=32, unique=True, default=_slug, editable=False)
    name = models.CharField(pgettext_lazy("encounter", "name"), max_length=80)
    system = models.CharField(
        _("rules system"), max_length=16, choices=RulesSystem, default=RulesSystem.OSE
    )
    attack_method = models.CharField(
        _("attack resolution"), max_length=16, choices=AttackMethod, default=AttackMethod.MATRIX
    )
    show_foe_hp = models.BooleanField(_("show foes' hit points to players"), default=False)
    referee_key = models.CharField(max_length=64, unique=True, default=_referee_key)
    join_token = models.CharField(max_length=64, unique=True, default=_join_token)
    seq = models.PositiveBigIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name

    def bump(self) -> int:
        """Advance the sequence number inside the caller's transaction; returns the new one."""
        Encounter.objects.filter(pk=self.pk).update(seq=F("seq") + 1)
        self.seq = Encounter.objects.values_list("seq", flat=True).get(pk=self.pk)
        return self.seq

    @property
    def group_name(self) -> str:
        return f"encounter-{self.pk}"


class Seat(models.Model):
    """A player's place at the table, bound to one browser through its session."""

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="seats")
    name = models.CharField(pgettext_lazy("seat", "name"), max_length=40)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]

    def __str__(self) -> str:
        return self.name


class Combatant(models.Model):
    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="combatants")
    name = models.CharField(pgettext_lazy("combatant", "name"), max_length=60)
    side = models.CharField(_("side"), max_length=8, choices=Side, default=Side.FOES)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind, default=Kind.MONSTER)
    ac = models.SmallIntegerField(
        _("armour class"), validators=[MinValueValidator(-20), MaxValueValidator(20)]
    )
    hp_max = models.PositiveSmallIntegerField(
        _("maximum hit points"), validators=[MinValueValidator(1), MaxValueValidator(9999)]
    )
    # The true total, below 0 too (OSE keeps it); wide enough for any damage the dice allow.
    hp = models.IntegerField(_("hit points"))
    hit_dice = models.CharField(_("Hit Dice"), max_length=16, blank=True)
    thac0 = models.SmallIntegerField(
        "THAC0", validators=[MinValueValidator(-10), MaxValueValidator(25)]
    )
    save_death = models.PositiveSmallIntegerField(pgettext_lazy("save", "death"))
    save_wands = models.PositiveSmallIntegerField(pgettext_lazy("save", "wands"))
    save_paralysis = models.PositiveSmallIntegerField(pgettext_lazy("save", "paralysis"))
    save_breath = models.PositiveSmallIntegerField(pgettext_lazy("save", "breath"))
    save_spells = models.PositiveSmallIntegerField(pgettext_lazy("save", "spells"))
    str_score = models.PositiveSmallIntegerField(_("STR"), default=10)
    dex_score = models.PositiveSmallIntegerField(_("DEX"), default=10)
    hidden = models.BooleanField(_("hidden from players"), default=False)
    seat = models.ForeignKey(
        Seat,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="combatants",
        verbose_name=_("controlled by"),
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]

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


class EntryKind(models.TextChoices):
    ATTACK = "attack", _("Attack")
    SAVE = "save", _("Saving throw")
    CHECK = "check", _("Ability check")
    DAMAGE = "damage", _("Damage")
    HEAL = "heal", _("Healing")
    REST = "rest", _("Rest")
    ROLL = "roll", _("Roll")
    UNDO = "undo", _("Undo")


class LogEntry(models.Model):
    """One line of the append-only roll log.

    ``data`` holds the rules result as keys and numbers, never translated text, so each viewer
    reads it in their own language. ``effects`` lists the hit-point changes actually applied,
    ``[{"combatant": id, "hp": delta}]``, which is what an undo reverses.
    """

    encounter = models.ForeignKey(Encounter, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=8, choices=EntryKind)
    actor = models.CharField(max_length=60)
    by_referee = models.BooleanField(default=False)
    seat = models.ForeignKey(Seat, on_delete=models.SET_NULL, null=True, blank=True)
    secret = models.BooleanField(default=False)
    data = models.JSONField(default=dict)
    effects = models.JSONField(default=list)
    undoes = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="undone_by"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seq", "-pk"]
        verbose_name_plural = "log entries"

    def __str__(self) -> str:
        return f"{self.kind} #{self.seq}"
