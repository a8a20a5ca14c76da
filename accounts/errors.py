"""Errors of the account services."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from common.errors import InvalidFields


class RegistrationError(InvalidFields):
    """An API registration was refused (taken name, weak password)."""

    status_code = 400
    code = "invalid_registration"
    default_message = _("This account cannot be created.")
