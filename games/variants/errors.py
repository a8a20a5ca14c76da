"""Errors of the variant services (and the rules editor on top of them)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from common.jsonpaths import PathKey, group_problems, problem_label, split_problem
from games.core.errors import GameServiceError


class VariantDataInvalid(GameServiceError):
    """Variant data the schema or the engine refuses; ``errors`` maps field paths to
    messages and the message names every field (in English: the engines' problems, which
    the rules editor shows translated, ``games.editor.problems``); ``game`` when known."""

    status_code = 422
    code = "invalid_variant"
    default_message = _("The variant data has problems.")

    def __init__(self, problems: list[str], *, game: str | None = None) -> None:
        self.problems = list(problems)
        self.game = game
        self.by_path: dict[PathKey, list[str]] = group_problems(self.problems)
        #: Messages by the field path as the engine wrote it (``steps[1]``).
        self.errors: dict[str, list[str]] = {}
        for problem in self.problems:
            messages = self.errors.setdefault(problem_label(problem), [])
            message = split_problem(problem)[1]
            if message not in messages:
                messages.append(message)
        super().__init__("; ".join(self.problems) or None)



class VariantNameInvalid(GameServiceError):
    status_code = 400
    code = "invalid_name"
    default_message = _(
        "A variant name is 1 to 64 lower-case letters, digits, hyphens or underscores."
    )



class VariantNameTaken(GameServiceError):
    status_code = 409
    code = "name_taken"
    default_message = _("This game already has a variant of that name.")



class UnknownGame(GameServiceError):
    status_code = 400
    code = "unknown_game"
    default_message = _("There is no such game.")



class ImportInvalid(GameServiceError):
    status_code = 400
    code = "invalid_import"
    default_message = _("This file is not a variant export or variant data.")


class NoDraft(GameServiceError):
    status_code = 409
    code = "no_draft"
    default_message = _("This variant has no draft.")



class NotPublished(GameServiceError):
    status_code = 409
    code = "not_published"
    default_message = _("Only a published version can be retired or restored.")
