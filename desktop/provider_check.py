"""Is an agent's provider usable? Answered before sending, so a missing key is a sentence, not a crash.

The rule and its sentences live in the kernel (``kernel.providers.lazy``),
beside the factory that builds providers, and read the provider catalog.
"""

from __future__ import annotations

from kernel.providers.lazy import missing_key_message

__all__ = ["missing_key_message"]
