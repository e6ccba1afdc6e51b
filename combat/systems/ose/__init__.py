"""Old-School Essentials / B/X at the table: attacks through the attack matrix, the five save
categories, ability checks, group attacks and area effects; the default rules system, whose log
entries carry no system of their own."""
