"""Paths into variant data, and the engines' problem messages mapped onto them.

Engines name the field at fault at the start of each problem, as a dotted path with
``[i]`` indices (``sites[2].footprint: ...``, ``village.row_costs[3]: ...``,
``board.play_area['3'].rows: ...``).  Older messages use ``sites.2.footprint``; both
parse to the same key, a tuple of strings (``("sites", "2", "footprint")``), so an
index and a numeric map key compare equal and matching never depends on the style.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A path as the editor builds it: keys (str) and list indices (int).
Path = tuple[str | int, ...]
#: The comparable form of a path: every step as a string.
PathKey = tuple[str, ...]

ROOT_LABEL = "(variant)"

_STEP = re.compile(
    r"""
    \[\s*(?P<index>-?\d+)\s*\]            # [3]
    | \[\s*'(?P<sq>(?:[^'\\]|\\.)*)'\s*\]   # ['3']
    | \[\s*"(?P<dq>(?:[^"\\]|\\.)*)"\s*\]   # ["3"]
    | \.?(?P<name>[A-Za-z_][\w-]*|\d+)    # .name or .2 (or a leading name)
    """,
    re.VERBOSE,
)
_PROBLEM = re.compile(
    r"^\s*(?P<path>\(variant\)|[A-Za-z_\[][^\s:]*(?:\[[^\]]*\][^\s:]*)*)\s*:\s(?P<msg>.*)$",
    re.DOTALL,
)


def parse_path(text: str) -> PathKey | None:
    """``"sites[2].footprint"`` -> ``("sites", "2", "footprint")``; ``None`` if not a path."""
    text = text.strip()
    if text in ("", ROOT_LABEL):
        return ()
    steps: list[str] = []
    pos = 0
    while pos < len(text):
        match = _STEP.match(text, pos)
        if match is None or match.end() == pos:
            return None
        if pos and match.group("name") is not None and text[pos] != ".":
            return None  # "a b" or "x]y": not a path
        for group in ("index", "sq", "dq", "name"):
            value = match.group(group)
            if value is not None:
                steps.append(value)
                break
        pos = match.end()
    return tuple(steps)


def split_problem(problem: str) -> tuple[PathKey, str]:
    """``"village.rows: must be ..."`` -> ``(("village", "rows"), "must be ...")``.

    A problem that does not start with a path belongs to the whole variant (``()``).
    """
    match = _PROBLEM.match(problem)
    if match:
        key = parse_path(match.group("path"))
        if key is not None:
            return key, match.group("msg").strip()
    return (), problem.strip()


def problem_label(problem: str) -> str:
    """The path of a problem as the engine wrote it (``(variant)`` when it names none)."""
    match = _PROBLEM.match(problem)
    if match and parse_path(match.group("path")) is not None:
        return match.group("path")
    return ROOT_LABEL


def key_of(path: Iterable[str | int]) -> PathKey:
    """The comparable key of a path."""
    return tuple(str(step) for step in path)


def format_path(path: Iterable[str | int]) -> str:
    """``("sites", 2, "footprint")`` -> ``sites[2].footprint`` (the engines' style)."""
    text = ""
    for step in path:
        if isinstance(step, int) or step.isdigit():  # an index, or a numeric map key
            text += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z_][\w]*", step):
            text += ("." if text else "") + step
        else:
            text += "[" + repr(step) + "]"
    return text or ROOT_LABEL


def group_problems(problems: Iterable[str]) -> dict[PathKey, list[str]]:
    """Problems grouped by the path they name, messages in order, without repeats."""
    grouped: dict[PathKey, list[str]] = {}
    for problem in problems:
        key, message = split_problem(problem)
        messages = grouped.setdefault(key, [])
        if message not in messages:
            messages.append(message)
    return grouped
