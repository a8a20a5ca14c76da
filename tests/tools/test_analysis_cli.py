"""``python -m tools.analysis GAME``: the timing command of the post-game analysis.

Moved from ``tests/ai/test_ai_analysis.py``; it plays the toy game (tests/ai/toygame.py).
"""

from __future__ import annotations


def test_cli_prints_the_time(capsys) -> None:
    from tools.analysis import main

    main(["toygame:ENGINE", "--iterations", "5", "--samples", "2",
          "--variant", "standard"])
    out = capsys.readouterr().out
    assert "s wall" in out and "s CPU" in out and "seat 0: accuracy" in out
