"""Pictures at ingestion: resize time per megapixel, memory on a decompression bomb, the event loop while
pictures are fitted, and the 30-screenshot session on all four protocols.

    python benchmarks/image_bench.py [--no-session] [--loop-only]

1. ``fit`` of a text-heavy 2880×1800 screenshot (PNG), a 4000×3000 photo (JPEG) and an 8001×600 strip:
   milliseconds per source megapixel (median of 5).
2. Peak memory (VmHWM growth in a fresh process, after imports) refusing a 50,000×50,000 PNG bomb, beside
   fitting a real 8001×6000 picture for contrast.
3. The event loop while a heavy load is ingested (12 pictures, ~60 MB of sources: pasted as base64 and
   read as files, then encoded for requests): the longest single step the loop ran, in its thread's CPU
   time (what ingestion does on the loop, which the machine's load cannot inflate), and a 1 ms ticker's
   longest gap beside the same ticker with nothing ingesting (one frame is 16.7 ms). Quote ``uptime``.
4. 30 screenshots of 2880×1800 (15 pasted, 15 read with fs_read) through a real kernel, adapter and SDK
   against the loopback fake, per protocol: requests, requests refused for their pictures (the fake refuses
   what the real APIs refuse), the most pictures in one request, the largest edge sent, fits.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

from kernel.images.fit import fit  # noqa: E402
from kernel.images.store import ImageStore  # noqa: E402
from ledger import Ledger  # noqa: E402
from tests.images.pictures import screenshot  # noqa: E402


def photo(width: int, height: int) -> bytes:
    image = Image.effect_noise((width, height), 40).convert("RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def strip(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.linear_gradient("L").resize((width, height)).save(out, "PNG")
    return out.getvalue()


def resize_per_megapixel() -> None:
    for name, data, (w, h) in (("screenshot 2880x1800 png", screenshot(2880, 1800), (2880, 1800)),
                               ("photo 4000x3000 jpeg", photo(4000, 3000), (4000, 3000)),
                               ("strip 8001x600 png", strip(8001, 600), (8001, 600))):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            fitted = fit(data)
            times.append(time.perf_counter() - start)
        mp = w * h / 1e6
        med = statistics.median(times) * 1000
        print(f"fit {name}: {med:.0f} ms median, {med / mp:.1f} ms per source MP -> {fitted.width}x{fitted.height} "
              f"{fitted.media_type} {len(fitted.data):,} bytes")


_CHILD = """
import sys
sys.path.insert(0, {root!r})
from PIL import Image
from kernel.core.errors import ImageRefused
from kernel.images.fit import fit
from tests.images.pictures import png_bomb, solid
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM'):
            return int(line.split()[1])
data = png_bomb() if {bomb} else solid(8001, 6000)
base = hwm()
try:
    fit(data)
    what = 'fitted'
except ImageRefused as exc:
    what = 'refused: ' + exc.message
