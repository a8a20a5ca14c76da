"""What the editor's report and diff templates show, computed here so they stay dumb.

SVG is built with ElementTree (a real tree, escaped), never by pasting strings.
"""

from __future__ import annotations

import math
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from common.jsondata import Change, short
from common.jsonpaths import parse_path

# --- histograms ----------------------------------------------------------------------------------


def bins_for(values: list[float], *, most: int = 20) -> tuple[float, float, int]:
    """``(low, width, count)`` of integer-aligned bins covering ``values``."""
    if not values:
        return 0.0, 1.0, 1
    low, high = math.floor(min(values)), math.floor(max(values))
    span = high - low + 1
    width = max(1, math.ceil(span / most))
    return float(low), float(width), max(1, math.ceil(span / width))


def histogram_svg(values: list[float], low: float, width: float, count: int, *,
                  label: str) -> SafeString:
    """A bar chart of ``values`` over ``count`` bins of ``width`` from ``low``."""
    counts = [0] * count
    for v in values:
        i = int((v - low) // width)
        if 0 <= i < count:
            counts[i] += 1
    w, h, pad, axis = 240, 90, 4, 14
    bar = (w - 2 * pad) / count
    top = max(counts) or 1
    svg = ET.Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {w} {h + axis}",
        "class": "histogram", "role": "img", "aria-label": label,
    })
    ET.SubElement(svg, "title").text = label
    for i, n in enumerate(counts):
        height = (h - pad) * n / top
        rect = ET.SubElement(svg, "rect", {
            "x": f"{pad + i * bar + 0.5:.1f}", "y": f"{h - height:.1f}",
            "width": f"{max(bar - 1, 0.5):.1f}", "height": f"{height:.1f}", "class": "bar",
        })
        start = low + i * width
        span = f"{start:g}" if width == 1 else f"{start:g}–{start + width - 1:g}"
        ET.SubElement(rect, "title").text = _("%(scores)s points: %(n)d") % {
            "scores": span, "n": n}
    ET.SubElement(svg, "line", {"x1": str(pad), "x2": str(w - pad), "y1": str(h),
                                "y2": str(h), "class": "axis"})
    for x, text, anchor in ((pad, f"{low:g}", "start"),
                            (w - pad, f"{low + count * width - 1:g}", "end")):
        t = ET.SubElement(svg, "text", {"x": str(x), "y": str(h + axis - 2),
                                        "text-anchor": anchor, "class": "tick"})
        t.text = text
    return mark_safe(ET.tostring(svg, encoding="unicode"))


# --- reports side by side ------------------------------------------------------------------------


def _fmt(stats: dict | None, digits: int = 1) -> str:
    if not stats:
        return "–"
    mean, sd = f"{stats['mean']:.{digits}f}", f"{stats['sd']:.{digits}f}"
    return f"{mean} ± {sd}  ({stats['min']:.4g}–{stats['max']:.4g})"


@dataclass
class Row:
    label: str
    left: str
    right: str
    flag: bool = False  # worth a look (e.g. a first-seat advantage)


@dataclass
class Section:
    """One player count: rows of figures and the two histograms."""

    players: int
    rows: list[Row] = field(default_factory=list)
    left_svg: SafeString | None = None
    right_svg: SafeString | None = None


def _advantage(report: dict | None) -> tuple[str, bool]:
    if not report or not report.get("seats"):
        return "–", False
    seat = report["seats"][0]
    expected = 1 / len(report["seats"])
    outside = not seat["low"] <= expected <= seat["high"]
    text = _("%(share).1f%% [%(low).1f–%(high).1f] (fair: %(fair).1f%%)") % {
        "share": 100 * seat["share"], "low": 100 * seat["low"], "high": 100 * seat["high"],
        "fair": 100 * expected,
    }
    return text, outside


def _shares(report: dict | None) -> str:
    if not report:
        return "–"
    return "  ".join(f"{100 * s['share']:.0f}%" for s in report.get("seats", []))


