"""The unsubscribe link of turn mails: a signed token that names one person."""

from __future__ import annotations

from typing import Any

from django.core import signing

#: The salt of unsubscribe tokens (a token unsubscribes one person from turn mails).
UNSUBSCRIBE_SALT = "colonia.unsubscribe.turns"



def unsubscribe_token(user: Any) -> str:
    """A signed token that turns ``user``'s turn mails off (no log-in needed)."""
    return signing.dumps({"u": user.pk}, salt=UNSUBSCRIBE_SALT, compress=False)



def user_of_token(token: str) -> int | None:
    """The user id a token was made for; ``None`` for a forged or damaged token."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    user_id = data.get("u") if isinstance(data, dict) else None
    return user_id if isinstance(user_id, int) else None
