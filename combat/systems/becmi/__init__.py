"""BECMI / Rules Cyclopedia at the table: the extended to-hit table, saves by class and level,
range and cover, unarmed striking, wrestling and naval combat (``special``), their forms, views,
odds, log entries and row buttons."""
