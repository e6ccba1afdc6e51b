"""Dolmenwood at the table: d6 skill and ability checks, the Doom/Ray/Hold/Blast/Spell saves,
attacks against ascending AC with immunities, the referee's chance rolls, their forms, odds, log
entries and row buttons."""
