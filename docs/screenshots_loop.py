"""Waiting for Qt inside the screenshot scenarios (docs/make_screenshots.py and its parts)."""

from __future__ import annotations

import asyncio


async def settled(seconds: float = 0.0) -> None:
    """Let Qt lay out and paint what is pending by yielding to the loop (qasync runs Qt's events between
    callbacks). Never ``QApplication.processEvents()`` inside a coroutine: it runs other tasks' wake-ups
    while this task is still executing, which asyncio refuses ("Cannot enter into task … while another
    task … is being executed"); the wake-up is dropped and the task it was for never resumes, which hung
    this script in about 4 runs of 6."""
    await asyncio.sleep(seconds)
    for _ in range(5):
        await asyncio.sleep(0)
