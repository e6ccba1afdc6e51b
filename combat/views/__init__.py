"""Views, split by topic: pages people open, the referee's table, and rolls."""
