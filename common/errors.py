"""The base of every refusal a service raises: a user-facing message and an HTTP status.

Views and API views catch ``ServiceError`` (or a feature's subclass) and show
``str(error)`` (already translated) with ``error.status_code``; ``error.code`` is a stable
machine name; ``error.errors`` (optional) lists invalid input by field.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _


class ServiceError(Exception):
    """Base class: a request a service refuses, with a message for the person."""

    status_code: int = 400
    code: str = "error"
    default_message = _("This request cannot be processed.")

    def __init__(self, message: str | None = None, *, version: int | None = None) -> None:
        self.message = str(message if message is not None else self.default_message)
        #: The game's current version, when known (lets a client refetch).
        self.version = version
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class InvalidFields(ServiceError):
    """Invalid input, with the messages by field name (``errors``)."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(m for msgs in errors.values() for m in msgs) or None)
