"""Fray's rules engine: a pure-Python library resolving old-school combat rules.

Nothing here imports Django models, requests or settings. Randomness is always passed in (a
``random.Random``-like object with ``randint``), so tests fix the dice and the server uses
``secrets.SystemRandom``. Every result is a frozen object carrying the natural roll(s), each
modifier with its reason, the total, the target and the outcome; keys are lower-case English
identifiers that the interface translates.
"""
