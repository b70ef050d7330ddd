"""Tools: one descriptor each, run by one executor that enforces the rules for all."""
