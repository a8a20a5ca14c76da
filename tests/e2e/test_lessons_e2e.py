"""Learn to play (issue 25): each game's lesson completed in the browser, from the home page,
on a desktop (1366 x 900) and a phone (390 x 844).

For every step the reader picks and plays, on the game's own board, a move the lesson
accepts (found with the engine and the lesson's own judge, then reached through the board's
picks and buttons, as a person would click them); in one step per game they first make a
wrong move, read its explanation and try again.  No account; no console error, no CSP
violation, and axe-core finds no serious or critical problem on a step and on a verdict.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from audit import Watch, assert_axe_clean
from test_play_e2e import TIMEOUT

from games.boards.lessons import get_lesson, judge
from games.engines import get_engine

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SCREENS = {
    "desktop": {"viewport": {"width": 1366, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
DESKTOP = SCREENS["desktop"]

#: The step (by key) where the reader first plays a wrong move, per game.
WRONG_AT = {"newhaven": "draw-bag", "nouvellefrance": "huron"}


def _canonical(move) -> str:
    return json.dumps(move, separators=(",", ":"), sort_keys=True)


def _picks(game: str, move) -> list[dict]:
    """The selections (query parameters, one pick after the other) that bring the move's
    button onto the game's board."""
    if game == "newhaven":
        kind = move["type"]
        if kind == "harvest":
            return [{"tile": move["tile"], "rot": move["rotation"]}]
        if kind == "ship":
            return [{"ship": move["resource"]}]
        if kind == "build":
            code = f"{move['resource']}-{move['number']}"
            return [{"b": code}, {"b": code, "face": "up" if move["face_up"] else "down"}]
        return []
    if move[0] == "bonus":
        return [{"bonus": move[1]}, {"bonus": move[1], "o": move[3]}]
    if move[0] == "place":
        return [{"o": move[2]}]
    return []


def _moves(game: str, step):
    """A right move and a wrong one (or None) of ``step``, the simplest to reach first."""
    engine = get_engine(game)
    state = step.state(engine)
    legal = [engine.action_to_json(a)
             for a in engine.legal_actions(state, step.seat(engine, state))]
    right = [m for m in legal if judge(engine, step, state, m).right]
    wrong = [m for m in legal if not judge(engine, step, state, m).right]
    right.sort(key=lambda m: len(_picks(game, m)))
    wrong.sort(key=lambda m: len(_picks(game, m)))
    if not wrong:
        return right[0], None, None
    return right[0], wrong[0], judge(engine, step, state, wrong[0])


_IN_VIEW = """id => { const r = document.getElementById(id).getBoundingClientRect();
  return r.top >= -2 && r.top < window.innerHeight - 40; }"""


def _play(page, base: str, game: str, move) -> None:
    """Reach the move's button through the board's picks (links, swapped in by HTMX), then
    press it."""
    button = page.locator(f"#lesson-root button[data-action='{_canonical(move)}']")
    for pick in _picks(game, move):
        if button.count():
            break
        link = page.locator(f"#lesson-root a[href='{base}?{urlencode(pick)}']").first
        if link.count():
            link.click()
        else:  # the same selection as an address (what the pick's link does without JS)
            page.goto(f"{base}?{urlencode(pick)}")
        page.wait_for_function("q => location.search === q", arg=f"?{urlencode(pick)}")
    button.first.click()


@pytest.mark.parametrize("screen", list(SCREENS))
@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_a_lesson_is_completed_in_the_browser_with_a_wrong_move_explained(
        browser, live_url, game, screen):
    lesson = get_lesson(game)
    ctx = browser.new_context(**SCREENS[screen])
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    page.goto(live_url + "/")
    page.click(f"a[data-lesson='{game}']")
    page.wait_for_selector("#lesson-task")
    assert page.url.endswith(f"/learn/{game}/1/")
    assert_axe_clean(page, f"{game}'s first lesson step")
    explained = False
    for number, step in enumerate(lesson.steps, start=1):
        base = f"/learn/{game}/{number}/"
        assert page.locator("#lesson-step-h").inner_text().startswith(f"Step {number} ")
        right, wrong, verdict = _moves(game, step)
        if step.key == WRONG_AT[game]:
            _play(page, base, game, wrong)
            page.wait_for_selector("#lesson-wrong")
            # The verdict is brought into view (the board's buttons may be far below it).
            page.wait_for_function(_IN_VIEW, arg="lesson-wrong")
            assert verdict.explanation in page.locator("#lesson-wrong").inner_text()
            assert page.locator("#lesson-task").is_visible()  # the same step, to try again
            assert_axe_clean(page, f"{game}'s explanation of a wrong move")
            explained = True
        _play(page, base, game, right)
        page.wait_for_selector("#lesson-right")
        page.wait_for_function(_IN_VIEW, arg="lesson-right")
        assert page.locator("#lesson-wrong").count() == 0
        assert str(step.done) in page.locator("#lesson-right").inner_text()
        assert page.locator("#game-log li").count() == 1  # the engine's event, as text
        if number < len(lesson.steps):
            page.click("#lesson-next")
            page.wait_for_url(f"**/learn/{game}/{number + 1}/")
            page.wait_for_selector("#lesson-task")
    assert explained
    page.wait_for_selector("#lesson-finished")
    watch.check()
    ctx.close()


def test_the_rules_pages_lead_to_the_lessons(browser, live_url):
    ctx = browser.new_context(**DESKTOP)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    watch = Watch(page)
    for game in ("newhaven", "nouvellefrance"):
        page.goto(f"{live_url}/rules/{game}/")
        page.click("#rules-lesson")
        page.wait_for_selector("#lesson-task")
        assert page.url.endswith(f"/learn/{game}/1/")
    watch.check()
    ctx.close()
