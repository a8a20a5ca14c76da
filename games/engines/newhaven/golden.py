"""Golden playthroughs: ``python -m games.engines.newhaven.golden`` regenerates them.

Each golden file records one seeded game played by a seeded uniformly random policy:
for every step the seat, the action JSON, the ``describe_action`` sentence and
``observe()`` for every seat and the spectator, then the final scores and winners.
A test replays the file and asserts identical results, so any change of behaviour
(intended or not) shows up as a diff.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

from . import ENGINE

__all__ = ["GAMES", "golden_dir", "load", "main", "play"]

#: (file stem, variant name, players, game seed, policy seed)
GAMES: tuple[tuple[str, str, int, int, int], ...] = (
    ("standard-2p", "standard", 2, 2024, 1),
    ("side-b-3p", "side-b", 3, 77, 2),
)


def load(stem: str) -> dict:
    """The stored golden record ``stem``."""
    return json.loads(gzip.decompress((golden_dir() / f"{stem}.json.gz").read_bytes()))


def golden_dir() -> Path:
    """``tests/engines/newhaven/golden`` of the repository holding this package."""
    return Path(__file__).resolve().parents[3] / "tests" / "engines" / "newhaven" / "golden"


def play(variant_name: str, players: int, seed: int, policy_seed: int) -> dict:
    """Play one recorded game and return its golden record."""
    engine = ENGINE
    variant = engine.default_variants()[variant_name]
    rng = random.Random(policy_seed)
    state = engine.new_game(variant, players, seed)
    seats = [*range(players), None]
    steps = []
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        action = rng.choice(engine.legal_actions(state, seat))
        text = engine.describe_action(state, action)
        state = engine.apply(state, seat, action)
        steps.append(
            {
                "seat": seat,
                "action": engine.action_to_json(action),
                "text": text,
                "views": [engine.observe(state, s) for s in seats],
            }
        )
    return {
        "variant": variant_name,
        "players": players,
        "seed": seed,
        "policy_seed": policy_seed,
        "initial_views": [
            engine.observe(engine.new_game(variant, players, seed), s) for s in seats
        ],
        "steps": steps,
        "scores": engine.scores(state),
        "winners": engine.winners(state),
    }


def main(argv: list[str] | None = None) -> None:
    """Write every golden file (gzipped compact JSON, one per game)."""
    out = golden_dir()
    out.mkdir(parents=True, exist_ok=True)
    for stem, variant_name, players, seed, policy_seed in GAMES:
        record = play(variant_name, players, seed, policy_seed)
        path = out / f"{stem}.json.gz"
        text = json.dumps(record, separators=(",", ":")) + "\n"
        # gzip with mtime 0: the views make the raw JSON several MB, and identical
        # content must give identical bytes.
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        print(f"wrote {path} ({len(record['steps'])} steps)", file=sys.stderr)


if __name__ == "__main__":
    main()
