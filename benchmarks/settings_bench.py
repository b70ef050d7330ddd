"""Settings figures: what checking every value costs at start, against the pydantic alternative.

Run from the repository root: ``python benchmarks/settings_bench.py [--root DIR]``. ``--root`` measures
another checkout's ``kernel`` package (an older commit extracted with ``git archive``) for a before/after.
Prints the median import time of ``kernel.config.settings`` in a fresh interpreter, the median time of one
``SettingsStore.load()`` of a full settings.json, and the import time of pydantic for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 15


def _fresh(code: str, root: Path) -> float:
    """Seconds a snippet reports, run in a fresh interpreter importing from ``root``."""
    # Bytecode as an installed copy has it (this shell may set PYTHONDONTWRITEBYTECODE).
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, check=True)
    return float(out.stdout.strip())


def import_ms(module: str, root: Path) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    return statistics.median(_fresh(code, root) for _ in range(RUNS)) * 1000


def load_us(root: Path) -> float:
    sys.path.insert(0, str(root))
    from kernel.config.settings import Settings, SettingsStore

    with tempfile.TemporaryDirectory() as tmp:
        data = Settings(workspace="/tmp/ws").to_json()
        data.pop("sandbox_read_only", None)  # older checkouts do not know it
        Path(tmp, "settings.json").write_text(json.dumps(data))
        store = SettingsStore(Path(tmp))
        times = []
        for _ in range(2000):
            t = time.perf_counter()
            store.load()
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose kernel package to measure")
    args = parser.parse_args()
    root = args.root.resolve()
    print(f"code measured: {root}")
    print(f"import kernel.config.settings: {import_ms('kernel.config.settings', root):.1f} ms (median of {RUNS})")
    print(f"SettingsStore.load() of a full settings.json: {load_us(root):.1f} us (median of 2000)")
    try:
        print(f"import pydantic (the alternative): {import_ms('pydantic', root):.1f} ms (median of {RUNS})")
    except subprocess.CalledProcessError:
        print("import pydantic: not installed")


if __name__ == "__main__":
    main()
