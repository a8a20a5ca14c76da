"""The arena's bookkeeping (``ailab.arena``): intervals, tallies, tables, the command line.

Moved from ``tests/ai/test_ai_search.py``; they play the toy game (tests/ai/toygame.py).
"""

from __future__ import annotations

from ailab.arena import GameRecord, seatings, tally, wilson
from ailab.arena import main as arena_main


def test_wilson_interval():
    low, high = wilson(70, 100)
    assert 0.60 < low < 0.61 and 0.78 < high < 0.79
    assert wilson(0, 0) == (0.0, 1.0)


def test_tally_splits_shared_wins():
    record = GameRecord(1, ["hard", "greedy"], [0.5, 0.5], [10, 10], [1.0, 0.1], [4, 4])
    result = tally([record])
    assert result["hard"].wins == 0.5 and result["greedy"].seats == 1


def test_arena_cli_runs_one_against_copies(capsys):
    arena_main(["--game", "toygame:ENGINE", "--players", "3", "--bots", "greedy,random",
                "--games", "3", "--seed", "5"])
    out = capsys.readouterr().out
    assert "greedy" in out and "random" in out and "95% CI" in out
    assert seatings(["a", "b", "b"]) == [["a", "b", "b"], ["b", "b", "a"], ["b", "a", "b"]]


def test_arena_table_shows_a_dash_where_no_search_was_counted():
    """Greedy and random bots (and choosers that do not report) searched nothing counted:
    their iterations per search read "-", not 0 (which would say "searched, 0 times")."""
    from ailab.arena import format_table

    records = [GameRecord(1, ["greedy", "normal"], [1.0, 0.0], [10, 8], [0.1, 0.2], [5, 5],
                          [0, 500], [0, 5])]
    rows = {line.split()[0]: line.split() for line in
            format_table(tally(records), 1, 2).splitlines()[2:]}
    assert rows["greedy"][-1] == "-" and rows["normal"][-1] == "100"
