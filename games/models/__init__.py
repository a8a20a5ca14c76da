"""Database models of the games app, one module per feature (the app label stays ``games``).

``from games.models import Game`` keeps working: every model is re-exported here, and
importing this package registers them all with Django.
"""

from games.models.analysis import Analysis
from games.models.chat import ChatMessage, ChatMute
from games.models.core import (
    AI_LEVEL_CHOICES,
    AI_LEVELS,
    Game,
    Move,
    Rewind,
    Seat,
    new_invite_token,
    new_seed,
)
from games.models.editor import Simulation
from games.models.jobs import Job, JobStatus
from games.models.variants import (
    GAME_CHOICES,
    AppendOnly,
    ImmutableVersion,
    Variant,
    VariantChange,
    VariantVersion,
)

__all__ = [
    "AI_LEVELS",
    "AI_LEVEL_CHOICES",
    "GAME_CHOICES",
    "Analysis",
    "AppendOnly",
    "ChatMessage",
    "ChatMute",
    "Game",
    "ImmutableVersion",
    "Job",
    "JobStatus",
    "Move",
    "Rewind",
    "Seat",
    "Simulation",
    "Variant",
    "VariantChange",
    "VariantVersion",
    "new_invite_token",
    "new_seed",
]
