"""Engine speed side by side with an older tree: ``python -m tools.bench_compare``.

Both trees' engines play the same seeded random games (uniform choice among
``legal_actions``), one after the other in fresh processes, alternating which goes first;
each run reports the CPU time of one ``legal_actions`` + ``apply`` step averaged over
every action of its games. A round pairs one run of each tree; the printed speed is
old time / new time per action (above 1.0: the current tree is faster), the median over
rounds with the range. The older tree's ``games/engines`` is taken from git
(``git archive``), so nothing of it needs to be checked out; the default reference is the
last commit of wave 1 (before structured events and rule data).

Only the engines are imported (pure Python), so this runs without Django.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: The last commit of wave 1: the engines before wave 2's protocol (events, rule data).
WAVE_1 = "87ef453"

REPO = Path(__file__).resolve().parent.parent

# Runs inside the tree under test (its folder first on sys.path): plays the seeded games
# and prints the CPU nanoseconds per action and the number of actions.
_WORKER = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from games.engines import get_engine
game, players, games, seed = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
engine = get_engine(game)
variant = engine.default_variants()["standard"]

def play(seed):
    rng = random.Random(seed)
    state = engine.new_game(variant, players, seed)
    steps = 0
    spent = 0
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        started = time.process_time_ns()
        actions = engine.legal_actions(state, seat)
        state = engine.apply(state, seat, rng.choice(actions))
        spent += time.process_time_ns() - started
        steps += 1
    return steps, spent

play(seed - 1)  # warm caches and imports
steps = spent = 0
for index in range(games):
    s, t = play(seed + index)
    steps += s
    spent += t
print(json.dumps({"ns_per_action": spent / steps, "actions": steps}))
"""


def export_tree(ref: str, into: Path) -> Path:
    """Extract ``ref``'s pure engine package into ``into`` and return the tree's root."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, "games/engines"],
        check=True, capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    # Only the engines: an empty ``games`` package keeps Django's app out of the import.
    (into / "games" / "__init__.py").write_text("")
    return into


def run_tree(root: Path, game: str, players: int, games: int, seed: int) -> dict:
    """One run of the worker in ``root``: CPU ns per action over ``games`` seeded games."""
    out = subprocess.run(
        [sys.executable, "-c", _WORKER, str(root), game, str(players), str(games), str(seed)],
        check=True, capture_output=True, text=True, cwd=root,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, run the paired rounds and print the speed ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_", nargs="*", default=["newhaven", "nouvellefrance"],
                        metavar="GAME")
    parser.add_argument("--old", default=WAVE_1, help="git ref of the older tree")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=20, help="random games per run")
    parser.add_argument("--rounds", type=int, default=5, help="paired runs per row")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-old-") as tmp:
        old_root = export_tree(args.old, Path(tmp))
        print(f"old tree: {args.old}; new tree: {REPO}; CPU time per legal_actions+apply, "
              f"{args.games} games x {args.rounds} paired rounds")
        for game in args.games_:
            for players in args.players:
                ratios, old_us, new_us = [], [], []
                for round_ in range(args.rounds):
                    order = [("old", old_root), ("new", REPO)]
                    if round_ % 2:
                        order.reverse()
                    got = {name: run_tree(root, game, players, args.games, args.seed)
                           for name, root in order}
                    old_us.append(got["old"]["ns_per_action"] / 1000)
                    new_us.append(got["new"]["ns_per_action"] / 1000)
                    ratios.append(got["old"]["ns_per_action"] / got["new"]["ns_per_action"])
                print(f"{game} players={players}: old {statistics.median(old_us):.1f} us, "
                      f"new {statistics.median(new_us):.1f} us per action; speed new/old "
                      f"{statistics.median(ratios):.2f}x (range {min(ratios):.2f}-"
                      f"{max(ratios):.2f})", flush=True)


if __name__ == "__main__":
    main()