def report_sections(left: dict | None, right: dict | None,
                    label: Callable[[str], str] = lambda name: name.replace("_", " "),
                    ) -> list[Section]:
    """The draft's report (``left``) beside the published version's (``right``), per
    player count, with histograms on shared bins; ``label`` names the game's own figures
    (``games.editor.widgets.figure_label``)."""
    left_by = (left or {}).get("by_players", {})
    right_by = (right or {}).get("by_players", {})
    sections = []
    for key in sorted({*left_by, *right_by}, key=int):
        a, b = left_by.get(key), right_by.get(key)
        section = Section(int(key))
        adv_a, flag_a = _advantage(a)
        adv_b, _flag_b = _advantage(b)

        def both(fn, a=a, b=b) -> tuple[str, str]:
            return (fn(a) if a else "–", fn(b) if b else "–")

        section.rows = [
            Row(_("games completed"), *both(lambda r: f"{r['completed']} / {r['games']}")),
            Row(_("turns per game"), *both(lambda r: _fmt(r.get("turns")))),
            Row(_("actions per game"), *both(lambda r: _fmt(r.get("actions")))),
            Row(_("score"), *both(lambda r: _fmt(r.get("scores")))),
            # xgettext:no-python-format
            Row(_("first-seat wins (95% interval)"), adv_a, adv_b, flag=flag_a),
            Row(_("wins by seat"), _shares(a), _shares(b)),
            Row(_("ties"), *both(lambda r: str(r["ties"]))),
            Row(_("errors"), *both(lambda r: str(len(r["errors"]))),
                flag=bool(a and a["errors"])),
        ]
        names = sorted({*(a or {}).get("figures", {}), *(b or {}).get("figures", {})})
        for name in names:
            section.rows.append(Row(
                label(name),
                _fmt((a or {}).get("figures", {}).get(name), 3),
                _fmt((b or {}).get("figures", {}).get(name), 3),
            ))
        values_a = (a or {}).get("score_values") or []
        values_b = (b or {}).get("score_values") or []
        low, width, count = bins_for([*values_a, *values_b])
        if values_a:
            section.left_svg = histogram_svg(values_a, low, width, count, label=_(
                "Scores of the simulated games, %(n)d players") % {"n": section.players})
        if values_b:
            section.right_svg = histogram_svg(values_b, low, width, count, label=_(
                "Scores of the published version's games, %(n)d players")
                % {"n": section.players})
        sections.append(section)
    return sections


def reproduce_command(game: str, variant: str, error: dict, bots: list[str]) -> str:
    """The command that replays one failed game of a simulation."""
    return " ".join([
        "python -m tools.simulate", shlex.quote(game),
        "--variant-file", shlex.quote(f"{variant}.json"),
        "--players", str(error.get("players", "")), "--games 1",
        "--seed", str(error.get("seed")), "--bots", shlex.quote(",".join(bots)),
    ])


# --- diffs ---------------------------------------------------------------------------------------


@dataclass
class DiffRow:
    path: str
    kind: str
    old: str
    new: str
    code: str = ""  # the data path (``village.row_values[0]``)


def _titled(path: str, title: Callable[[tuple], str] | None) -> str:
    """A recorded path (``village.row_values[0]``) as ``title`` names it."""
    if title is None:
        return path
    key = parse_path(path)
    return path if key is None else title(key)


def diff_rows(changes: list[Change], title: Callable[[tuple], str] | None = None,
              ) -> list[DiffRow]:
    """The rows of a diff; ``title`` names a field path (``VariantEditor.path_title``)."""
    return [
        DiffRow(title(c.path) if title else c.label, c.kind,
                "" if c.kind == "added" else short(c.old, 400),
                "" if c.kind == "removed" else short(c.new, 400), c.label)
        for c in changes
    ]


def _detail(record: dict[str, Any]) -> str:
    """A change-log detail without a path: a simulation's settings, or ``key: value``."""
    if set(record) == {"games", "players", "bots", "seed"}:
        players = record["players"]
        return _("%(games)s games; players: %(players)s; bots: %(bots)s; seed %(seed)s") % {
            "games": record["games"],
            "players": ", ".join(map(str, players)) if isinstance(players, list) else players,
            "bots": ", ".join(map(str, record["bots"])) if isinstance(record["bots"], list)
            else record["bots"],
            "seed": record["seed"],
        }
    return ", ".join(f"{k}: {v}" for k, v in record.items())


def change_summary(records: list[dict[str, Any]], limit: int = 8,
                   title: Callable[[tuple], str] | None = None) -> list[str]:
    """Lines of a change-log entry's field changes; ``title`` names a field path
    (``VariantEditor.path_title``: "Village › Row values › 1: 6 → 8")."""
    lines = []
    for record in records[:limit]:
        if record.get("kind") == "more":
            lines.append(_("… and %(n)d more") % {"n": record.get("count", 0)})
        elif "path" in record:
            old, new = record.get("old"), record.get("new")
            path = _titled(str(record["path"]), title)
            if record["kind"] == "added":
                lines.append(f"{path}: + {new}")
            elif record["kind"] == "removed":
                lines.append(f"{path}: − {old}")
            else:
                lines.append(f"{path}: {old} → {new}")
        else:
            lines.append(_detail(record))
    if len(records) > limit:
        lines.append(_("… and %(n)d more") % {"n": len(records) - limit})
    return lines
