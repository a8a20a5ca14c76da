"""Golden playthroughs of every engine: ``python -m tools.golden [GAME ...]``.

A golden file records one seeded game played by a seeded uniform-random policy, as
reviewable JSON Lines (``tests/engines/<game>/golden/<stem>.jsonl``, uncompressed, one
JSON object per line, keys sorted):

* a header line: ``game``, ``variant``, ``players``, ``seed``, ``policy_seed`` and the
  ``views`` of the initial state;
* one line per action: ``step`` (from 0), ``seat``, ``action`` (its JSON), ``event``
  (``describe_action``) and ``digests`` of the views after it; every
  ``CHECKPOINT_EVERY``-th step and the last one also hold those ``views`` in full;
* a final line: ``scores`` and ``winners``.

``views`` holds ``observe`` for the spectator (``"spectator"``) and every seat (``"0"``,
``"1"``...); a seat's view equal to the spectator's is stored as ``SAME``.  ``digests``
has the same keys, each the ``digest`` of that entry (a SHA-256 prefix of its sorted-keys
JSON), so a file stays small while every view of every step is still pinned.
``tests/tools/test_golden.py`` replays every file step by step, so any change of
behaviour, intended or not, fails there: an event or a full view as a readable diff of
the lines it touches, any other view as the step and seat whose digest changed.
Regenerate after an intended change and review the diff.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from games.engines import Engine, engine_names, get_engine

SAME = "same as spectator"
#: Step lines with the full views: every this many steps (and the last step).
CHECKPOINT_EVERY = 25
TESTS_DIR = Path(__file__).resolve().parents[1] / "tests" / "engines"


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


def digest(value: Any) -> str:
    """A short fingerprint of JSON data: 64 bits of the SHA-256 of its sorted-keys JSON."""
    return hashlib.sha256(dumps(value).encode()).hexdigest()[:16]


def digests(views_of_step: dict[str, Any]) -> dict[str, str]:
    """``digest`` of every entry of ``views`` (normalised as JSON reads it back)."""
    return {key: digest(value) for key, value in normalise(views_of_step).items()}


def is_checkpoint(step: int, last: int) -> bool:
    """Whether the line of ``step`` (of steps ``0..last``) holds the full views."""
    return step == last or (step + 1) % CHECKPOINT_EVERY == 0


def header(game_name: str, game: GoldenGame) -> dict[str, Any]:
    """The header line's fields besides the initial ``views``."""
    return {
        "game": game_name,
        "variant": game.variant,
        "players": game.players,
        "seed": game.seed,
        "policy_seed": game.policy_seed,
    }


def record(engine: Engine, game: GoldenGame) -> list[dict[str, Any]]:
    """Play ``game`` with its seeded random policy: the lines of its golden file."""
    state = engine.new_game(engine.default_variants()[game.variant], game.players, game.seed)
    rng = random.Random(game.policy_seed)
    lines = [{**header(engine.name, game), "views": views(engine, state, game.players)}]
    step = 0
    full: list[dict[str, Any]] = []  # the views after each step
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        action = rng.choice(engine.legal_actions(state, seat))
        event = engine.describe_action(state, action)
        state = engine.apply(state, seat, action)
        seen = views(engine, state, game.players)
        full.append(seen)
        lines.append(
            {
                "step": step,
                "seat": seat,
                "action": engine.action_to_json(action),
                "event": event,
                "digests": digests(seen),
            }
        )
        step += 1
    for index, seen in enumerate(full):
        if is_checkpoint(index, len(full) - 1):
            lines[1 + index]["views"] = seen
    lines.append({"scores": engine.scores(state), "winners": engine.winners(state)})
    return normalise(lines)


def normalise(data: Any) -> Any:
    """``data`` as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(data))


def dumps(line: dict[str, Any]) -> str:
    """One line of a golden file: compact JSON with sorted keys."""
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def path_of(game_name: str, stem: str) -> Path:
    """Where the golden file ``stem`` of ``game_name`` lives."""
    return TESTS_DIR / game_name / "golden" / f"{stem}.jsonl"


def read(game_name: str, stem: str) -> Iterator[dict[str, Any]]:
    """The lines of a stored golden file, one parsed object at a time."""
    with path_of(game_name, stem).open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            try:
                yield json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path_of(game_name, stem)}:{number}: {exc}") from None


def load(game_name: str, stem: str) -> list[dict[str, Any]]:
    """Every line of a stored golden file."""
    return list(read(game_name, stem))


def write(game_name: str, stem: str, lines: list[dict[str, Any]]) -> Path:
    """Store a golden file (one sorted-keys JSON object per line, ``\\n`` endings)."""
    path = path_of(game_name, stem)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(dumps(line) + "\n" for line in lines), encoding="utf-8")
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
            lines = record(engine, game)
            path = write(name, game.stem, lines)
            # Files of the old gzipped single-line format are replaced, not kept beside.
            old = path.with_name(f"{game.stem}.json.gz")
            if old.exists():
                old.unlink()
            print(f"wrote {path} ({len(lines) - 2} steps, scores {lines[-1]['scores']})")


if __name__ == "__main__":
    main()
