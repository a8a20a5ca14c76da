"""Rows of game lists (lobby, profile, invite page): players, status, whose turn, result.

Generic: a game is named by its engine's title, never by a name known here.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from games import clocks
from games.models import Game, Seat
from games.selectors import game_title


def seats_of(game: Game) -> list[Seat]:
    """The seats in order (uses the prefetch of the selectors)."""
    return sorted(game.seats.all(), key=lambda s: s.index)


def seat_names(game: Game) -> dict[int, str]:
    """Seat index -> display name."""
    return {seat.index: seat.display_name for seat in seats_of(game)}


def game_label(game: Game) -> str:
    """The game's display name (the engine's title)."""
    return game_title(game.game_name)


def summarize_game(game: Game, viewer: Any = None, *, subject: Any = None) -> dict:
    """A row of a game list as ``viewer`` sees it.

    ``subject`` is the person whose list it is (a profile's owner; the viewer by
    default): the result ("won", "lost") is theirs, and "your turn" is said only when the
    subject is the viewer, so another player's profile never says "your turn".
    """
    subject = viewer if subject is None else subject
    seats = seats_of(game)
    result = game.result or {}
    scores = result.get("scores") or []
    winners = result.get("winners") or []
    viewer_id = getattr(viewer, "pk", None) if getattr(viewer, "is_authenticated", False) else None
    subject_id = getattr(subject, "pk", None)
    players = []
    for seat in seats:
        players.append(
            {
                "index": seat.index,
                "name": seat.display_name,
                "is_me": viewer_id is not None and seat.user_id == viewer_id,
                "is_subject": subject_id is not None
                and subject_id in (seat.user_id, seat.left_user_id),
                "left": subject_id is not None and seat.left_user_id == subject_id,
                "score": scores[seat.index] if seat.index < len(scores) else None,
                "winner": seat.index in winners,
                "is_ai": seat.is_ai,
                "is_open": seat.is_open,
                "reserved_for": (
                    seat.reserved_for.get_username()
                    if seat.is_open and seat.reserved_for_id else ""
                ),
            }
        )
    my_seat = next((p["index"] for p in players if p["is_me"]), None)
    subject_seat = next((p["index"] for p in players if p["is_subject"]), None)
    subject_left = next((p["left"] for p in players if p["is_subject"]), False)
    own_list = subject_id is not None and subject_id == viewer_id
    turn_label = ""
    my_turn = False
    if game.status == Game.Status.RUNNING and game.to_move:
        if own_list and subject_seat in game.to_move and not subject_left:
            my_turn = True
            turn_label = _("your turn")
        else:
            names = ", ".join(players[i]["name"] for i in game.to_move if i < len(players))
            turn_label = _("%(names)s to move") % {"names": names}
    result_label = ""
    if game.status == Game.Status.FINISHED:
        if subject_left:
            result_label = _("lost (left the game)")
        elif subject_seat is not None and subject_seat in winners:
            result_label = _("won") if len(winners) == 1 else _("shared win")
        elif subject_seat is not None:
            result_label = _("lost")
        else:
            result_label = ", ".join(players[i]["name"] for i in winners if i < len(players))
    return {
        "id": game.pk,
        "url": reverse("play", args=[game.pk]),
        # Finished games have a replay anyone may watch (games.replays).
        "replay_url": (reverse("replay", args=[game.pk])
                       if game.status == Game.Status.FINISHED else ""),
        "game": game.game_name,
        "game_label": game_label(game),
        "variant": game.variant_name,
        "status": game.status,
        "status_label": game.get_status_display(),
        "players": players,
        "free": sum(1 for p in players if p["is_open"]),
        "num_players": game.num_players,
        "creator": game.created_by.get_username() if game.created_by_id else "",
        "my_seat": my_seat,
        "my_turn": my_turn,
        "turn_label": turn_label,
        "result_label": result_label,
        # The invite link is for the people at the table to pass on: never shown to others.
        "invite_url": reverse("invite", args=[game.invite_token]) if my_seat is not None else "",
        "rated": game.rated,
        "clock": clocks.describe(game),
    }
