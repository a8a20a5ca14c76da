"""Errors of the rules editor's services: a message, an HTTP status and a stable code.

They are ``GameServiceError``s, so pages and API answer them like every other refusal:
``{"detail": message, "code": code}`` (plus ``errors`` by field path for bad data).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.core.errors import GameServiceError


class DraftExists(GameServiceError):
    status_code = 409
    code = "draft_exists"
    default_message = _(
        "This variant already has a draft: publish or discard it before starting another."
    )


class SimulationRequired(GameServiceError):
    status_code = 409
    code = "simulation_required"
    default_message = _(
        "Publishing needs a passing simulation of the draft as it is now: simulate it first."
    )


class SimulationRunning(GameServiceError):
    status_code = 409
    code = "simulation_running"
    default_message = _("A simulation of this variant is already running.")


class SimulationInvalid(GameServiceError):
    status_code = 400
    code = "invalid_simulation"
    default_message = _("These simulation settings are not valid.")


