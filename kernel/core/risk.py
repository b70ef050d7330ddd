"""Risk classes, apart from the descriptor so the settings and policy checks need not import the tools."""

from __future__ import annotations

from enum import StrEnum


class Risk(StrEnum):
    """How much harm one call can do, declared per tool (never guessed from its name); the executor
    gates by it. R1 is a local change the ledger can undo; R3 cannot be taken back (it leaves the machine)."""

    LOCAL_READ = "R0"
    LOCAL_WRITE = "R1"
    NETWORK_READ = "R2"
    OUTWARD = "R3"
