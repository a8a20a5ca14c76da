"""The analysis graph: every seat's win chance across a game, as server-rendered SVG.

Built with ``games.boards.svg``, which escapes names and numbers.  One
line per seat over the replay steps (step ``K`` = the position after ``K`` moves), a dot
per marked move (inaccuracy, mistake, blunder) and a diamond per draw, all drawing only,
under a transparent band per step on top: the band is the one link to ``?step=K`` of the
replay, titled with the move's mark or draw when it has one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.boards.svg import el, markup, num, svg

__all__ = ["SEAT_COLOURS", "curves", "win_graph"]

#: Line colours by seat (colour-blind friendly; seats also differ by dash pattern).
SEAT_COLOURS = ("#1f77b4", "#d95f02", "#1b9e77", "#7570b3")
DASHES = ("", "6 3", "2 2", "8 3 2 3")
WIDTH, HEIGHT = 900.0, 240.0
LEFT, RIGHT, TOP, BOTTOM = 34.0, 8.0, 8.0, 22.0


def curves(moves: Sequence[dict], num_players: int) -> list[list[tuple[int, float]]]:
    """Per seat, the points ``(step, win chance)``: an even start, then one per move."""
    start = 1.0 / num_players if num_players else 0.0
    out: list[list[tuple[int, float]]] = [[(0, start)] for _seat in range(num_players)]
    for move in moves:
        win = move.get("win") or []
        if len(win) != num_players:
            continue
        for seat in range(num_players):
            out[seat].append((int(move["step"]) + 1, float(win[seat])))
    return out


def win_graph(moves: Sequence[dict], *, num_players: int, total: int, names: Sequence[str],
              link: Callable[[int], str], current: int | None = None) -> SafeString:
    """The graph's ``<svg>`` markup; ``link(K)`` is the URL of replay step ``K``."""
    steps = max(1, int(total))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(step: float) -> float:
        return LEFT + plot_w * step / steps

    def y(value: float) -> float:
        return TOP + plot_h * (1.0 - max(0.0, min(1.0, value)))

    root = svg(0, 0, WIDTH, HEIGHT, label=_("Win chance of every player, move by move"),
               class_="analysis-graph")
    # Grid, lines and marks only draw: the pointer goes through them to the step bands
    # drawn on top, so every point of the plot has exactly one target (a dot or a line
    # over a band used to catch the click meant for the band).
    grid = el(root, "g", class_="graph-grid", pointer_events="none")
    for value in (0.0, 0.25, 0.5, 0.75, 1.0):
        el(grid, "line", x1=LEFT, x2=WIDTH - RIGHT, y1=y(value), y2=y(value),
           stroke="#ccc", stroke_width=0.5 if value not in (0.0, 1.0) else 1)
        el(grid, "text", f"{int(value * 100)}%", x=LEFT - 4, y=y(value) + 3,
           text_anchor="end", font_size=9, fill="#666")
    el(grid, "text", _("move"), x=WIDTH - RIGHT, y=HEIGHT - 6, text_anchor="end",
       font_size=9, fill="#666")
    if current is not None and 0 <= current <= steps:
        el(root, "line", x1=x(current), x2=x(current), y1=TOP, y2=TOP + plot_h,
           stroke="#333", stroke_width=1, stroke_dasharray="3 2", class_="graph-current",
           data_step=current, pointer_events="none")

    lines = el(root, "g", class_="graph-lines", pointer_events="none")
    for seat, points in enumerate(curves(moves, num_players)):
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        el(lines, "polyline", class_=f"graph-seat seat-{seat}", fill="none", stroke=colour,
           stroke_width=2, stroke_dasharray=DASHES[seat % len(DASHES)] or None,
           points=" ".join(f"{num(x(s))},{num(y(v))}" for s, v in points),
           data_seat=seat)

    marks = el(root, "g", class_="graph-marks", pointer_events="none")
    labels = {"inaccuracy": _("inaccuracy"), "mistake": _("mistake"), "blunder": _("blunder")}
    radius = {"inaccuracy": 3.0, "mistake": 4.0, "blunder": 5.0}
    titles: dict[int, str] = {}  # step -> what its band says about the move's mark or draw
    for move in moves:
        seat, step = int(move["seat"]), int(move["step"]) + 1
        win = move.get("win") or []
        value = float(win[seat]) if len(win) > seat else 0.5
        name = names[seat] if seat < len(names) else str(seat)
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        mark = move.get("mark")
        if mark in labels:
            titles[step] = _("Move %(step)d, %(name)s: %(mark)s (%(loss)s%% lost)") % {
                "step": step, "name": name, "mark": labels[mark],
                "loss": num(100 * float(move.get("loss", 0)))}
            el(marks, "circle", cx=x(step), cy=y(value), r=radius[mark], fill=colour,
               stroke="#000" if mark == "blunder" else "#fff", stroke_width=1,
               class_=f"graph-mark mark-{mark}", data_step=step, data_mark=mark)
        elif move.get("chance"):
            luck = (move.get("luck") or [0.0] * (seat + 1))[seat]
            titles[step] = _("Move %(step)d, %(name)s drew: luck %(luck)s%%") % {
                "step": step, "name": name, "luck": f"{100 * float(luck):+.0f}"}
            cx, cy = x(step), y(value)
            el(marks, "path", d=f"M{num(cx)} {num(cy - 3)}l3 3l-3 3l-3 -3z", fill="#fff",
               stroke=colour, stroke_width=1, class_="graph-draw", data_step=step)

    # The step bands last (on top, transparent): one link per step, named after its mark.
    bands = el(root, "g", class_="graph-steps")
    band_w = plot_w / steps
    for step in range(steps + 1):
        anchor = el(bands, "a", href=link(step), class_="graph-step", data_step=step)
        el(anchor, "title", titles.get(step) or (
            _("Move %(step)d") % {"step": step} if step else _("Start")))
        el(anchor, "rect", x=x(step) - band_w / 2, y=TOP, width=band_w, height=plot_h,
           fill="transparent")
    return markup(root)
