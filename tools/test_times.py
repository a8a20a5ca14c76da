"""Sum a pytest ``--durations=0`` report per test folder (issue 22's before/after table).

Usage::

    .venv/bin/pytest -n auto --dist worksteal --durations=0 | tee /tmp/run.txt
    .venv/bin/python -m tools.test_times /tmp/run.txt [/tmp/other_run.txt]

Each line ``1.23s call     tests/e2e/test_x.py::test_y`` counts toward ``e2e`` (the
folder under ``tests/``; a file directly in ``tests/`` counts as ``(top)``).  Setup, call
and teardown are summed over every worker, so the total is CPU-side work, not wall time:
with two workers the wall time is about half of it when nothing waits alone at the end.
With two reports it prints both columns and the difference.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S+)")


def folder(nodeid: str) -> str:
    """The folder under ``tests/`` a test id belongs to."""
    parts = nodeid.split("::", 1)[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else "(top)"


def per_folder(text: str) -> tuple[dict[str, float], dict[str, int]]:
    """Folder -> summed seconds, folder -> number of distinct tests, from a report's text."""
    seconds: dict[str, float] = defaultdict(float)
    tests: dict[str, set[str]] = defaultdict(set)
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            name = folder(match.group(3))
            seconds[name] += float(match.group(1))
            tests[name].add(match.group(3))
    return dict(seconds), {name: len(ids) for name, ids in tests.items()}


def main(argv: list[str]) -> int:
    """Print the table of one report, or of two side by side."""
    if not 1 <= len(argv) <= 2:
        print(__doc__)
        return 2
    runs = [per_folder(Path(path).read_text(errors="replace")) for path in argv]
    names = sorted({n for seconds, _ in runs for n in seconds},
                   key=lambda n: -max(seconds.get(n, 0.0) for seconds, _ in runs))
    header = "folder".ljust(12) + "".join(f"{'tests':>7}{'seconds':>9}" for _ in runs)
    print(header + ("   change" if len(runs) == 2 else ""))
    for name in [*names, "total"]:
        row = name.ljust(12)
        values = []
        for seconds, counts in runs:
            s = sum(seconds.values()) if name == "total" else seconds.get(name, 0.0)
            n = sum(counts.values()) if name == "total" else counts.get(name, 0)
            values.append(s)
            row += f"{n:>7}{s:>9.1f}"
        if len(runs) == 2:
            row += f"{values[1] - values[0]:>+9.1f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
