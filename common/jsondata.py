"""JSON helpers of the rules editor: canonical form, digest, and a field-by-field diff."""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from common.jsonpaths import Path, format_path

#: Values longer than this (as compact JSON) are shortened in diffs and the change log.
SHORT = 120


def canonical(data: Any) -> str:
    """Compact JSON with sorted keys: equal data, equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def digest(data: Any) -> str:
    """The SHA-256 of the canonical JSON (identifies a state of a draft)."""
    return hashlib.sha256(canonical(data).encode()).hexdigest()


def short(value: Any, limit: int = SHORT) -> str:
    """Compact JSON of ``value``, cut at ``limit`` characters."""
    text = json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` is ``added``, ``removed`` or ``changed``."""

    path: Path
    kind: str
    old: Any = None
    new: Any = None

    @property
    def label(self) -> str:
        return format_path(self.path)

    def as_json(self) -> dict:
        """A short JSON record (for the change log)."""
        record: dict[str, Any] = {"path": self.label, "kind": self.kind}
        if self.kind != "added":
            record["old"] = short(self.old)
        if self.kind != "removed":
            record["new"] = short(self.new)
        return record


def diff(old: Any, new: Any, path: Path = ()) -> list[Change]:
    """Every difference between two JSON documents, field by field.

    Objects are compared key by key; lists are aligned with ``difflib`` so an item
    inserted at the front is one change, not one per following item; equal-length
    replaced runs are compared item by item (so a changed cell shows its own path).
    """
    if isinstance(old, dict) and isinstance(new, dict):
        changes: list[Change] = []
        for key in [*old, *(k for k in new if k not in old)]:
            if key not in new:
                changes.append(Change((*path, key), "removed", old=old[key]))
            elif key not in old:
                changes.append(Change((*path, key), "added", new=new[key]))
            else:
                changes.extend(diff(old[key], new[key], (*path, key)))
        return changes
    if isinstance(old, list) and isinstance(new, list):
        return _diff_lists(old, new, path)
    if type(old) is not type(new) or old != new:
        return [Change(path, "changed", old=old, new=new)]
    return []


def _diff_lists(old: list, new: list, path: Path) -> list[Change]:
    a = [canonical(x) for x in old]
    b = [canonical(x) for x in new]
    changes: list[Change] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                changes.extend(diff(old[i1 + k], new[j1 + k], (*path, i1 + k)))
            continue
        # Indices name the old list for removals and the new list for additions.
        changes.extend(Change((*path, i), "removed", old=old[i]) for i in range(i1, i2))
        changes.extend(Change((*path, j), "added", new=new[j]) for j in range(j1, j2))
    return changes
