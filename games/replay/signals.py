"""What the replay page announces: features that add to it listen.

``replay_shown`` is sent for every step the replay page renders (page and HTMX swap) with
``replay`` (the access-checked ``ReplayStep``) and ``viewer``; a receiver returns a panel
for the page's analysis slot (``{"template": ..., ...}``) or ``None`` (see
``games.replay.page``).  The post-game analysis listens (``games.analysis.receivers``).
"""

from __future__ import annotations

from django.dispatch import Signal

replay_shown = Signal()
