"""Pairing codes: 8 characters a person can read out over the phone without a mix-up.

The alphabet leaves out the look-alikes (0/O/Q/D, 1/I/L, 2/Z, 5/S, 8/B, U/V):
21 letters and digits remain, so a code holds 8·log2(21) ≈ 35 bits. A code
is only a handle the owner types to approve a sender; at most 3 are pending per
channel and each lives an hour by default, so guessing one gains a stranger
nothing (only the owner's approval pairs anybody).
"""

from __future__ import annotations

import secrets

ALPHABET = "34679ACEFGHJKMNPRTWXY"
LENGTH = 8
LOOK_ALIKES = frozenset("0OQD1IL2Z5S8BUV")


def new_code() -> str:
    """A fresh random code (``secrets``: not predictable from earlier codes)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize(typed: str) -> str:
    """A code as the owner typed it (spaces, dashes, lower case allowed) in its canonical form."""
    return "".join(ch for ch in typed.upper() if ch not in " -\t")


def well_formed(code: str) -> bool:
    return len(code) == LENGTH and all(ch in ALPHABET for ch in code)
