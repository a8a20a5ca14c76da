"""The nav's count of games waiting for the signed-in person."""

from __future__ import annotations

from django.http import HttpRequest

from games.turns.selectors import waiting_count


def turns(request: HttpRequest) -> dict:
    """``turn_count`` (lazily: only pages that show the nav run the query)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    cached: list[int] = []

    def count() -> int:
        if not cached:
            try:
                cached.append(waiting_count(user))
            except Exception:  # the nav must never break a page (e.g. the 500 page)
                cached.append(0)
        return cached[0]

    return {"turn_count": count}
