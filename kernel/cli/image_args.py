"""``agentdesk ask --image FILE`` (repeatable): the pictures read on the caller's side, as base64 for the kernel.

A file that is missing, unreadable, too large or not a picture (judged by its bytes) is bad usage (exit 2),
named, before any agent starts. Fitting happens in the kernel (``attach_image``), in and out of process alike.
"""

from __future__ import annotations

import base64
from pathlib import Path

from ..core.errors import ConfigError
from ..images.fit import MAX_SOURCE_BYTES, sniff


def read_images(paths: list[str]) -> list[tuple[str, str]]:
    """(label, base64) per ``--image`` file, in order."""
    out: list[tuple[str, str]] = []
    for given in paths:
        path = Path(given).expanduser()
        try:
            with path.open("rb") as fh:
                data = fh.read(MAX_SOURCE_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"--image {given}: {exc.strerror or exc}", "--image") from None
        if len(data) > MAX_SOURCE_BYTES:
            raise ConfigError(f"--image {given}: larger than {MAX_SOURCE_BYTES:,} bytes", "--image")
        if sniff(data[:32]) is None:
            raise ConfigError(f"--image {given}: not a PNG, JPEG, WebP, GIF, BMP or TIFF picture", "--image")
        out.append((f"--image {path.name}", base64.b64encode(data).decode("ascii")))
    return out
