"""Keeping secrets out of the ledger: the held values and token patterns the ledger's redactor runs.

``Redactor`` implements ``ledger.redaction.Redactor``; the kernel installs one
on its ledger (``Ledger.redact_with``) with a ``SecretRegistry`` that others
add their secrets to.
"""

from .held import SecretRegistry
from .redactor import Redactor

__all__ = ["Redactor", "SecretRegistry"]
