"""Sum the suite's per-test CPU log (tests/cpu_log.py) by file: where the CI machine's two cores go.

Usage: ``python benchmarks/test_cpu_report.py DIR [--top N]`` after a run with ``AGENTDESK_TEST_CPU_LOG=DIR``.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir", type=Path)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for log in sorted(args.dir.glob("*.jsonl")):
        for raw in log.read_text().splitlines():
            line = json.loads(raw)
            row = by_file[line["test"].split("::")[0]]
            row[0] += line["wall"]
            row[1] += line["cpu"]
            row[2] += line["children"]
            row[3] += 1
    total = [sum(r[i] for r in by_file.values()) for i in range(4)]
    print(f"{'wall s':>8} {'cpu s':>8} {'child s':>8} {'tests':>6}  file")
    for name, row in sorted(by_file.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[:args.top]:
        print(f"{row[0]:8.1f} {row[1]:8.1f} {row[2]:8.1f} {int(row[3]):6d}  {name}")
    print(f"{total[0]:8.1f} {total[1]:8.1f} {total[2]:8.1f} {int(total[3]):6d}  all")


if __name__ == "__main__":
    main()
