"""The sockets listen to sessions: a deleted session (log-out, flush) closes its sockets."""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.models import Session
from django.db.models.signals import post_delete
from django.dispatch import receiver

from games.live import broadcast


@receiver(post_delete, sender=Session, dispatch_uid="live.session_ended")
def session_deleted(*, instance: Session, **_kwargs: Any) -> None:
    """Hint the person's sockets: the one on this session closes (4401) at once, instead
    of at its next periodic session check."""
    try:
        user_id = instance.get_decoded().get("_auth_user_id")
    except Exception:  # an unreadable session names nobody
        return
    if user_id is not None:
        broadcast.session_ended(int(user_id))