print(hwm() - base, what)
"""


def bomb_memory() -> None:
    root = str(Path(__file__).resolve().parent.parent)
    for bomb, name in ((True, "50,000x50,000 PNG bomb"), (False, "real 8001x6000 PNG")):
        out = subprocess.run([sys.executable, "-c", _CHILD.format(root=root, bomb=bomb)], capture_output=True,
                             text=True, check=True).stdout.split(" ", 1)
        print(f"peak memory growth, {name}: {int(out[0]) / 1024:.1f} MB ({out[1].strip()})")


async def idle_gaps(seconds: float) -> list[float]:
    """The ticker's gaps with nothing else running: what the machine's load alone does to it."""
    gaps: list[float] = []
    last = end = time.perf_counter()
    end += seconds
    while last < end:
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    return gaps


def what_ran(handle: asyncio.events.Handle) -> str:
    """The coroutine a loop step resumed (or the callback's name)."""
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        return f"a step of {task.get_coro().__qualname__}"  # type: ignore[union-attr]
    return getattr(callback, "__qualname__", repr(callback))[:80]


class LoopSteps:
    """The CPU time the loop's thread spends in each step it runs (``asyncio.Handle._run``): what ingestion
    does on the loop itself, which the machine's load does not inflate (a ticker's gaps count the time the
    loop's thread waited for a core too)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.what = ""
        self.steps = 0
        self.active = True  # False: the load is done (the teardown's steps are not counted)
        self._run = asyncio.events.Handle._run

    def __enter__(self) -> "LoopSteps":
        steps = self
        original = self._run

        def timed(handle: asyncio.events.Handle) -> None:
            if not steps.active:
                original(handle)
                return
            start = time.thread_time()
            original(handle)
            took = time.thread_time() - start
            steps.steps += 1
            if took > steps.longest:
                steps.longest, steps.what = took, what_ran(handle)

        asyncio.events.Handle._run = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.events.Handle._run = self._run  # type: ignore[method-assign]


def heavy_load() -> list[tuple[str, bytes]]:
    """What a busy session brings: text screenshots, noisy (incompressible) screenshots and camera photos."""
    noisy = []
    for seed in range(3):
        out = io.BytesIO()
        Image.effect_noise((2880, 1800), 60 + seed).convert("RGB").save(out, "PNG", compress_level=1)
        noisy.append(out.getvalue())
    return ([("screenshot", screenshot(2880, 1800, seed=i)) for i in range(6)]
            + [("noisy screenshot", data) for data in noisy] + [("photo", photo(4000, 3000)) for _ in range(3)])


async def loop_block() -> None:
    import base64

    from kernel.desks.attach import Attachments
    from kernel.providers.image_wire import image_b64

    load = heavy_load()
    total = sum(len(d) for _, d in load)
    print(f"load: {len(load)} pictures, {total / 1e6:.0f} MB of sources (6 text screenshots 2880x1800 PNG, 3 noisy "
          f"2880x1800 PNG of ~{len(load[6][1]) / 1e6:.0f} MB, 3 photos 4000x3000 JPEG of ~{len(load[-1][1]) / 1e6:.1f} "
          "MB); half pasted (base64 through agents.attach_image's door), half read (ImageStore.ingest, as fs_read), "
          "then every picture base64-encoded for a request, twice")
    pasted = [base64.b64encode(d).decode("ascii") for _, d in load[::2]]
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "ledger.db")
        store = ImageStore(ledger)
        attachments = Attachments(store)
        gaps: list[float] = []
        done = asyncio.Event()

        async def ticker() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.001)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        with LoopSteps() as steps:
            tick = asyncio.create_task(ticker())
            start = time.perf_counter()
            parts = [await attachments.attach("a1", text, "paste", "pasted") for text in pasted]
            parts += [await store.ingest(d, origin="file", label="read") for _, d in load[1::2]]
            for _ in range(2):
                images = {p.sha256: store.bytes_of(p.sha256) or b"" for p in parts}
                for p in parts:
                    image_b64(p, images)
                    await asyncio.sleep(0)
            took = time.perf_counter() - start
            steps.active = False
            done.set()
            await tick
        ledger.close()
    idle = await idle_gaps(min(took, 10.0))
    print(f"ingesting them took {took:.2f} s; the longest step on the loop took {steps.longest * 1000:.1f} ms of its "
          f"thread's CPU ({steps.what}, of {steps.steps} steps); the ticker's longest gap was "
          f"{max(gaps) * 1000:.1f} ms, {sum(g > 0.0167 for g in gaps)} of {len(gaps)} over a frame (16.7 ms); "
          f"the same ticker with nothing ingesting: longest {max(idle) * 1000:.1f} ms, "
          f"{sum(g > 0.0167 for g in idle)} of {len(idle)} over a frame")


def session() -> None:
    from tests.images.session import SHOTS, quick_screenshot, run_session

    shots = [quick_screenshot(i) for i in range(SHOTS)]
    for provider in ("anthropic", "openai", "openai-chat", "gemini"):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            out = run_session(provider, Path(tmp), shots)
            took = time.perf_counter() - start
        edge = max((max(i.width, i.height) for r in out.requests for i in r.images), default=0)
        area = max((i.width * i.height for r in out.requests for i in r.images), default=0)
        most = max(len(r.images) for r in out.requests)
        mb = max(sum(len(i.data) for i in r.images) for r in out.requests) / 1e6
        print(f"{provider}: {SHOTS} screenshots, {len(out.requests)} requests, {len(out.rejections)} refused for "
              f"their pictures, final states {sorted(set(out.states))}, at most {most} pictures ({mb:.2f} MB) per "
              f"request, largest edge {edge} px, largest area {area / 1e6:.2f} MP, {out.fitted} fits, {took:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-session", action="store_true")
    parser.add_argument("--loop-only", action="store_true")
    args = parser.parse_args()
    if args.loop_only:
        asyncio.run(loop_block())
        return
    resize_per_megapixel()
    bomb_memory()
    asyncio.run(loop_block())
    if not args.no_session:
        session()


if __name__ == "__main__":
    main()
