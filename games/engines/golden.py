"""Golden playthroughs of every engine: ``python -m games.engines.golden [GAME ...]``.

A golden file records one seeded game played by a seeded uniform-random policy: for
every step the seat, the action JSON, its log sentence and ``observe`` for every seat
and the spectator (a seat's view equal to the spectator's is stored as ``SAME``), then
the final scores and winners.  ``tests/engines/test_golden.py`` replays each file step
by step, so any change of behaviour, intended or not, shows up as a reviewed diff.
Files are compact JSON gzipped with mtime 0: identical content gives identical bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path
from typing import Any, NamedTuple

from games.engines import Engine, engine_names, get_engine

SAME = "same as spectator"
TESTS_DIR = Path(__file__).resolve().parents[2] / "tests" / "engines"


class GoldenGame(NamedTuple):
    """One recorded game: file stem, variant, player count, game seed, policy seed."""

    stem: str
    variant: str
    players: int
    seed: int
    policy_seed: int


GAMES: dict[str, tuple[GoldenGame, ...]] = {
    "newhaven": (
        GoldenGame("standard-2p", "standard", 2, 2024, 1),
        GoldenGame("side-b-3p", "side-b", 3, 77, 2),
    ),
    "nouvellefrance": (
        GoldenGame("standard-2p", "standard", 2, 2024, 7),
        GoldenGame("simple-3p", "simple", 3, 1608, 11),
    ),
}


def views(engine: Engine, state: Any, players: int) -> dict[str, Any]:
    """``observe`` for the spectator and every seat (``SAME`` when equal to the spectator's)."""
    spectator = engine.observe(state, None)
    out: dict[str, Any] = {"spectator": spectator}
    for seat in range(players):
        view = engine.observe(state, seat)
        out[str(seat)] = SAME if view == spectator else view
    return out


def record(engine: Engine, game: GoldenGame) -> dict[str, Any]:
    """Play ``game`` with its seeded random policy and record everything observable."""
    state = engine.new_game(engine.default_variants()[game.variant], game.players, game.seed)
    rng = random.Random(game.policy_seed)
    initial = views(engine, state, game.players)
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
                "views": views(engine, state, game.players),
            }
        )
    return normalise(
        {
            "game": engine.name,
            **game._asdict(),
            "initial": initial,
            "steps": steps,
            "scores": engine.scores(state),
            "winners": engine.winners(state),
        }
    )


def normalise(data: Any) -> Any:
    """``data`` as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(data))


def path_of(game_name: str, stem: str) -> Path:
    """Where the golden file ``stem`` of ``game_name`` lives."""
    return TESTS_DIR / game_name / "golden" / f"{stem}.json.gz"


def load(game_name: str, stem: str) -> dict[str, Any]:
    """The stored golden record."""
    return json.loads(gzip.decompress(path_of(game_name, stem).read_bytes()))


def write(game_name: str, stem: str, data: dict[str, Any]) -> Path:
    """Store a golden record (compact JSON, gzip with mtime 0)."""
    path = path_of(game_name, stem)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    return path


def main(argv: list[str] | None = None) -> None:
    """Regenerate the golden files of the named games (default: all)."""
    parser = argparse.ArgumentParser(description="Regenerate golden playthroughs.")
    parser.add_argument("games", nargs="*", help=f"any of {', '.join(engine_names())}")
    names = parser.parse_args(argv).games or sorted(GAMES)
    unknown = sorted(set(names) - set(GAMES))
    if unknown:
        parser.error(f"no golden games for {', '.join(unknown)}")
    for name in names:
        engine = get_engine(name)
        for game in GAMES[name]:
            data = record(engine, game)
            path = write(name, game.stem, data)
            print(f"wrote {path} ({len(data['steps'])} steps, scores {data['scores']})")


if __name__ == "__main__":
    main()
