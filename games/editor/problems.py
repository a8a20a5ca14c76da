"""The engines' variant problems in the reader's language.

An engine's ``validate_variant`` returns :class:`~games.engines.problems.Problem`s: English
lines that also carry their field path, a message template and its parameters.  Here the
template goes through the catalogues (``games/data_texts.py`` lists every template) and
the fields (the problem's own and any the message names) are shown by their translated
schema titles ("Village › Col values › 1").  In English, and for a template without a
translation, the engine's own English message is shown, word for word.  Problems that are
plain text (an engine without templates, the services' own refusals) are shown as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext as _

from common.jsonpaths import PathKey, key_of, split_problem
from games.engines.problems import FieldRef, Problem, Several, Term

#: Names a field path (``SchemaForm.path_title``: ``("village", "rows")`` -> "Village › Rows").
Title = Callable[[tuple], str]


def _param(value: Any, title: Title | None) -> Any:
    if isinstance(value, FieldRef):
        if title is None:
            return str(value)
        named = title(value.path)
        return named.rsplit(" › ", 1)[-1] if value.short else named
    if isinstance(value, Term):
        return gettext(str(value))
    if isinstance(value, Several):
        return ", ".join(str(_param(item, title)) for item in value)
    return value


def problem_message(problem: Any, title: Title | None = None) -> str:
    """The message of ``problem`` without its path, in the active language."""
    if not isinstance(problem, Problem):
        return split_problem(str(problem))[1]
    translated = gettext(problem.template)
    if translated == problem.template:  # English, or no translation: the engine's words
        return problem.message
    try:
        return translated % {k: _param(v, title) for k, v in problem.params.items()}
    except (KeyError, TypeError, ValueError):  # a broken translation: the English
        return problem.message


def problem_key(problem: Any) -> PathKey:
    """The field path ``problem`` names (``()``: the whole variant)."""
    if isinstance(problem, Problem):
        return key_of(problem.path)
    return split_problem(str(problem))[0]


def problem_line(problem: Any, title: Title | None = None) -> str:
    """``problem`` as one line: its field by title, then its message ("Village › Rows:
    must be at least 1"); a problem of the whole variant is its message alone.  Without
    ``title`` the field keeps the engine's path (``village.rows``)."""
    if not isinstance(problem, Problem):
        return str(problem)
    message = problem_message(problem, title)
    if not problem.label or (problem.path == () and title is not None):
        return message
    where = title(problem.path) if title is not None else problem.label
    return _("%(field)s: %(message)s") % {"field": where, "message": message}


def problems_by_path(problems: Iterable[Any], title: Title | None = None
                     ) -> dict[PathKey, list[str]]:
    """Messages grouped by the field they name, in order, without repeats."""
    grouped: dict[PathKey, list[str]] = {}
    for problem in problems:
        messages = grouped.setdefault(problem_key(problem), [])
        message = problem_message(problem, title)
        if message not in messages:
            messages.append(message)
    return grouped
