"""The rules engine as a Django app only for its translations and template tags."""

from __future__ import annotations

from django.apps import AppConfig


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = "Rules"
