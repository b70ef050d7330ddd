"""Agent processes and the steps of their loop: request a turn, run its tools, repeat."""
