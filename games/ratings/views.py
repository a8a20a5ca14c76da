"""A player's profile (ratings, history, games) and the leaderboard."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from accounts.models import display_rating
from games.core.selectors import game_title
from games.engines import engine_names
from games.ratings.charts import rating_graph
from games.ratings.selectors import leaderboard as best
from games.ratings.selectors import player_stats
from games.ratings.services import new_rating
from games.tables.selectors import games_of, summarize_game


def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's page: per game played, wins, rating and its graph; their games."""

    player = get_object_or_404(get_user_model(), username=username, is_active=True)
    # The rows are the player's games as the *visitor* sees them: "your turn" only on
    # one's own profile, the result ("won", "lost") always the player's.
    rows = [
        summarize_game(listing.game, request.user, subject=player)
        for listing in games_of(player)
    ]
    stats = [
        {
            "game": row.game,
            "title": game_title(row.game),
            "played": row.played,
            "wins": row.wins,
            "rating": row.rating,
            "rated_games": row.rated_games,
            "graph": rating_graph(
                row.history,
                title=_("%(game)s rating of %(name)s") % {
                    "game": game_title(row.game), "name": player.get_username()},
            ),
        }
        for row in player_stats(player)
    ]
    context = {
        "player": player,
        "stats": stats,
        "newcomer_rating": display_rating(*new_rating()),
        "running": [r for r in rows if r["status"] in ("open", "running")],
        "finished": [r for r in rows if r["status"] in ("finished", "aborted")],
    }
    return TemplateResponse(request, "accounts/profile.html", context)



def leaderboard(request: HttpRequest) -> HttpResponse:
    """The best-rated players of one game (``?game=NAME``; the first game by default)."""


    names = list(engine_names())
    game = request.GET.get("game") or (names[0] if names else "")
    if game not in names:
        raise Http404(_("No such game."))
    rows = [
        {"rank": r.rank, "username": r.username, "rating": r.rating, "games": r.games,
         "wins": r.wins}
        for r in best(game=game)
    ]
    context = {
        "game": game,
        "title": game_title(game),
        "games": [{"name": n, "title": game_title(n), "current": n == game} for n in names],
        "rows": rows,
    }
    return TemplateResponse(request, "accounts/leaderboard.html", context)
