"""The analysis panel of the replay page: its context and its render (views, the replay
page's slot and the socket share it)."""

from __future__ import annotations

import re
from typing import Any

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode

import ai.analysis as pure
from games.analysis.graph import SEAT_COLOURS, win_graph
from games.analysis.selectors import get_analysis, may_request
from games.analysis.services import nudge_if_stalled
from games.boards import default_event_text, get_board
from games.core.selectors import replayed_state, rule_data
from games.models import Analysis, Game

PANEL = "games/partials/analysis_panel.html"



SLOT = "games/partials/analysis_slot.html"



def replay_url(game_id: int) -> str:
    """The replay page of a game."""
    return reverse("replay", args=[game_id])



def int_or_none(value: Any) -> int | None:
    """``value`` as an integer; ``None`` when it is not one."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None



def perspective_param(value: Any) -> str | None:
    """The replay's perspective parameter (a seat number or a word), passed through."""
    text = str(value) if value is not None else ""
    return text if re.fullmatch(r"[A-Za-z0-9_-]{1,16}", text) else None



def _names(game: Game) -> list[str]:
    seats = sorted(game.seats.all(), key=lambda s: s.index)
    return [s.display_name for s in seats]



def _move_text(game: Game, decision: dict, names: list[str]) -> dict:
    """The played and best moves of ``decision`` as log lines (the board's wording)."""
    engine = game.engine
    board = get_board(game.game_name)
    names_by_seat = dict(enumerate(names))
    try:
        state = replayed_state(game, upto=int(decision["step"]))
        rules = rule_data(game.game_name, game.variant_data)
        out = {}
        for key in ("played", "best"):
            event = engine.describe_action(state, engine.action_from_json(decision[key]))
            if not isinstance(event, dict):
                out[key] = str(event)
            elif board is not None:
                out[key] = board.event_text(event, names_by_seat, rules)
            else:
                out[key] = default_event_text(event, names_by_seat)
        return out
    except Exception:  # an old analysis of a game the rules no longer replay
        return {"played": "", "best": ""}



def method() -> dict:
    """The numbers of the accuracy formula and the marks, as the page explains them
    (:mod:`ai.analysis`: a move's score from the share of its win chance lost)."""
    thresholds = {name: f"{100 * loss:g}" for name, loss in pure.MARKS}
    return {"a": f"{pure.ACCURACY_A:.2f}", "k": f"{pure.ACCURACY_K:.4g}",
            "b": f"{pure.ACCURACY_B:.2f}", "floor": f"{100 * pure.CHANCE_FLOOR:g}",
            **thresholds}


def panel_context(game: Game, user: Any, *, step: int | None = None,
                  seat: str | None = None) -> dict:
    """The template context of the analysis panel for ``user`` at replay ``step``."""
    found = get_analysis(game)
    nudge_if_stalled(found)
    names = _names(game)
    base = replay_url(game.pk)

    def link(k: int) -> str:
        params = {"step": k}
        if seat is not None:
            params["seat"] = seat
        return f"{base}?{urlencode(params)}"

    context: dict[str, Any] = {
        "game": game,
        "analysis": found,
        "finished_game": game.status == Game.Status.FINISHED,
        "may_request": may_request(game, user),
        "panel_url": reverse("analysis_panel", args=[game.pk]),
        "start_url": reverse("analysis_start", args=[game.pk]),
        "ws_url": f"/ws/games/{game.pk}/analysis/",
        "step": step,
        "seat": seat,
        "method": method(),
        "query": urlencode({k: v for k, v in (("step", step), ("seat", seat))
                            if v is not None}),
    }
    if found is None:
        return context
    context.update(status=found.status, done=found.done, total=found.total,
                   percent=int(100 * found.progress))
    if found.status == Analysis.Status.DONE:
        moves = found.moves or []
        context["graph"] = win_graph(moves, num_players=game.num_players, total=found.total,
                                     names=names, link=link, current=step)
        rows = []
        for row in found.summary or []:
            index = int(row["seat"])
            rows.append({**row, "name": names[index] if index < len(names) else index,
                         "colour": SEAT_COLOURS[index % len(SEAT_COLOURS)],
                         "luck_percent": f"{100 * float(row['luck']):+.0f}"})
        context["rows"] = rows
        if step is not None:
            decision = next((m for m in moves if int(m["step"]) == step - 1), None)
            if decision is not None:
                index = int(decision["seat"])
                context["decision"] = {
                    **decision, "name": names[index] if index < len(names) else index,
                    "number": step,
                    "value_played_percent": round(100 * float(decision["value_played"])),
                    "value_best_percent": round(100 * float(decision["value_best"])),
                    "luck_percent": f"{100 * float(decision['luck'][index]):+.0f}"
                    if decision.get("chance") else "",
                    **_move_text(game, decision, names),
                }
    return context



def render_panel(game: Game, user: Any, *, step: int | None = None,
                 seat: str | None = None, part: str = "panel", request: Any = None) -> str:
    """The panel (``part="panel"``) or only its progress bar (``part="progress"``)."""
    context = panel_context(game, user, step=step, seat=seat)
    name = f"{PANEL}#progress" if part == "progress" else PANEL
    return render_to_string(name, {"p": context}, request=request)
