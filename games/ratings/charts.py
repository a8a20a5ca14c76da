"""Server-rendered SVG charts of the profile page (built as an element tree, never as text)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from games.boards.svg import el, markup, svg

WIDTH, HEIGHT = 320.0, 120.0
PAD_LEFT, PAD_RIGHT, PAD_Y = 40.0, 8.0, 12.0


def rating_points(history: Sequence) -> list[int]:
    """The ratings to draw: the one before the first rated game, then after each game."""
    if not history:
        return []
    return [history[0].rating_before, *(change.rating_after for change in history)]


def rating_graph(history: Sequence, *, title: str = "") -> SafeString:
    """A line chart of a player's rating over their rated games of one game.

    ``history`` is the player's rated ``SeatResult`` rows (the result record: rating
    before and after), oldest first; an empty history draws nothing.
    """
    points = rating_points(history)
    if not points:
        return SafeString("")
    low, high = min(points), max(points)
    if high - low < 20:  # a flat line sits in the middle of a small band
        low, high = low - 10, high + 10
    span_x = WIDTH - PAD_LEFT - PAD_RIGHT
    span_y = HEIGHT - 2 * PAD_Y
    step = span_x / max(1, len(points) - 1)

    def y_of(value: float) -> float:
        return PAD_Y + (high - value) / (high - low) * span_y

    label = title or _("Rating after each rated game: from %(first)s to %(last)s") % {
        "first": points[0], "last": points[-1]}
    root = svg(0, 0, WIDTH, HEIGHT, label=label, class_="rating-graph",
               width=int(WIDTH), height=int(HEIGHT))
    el(root, "title", label)
    for value in (high, low):
        y = y_of(value)
        el(root, "line", x1=PAD_LEFT, y1=y, x2=WIDTH - PAD_RIGHT, y2=y, class_="grid")
        el(root, "text", str(value), x=PAD_LEFT - 4, y=y + 4, class_="axis",
           text_anchor="end")
    coords = [(PAD_LEFT + i * step, y_of(value)) for i, value in enumerate(points)]
    el(root, "polyline", points=" ".join(f"{x:.1f},{y:.1f}" for x, y in coords),
       class_="line", fill="none")
    for (x, y), value in zip(coords, points, strict=True):
        dot = el(root, "circle", cx=x, cy=y, r=2.5, class_="dot", data_rating=value)
        el(dot, "title", str(value))
    return markup(root)
