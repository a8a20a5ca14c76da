"""Golden playthroughs: ``python -m games.engines.nouvellefrance.golden`` rewrites them.

Each file holds a seeded game played by a seeded uniform-random policy: for every
step the seat, the action JSON, its log sentence and ``observe`` for every seat and
the spectator (a seat's view equal to the spectator's is stored as ``SAME`` to keep
the files small); then the final scores and winners.  A test replays and compares, so
any change of behaviour shows up as a diff to review.  Files are compact JSON gzipped
with a fixed mtime (identical content gives identical bytes).
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

from . import ENGINE

GOLDEN_DIR = Path(__file__).resolve().parents[3] / "tests" / "engines" / "nouvellefrance" / "golden"

#: (file stem, variant name, players, game seed, policy seed)
GAMES = (
    ("standard_2p", "standard", 2, 2024, 7),
    ("simple_3p", "simple", 3, 1608, 11),
)


SAME = "same as spectator"


def _views(state: Any, seats: list[int | None]) -> dict[str, Any]:
    """``observe`` for every seat; a seat's view equal to the spectator's is stored as SAME."""
    spectator = ENGINE.observe(state, None)
    views: dict[str, Any] = {"spectator": spectator}
    for p in seats[:-1]:
        view = ENGINE.observe(state, p)
        views[str(p)] = SAME if view == spectator else view
    return views


def record(variant_name: str, num_players: int, seed: int, policy_seed: int) -> dict[str, Any]:
    """Play one game with a seeded random policy and record everything observable."""
    variant = ENGINE.default_variants()[variant_name]
    state = ENGINE.new_game(variant, num_players, seed)
    rng = random.Random(policy_seed)
    seats: list[int | None] = [*range(num_players), None]
    steps = []
    initial = _views(state, seats)
    while not ENGINE.is_over(state):
        seat = ENGINE.to_move(state)[0]
        action = rng.choice(ENGINE.legal_actions(state, seat))
        text = ENGINE.describe_action(state, action)
        state = ENGINE.apply(state, seat, action)
        steps.append(
            {
                "seat": seat,
                "action": ENGINE.action_to_json(action),
                "text": text,
                "observe": _views(state, seats),
            }
        )
    return {
        "variant": variant_name,
        "num_players": num_players,
        "seed": seed,
        "policy_seed": policy_seed,
        "initial": initial,
        "steps": steps,
        "scores": ENGINE.scores(state),
        "winners": ENGINE.winners(state),
    }


def path_of(stem: str) -> Path:
    """The golden file of ``stem``."""
    return GOLDEN_DIR / f"{stem}.json.gz"


def load(stem: str) -> dict[str, Any]:
    """The stored golden record ``stem``."""
    return json.loads(gzip.decompress(path_of(stem).read_bytes()))


def main() -> None:
    """Regenerate every golden file."""
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for stem, variant_name, n, seed, policy_seed in GAMES:
        data = record(variant_name, n, seed, policy_seed)
        path = path_of(stem)
        text = json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        print(f"wrote {path} ({len(data['steps'])} steps, scores {data['scores']})")


if __name__ == "__main__":
    main()
