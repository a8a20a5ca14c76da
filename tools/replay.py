"""Replay a game export from the shell and print the final scores::

    python -m tools.replay game-12.json          # --json for machine output

The export (``GET /api/games/{id}/export/``), its format and the replay itself are the
engines' (:mod:`games.engines.replay`); this is the command line around them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from games.engines.replay import Replayed, replay_export

__all__ = ["format_scores", "main"]


def format_scores(replayed: Replayed) -> str:
    """The final scores, one seat a line, winners starred."""
    lines = [f"{replayed.game}: {replayed.steps} actions"
             + ("" if replayed.over else " (the game is not over)")]
    for seat, score in enumerate(replayed.scores):
        star = " *" if seat in replayed.winners else ""
        lines.append(f"seat {seat} {replayed.names[seat]}: {score}{star}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: replay an export file, print the final scores; 2 on a bad file."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.replay",
        description="Replay a game export (GET /api/games/{id}/export/) and print the scores.",
    )
    parser.add_argument("file", help="the export's JSON file ('-' for standard input)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            data = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as handle:
                data = json.load(handle)
        replayed = replay_export(data)
    except (OSError, ValueError, RecursionError) as exc:  # ExportError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"game": replayed.game, "steps": replayed.steps,
                          "scores": replayed.scores, "winners": replayed.winners,
                          "over": replayed.over}))
    else:
        print(format_scores(replayed))
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())
