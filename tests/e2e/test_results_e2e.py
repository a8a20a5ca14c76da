"""One record of every result, seen in a real browser (issue 20).

The issue's scenario: a rated New Haven game with a clock where B resigned and A then ran
out of time while the AI played A's seat on to the board's best score; C stayed to the
end.  The game is played on the server side through the services (the browser is not the
point here); then the leaderboard, A's profile, the API and the game's page must agree:
C first and the only winner, A second with no win, B last.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from audit import ROOT  # not conftest's: that name depends on what is collected
from test_play_e2e import TIMEOUT

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

A, B, C = "res_a_e2e", "res_b_e2e", "res_c_e2e"

# Runs in the live server's environment (``manage.py shell``): three people at a rated
# table with a live clock (wherever it seats them); A plays the greedy AI's moves while
# seated (so A's seat leads), B and C random ones; B resigns after 30 moves, A runs out
# of time at A's first turn after 90 (the sweep applies it); the AI (greedy) plays both
# seats on, C to the end.
# Until the AI in A's seat has the best score (a few tries at most).  Prints the game id.
SETUP = f"""
import random
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
import ai
from games.ai_turns.turn import play_one_ai_turn
from games.core.selectors import current_state
from games.core.services import submit_action
from games.models import Game, Seat, Variant
from games.tables.services import apply_timeouts, create_game, join_game, resign_game
User = get_user_model()
variant = Variant.objects.get(game="newhaven", name="standard")
for attempt in range(8):
    # Fresh people for each try: the one kept has exactly this game on record.
    a, b, c = (User.objects.create_user(f"{{n}}{{attempt}}", password="pw-e2e-9x!")
               for n in {[A, B, C]!r})
    game = create_game(creator=a, variant=variant, seats=[{{"type": "human"}}] * 3,
                       rated=True, time_control={{"kind": "live", "reserve": 600,
                                                  "increment": 0}},
                       takeover_level="greedy")
    join_game(game=game, user=b)
    join_game(game=game, user=c)
    # A rated table may draw who sits where: A's seat, wherever it is.
    mine = Seat.objects.get(game=game, user=a).index
    engine = game.engine
    rng = random.Random(attempt)
    step, a_left, b_left = 0, False, False
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        state = current_state(game)
        seat = engine.to_move(state)[0]
        holder = Seat.objects.get(game=game, index=seat)
        if holder.is_ai:
            play_one_ai_turn(game.pk, game.version)
            continue
        if not b_left and step >= 30:
            resign_game(game=game, user=b)
            b_left = True
            continue
        if b_left and not a_left and seat == mine and step >= 90:
            Seat.objects.filter(game=game, index=mine).update(
                deadline=timezone.now() - timedelta(seconds=1))
            assert apply_timeouts(game=game) == 1
            a_left = True
            continue
        if seat == mine:
            action = ai.choose_action(engine, state, mine, level="greedy", seed=step)
        else:
            action = rng.choice(engine.legal_actions(state, seat))
        submit_action(game=game, user=holder.user, seat=seat,
                      action=engine.action_to_json(action), version=game.version,
                      key=f"res-{{game.version}}")
        step += 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and a_left and b_left
    if game.result["winners"] == [mine]:
        print("GAME", game.pk, attempt)
        break
else:
    raise AssertionError("the AI never won A's seat")
"""


def setup_game(live_env) -> tuple[int, str, str, str]:
    """The game's id and the names of A, B and C."""
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", SETUP], cwd=ROOT,
                         env=live_env, capture_output=True, text=True)
    if out.returncode:
        raise AssertionError(f"setup failed:\n{out.stdout}\n{out.stderr[-3000:]}")
    game_id, attempt = out.stdout.split("GAME")[-1].split()[:2]
    return int(game_id), f"{A}{attempt}", f"{B}{attempt}", f"{C}{attempt}"


def board_row(page, name: str) -> list[str]:
    return [cell.strip() for cell in
            page.locator(f"[data-player='{name}'] td").all_inner_texts()]


def test_leaderboard_profile_and_api_agree_after_a_leavers_seat_won(
    browser, live_url, live_env, screenshot
):
    game_id, a, b, c = setup_game(live_env)
    base = live_url
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)

    # The leaderboard: C above A, A without a win; B last of the three.
    page.goto(base + "/leaderboard/?game=newhaven")
    screenshot(page, "e2e-results-leaderboard")
    rows = {name: board_row(page, name) for name in (a, b, c)}
    rank = {name: int(row[0]) for name, row in rows.items()}
    assert rank[c] < rank[a] < rank[b], rows
    assert rows[a][3:] == ["1", "0"] and rows[c][3:] == ["1", "1"], rows  # games, wins
    assert rows[b][3:] == ["1", "0"], rows

    # The API's leaderboard says the same.
    api = {p["username"]: p for p in page.request.get(
        base + "/api/leaderboard/?game=newhaven").json()["players"]}
    for name in (a, b, c):
        assert [str(api[name]["rank"]), name, str(api[name]["rating"]),
                str(api[name]["games"]), str(api[name]["wins"])] == rows[name]

    # A's profile: one game played, no win, the same rating; the game lost on time.
    page.goto(f"{base}/accounts/{a}/")
    screenshot(page, "e2e-results-profile")
    stats = page.locator("[data-stats-game='newhaven']")
    assert stats.locator("[data-played]").inner_text() == "1"
    assert stats.locator("[data-wins]").inner_text() == "0"
    assert stats.locator("td[data-rating]").inner_text().startswith(rows[a][2] + " ")
    # The graph: from the newcomer rating to the one after this game.
    assert stats.locator("circle.dot").last.get_attribute("data-rating") == rows[a][2]
    finished = page.locator(f"[data-replay='{game_id}']").locator("xpath=ancestor::tr")
    assert "lost (ran out of time)" in finished.inner_text()

    # A's player document: the same numbers, and the game's row of the record.
    player = page.request.get(f"{base}/api/players/{a}/").json()
    assert player["stats"] == [{"game": "newhaven", "played": 1, "wins": 0}]
    [rating] = player["ratings"]
    assert (str(rating["rating"]), rating["games"], rating["wins"]) == (rows[a][2], 1, 0)
    [result] = player["results"]
    assert (result["id"], result["place"], result["ended"], result["won"]) == (
        game_id, 2, "timed_out", False)
    assert str(result["rating_after"]) == rows[a][2]

    # The game itself: the AI in A's seat has the best score, yet C is the winner.
    document = page.request.get(f"{base}/api/games/{game_id}/").json()
    seat = {r["username"]: r["seat"] for r in document["seat_results"]}
    scores = document["result"]["scores"]
    assert scores[seat[a]] == max(scores) and document["result"]["winners"] == [seat[a]]
    assert sorted((r["username"], r["place"], r["ended"], r["won"])
                  for r in document["seat_results"]) == [
        (a, 2, "timed_out", False), (b, 3, "resigned", False), (c, 1, "finished", True)]
    page.goto(f"{base}/games/{game_id}/")
    page.wait_for_selector("#final-scores")
    screenshot(page, "e2e-results-game")
    assert re.search(rf"Winner:\s*{c}\b", page.inner_text("#winners"))
    assert page.locator("[data-final-seat].winner").count() == 1
    assert "★" in page.inner_text(f"[data-final-seat='{seat[c]}']")
    assert "★" not in page.inner_text(f"[data-final-seat='{seat[a]}']")
    ctx.close()
