"""A game near its end, stored in the live server's database, for a short browser test.

:func:`near_the_end` plays a random game through the engine alone (tests/games/
replay_support.py), stores the moves up to the last point where the person (seat 0) starts a
turn at least ``left`` actions before the end, with a random AI in seat 1, and returns its
id: the browser then plays that last stretch through the page (every kind of decision of a
turn, the AI's answers over the socket, the final scores) in seconds instead of a whole game.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_MAKE = """
import sys
sys.path.insert(0, "tests/games")
from django.contrib.auth import get_user_model
from games.engines import get_engine
from replay_support import random_actions, store_game
game, variant, seed, left = {game!r}, {variant!r}, {seed!r}, {left!r}
engine = get_engine(game)
data = engine.default_variants()[variant]
{tweak}
full = random_actions(game, data, 2, seed, seed)
state, cut = engine.new_game(data, 2, seed), 0
for i, (seat, action) in enumerate(full):
    if i > len(full) - left:
        break
    if seat == 0 and i and full[i - 1][0] == 1 and engine.to_move(state) == [0]:
        cut = i
    state = engine.apply(state, seat, action)
user = get_user_model().objects.get(username={username!r})
print(store_game(game, data, [user, None], seed, full[:cut], variant_name=variant).pk)
"""


def near_the_end(env: dict[str, str], *, game: str, username: str, left: int,
                 variant: str = "standard", seed: int = 5, tweak: str = "") -> int:
    """The id of a running game of ``username`` (seat 0, to move) against a random AI,
    about ``left`` actions from its end.  ``tweak``: Python lines that change ``data``, the
    engine's ``variant`` (stored with the game only: no variant row, so no lobby shows it)."""
    code = _MAKE.format(game=game, variant=variant, seed=seed, left=left, username=username,
                        tweak=tweak)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env,
                         check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])
