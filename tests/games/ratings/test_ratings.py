"""Ratings: updated once when a rated game ends, AI levels at fixed ratings, pages and API."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.urls import reverse

import ai
from accounts.models import Rating, RatingChange, display_rating
from games.ai_turns.turn import play_one_ai_turn
from games.core.services import submit_action
from games.models import Game, Seat, Variant
from games.ratings.services import _model, new_rating, record_result
from games.results.places import SeatEnd, places
from games.results.selectors import record_of
from games.tables import selectors as tables
from games.tables.services import create_game, join_game, rematch_game

pytestmark = pytest.mark.django_db


def play_out(game: Game, users: dict[int, Any]) -> Game:
    """Play position 0 for whoever is to move until the game ends (the AI for AI seats).

    ``users`` are the people at the table: a rated table draws its seat order, so each
    plays the seat they were given."""
    people = {user.pk: user for user in users.values()}
    users = {s.index: people[s.user_id]
             for s in Seat.objects.filter(game=game, user_id__in=list(people))}
    for step in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        seat = game.to_move[0]
        if seat not in users:
            assert play_one_ai_turn(game.pk, game.version)
            continue
        submit_action(game=game, user=users[seat], seat=seat, action={"play": 0},
                               version=game.version, key=f"k{step}")
    raise AssertionError("the game did not end")


def rated_pair(variant: Variant, make_user: Any, *, rated: bool = True) -> tuple[Game, Any, Any]:
    ann, bob = make_user("ann"), make_user("bob")
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2,
                                rated=rated)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game, ann, bob


def test_a_rated_game_changes_both_ratings_once(variant: Variant, make_user: Any) -> None:
    game, ann, bob = rated_pair(variant, make_user)
    game = play_out(game, {0: ann, 1: bob})
    assert game.rated_at is not None
    winners = game.result["winners"]
    rows = {r.user_id: r for r in Rating.objects.filter(game="fakegame")}
    assert set(rows) == {ann.pk, bob.pk}
    newcomer = display_rating(*new_rating())
    seat_of = {s.user_id: s.index for s in Seat.objects.filter(game=game)}
    for user in (ann, bob):
        seat = seat_of[user.pk]
        row = rows[user.pk]
        assert row.rating != newcomer  # both changed (sigma shrinks even on a tie)
        # The rated game and its win are counted from the record (the pages read it).
        [record] = record_of(user)
        assert (record.rated_games, record.rated_wins) == (1, int(seat in winners))
        assert record.rating == row.rating
    if len(winners) == 1:
        winner, loser = (ann, bob) if seat_of[ann.pk] == winners[0] else (bob, ann)
        assert rows[winner.pk].mu > new_rating()[0] > rows[loser.pk].mu
    assert RatingChange.objects.filter(game=game).count() == 2

    # A second call (a retried task, a concurrent finisher) changes nothing.
    fields = ("user_id", "mu", "sigma", "rating")
    before = sorted(Rating.objects.values_list(*fields))
    with transaction.atomic():
        assert record_result(game=Game.objects.get(pk=game.pk)) == []
    assert RatingChange.objects.filter(game=game).count() == 2
    assert sorted(Rating.objects.values_list(*fields)) == before
    assert [r.rated_games for r in record_of(ann)] == [1]


def test_an_unrated_game_changes_no_rating(variant: Variant, make_user: Any) -> None:
    game, ann, bob = rated_pair(variant, make_user, rated=False)
    game = play_out(game, {0: ann, 1: bob})
    assert game.status == Game.Status.FINISHED and game.rated_at is None
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_record_result_refuses_to_run_outside_a_transaction(variant: Variant,
                                                            make_user: Any) -> None:
    game, _ann, _bob = rated_pair(variant, make_user)
    with pytest.raises(RuntimeError):
        record_result(game=game)


def test_games_against_the_ai_count_with_its_fixed_rating(
    variant: Variant, make_user: Any, ai_calls: list, monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    asked: list[tuple[str, str]] = []

    def level_rating(game: str, level: str) -> tuple[float, float]:
        asked.append((game, level))
        return (40.0, 0.5)  # a very strong AI: losing to it costs little


    monkeypatch.setattr(ai, "level_rating", level_rating, raising=False)
    ann = make_user("ann")
    game = create_game(creator=ann, variant=variant, rated=True,
                                seats=[{"type": "human"}, {"type": "ai", "level": "hard"}])
    game = play_out(game, {0: ann})
    assert asked == [("fakegame", "hard")]
    change = RatingChange.objects.get(game=game)
    assert change.user == ann and Rating.objects.filter(game="fakegame").count() == 1
    # The AI's rating decides how much the result moves ann's: compare with a weak AI.
    # (Places from the result: a drawn game gives both seats place 1.)
    ai_seat = 1 - change.seat
    ai_place = 1 if ai_seat in game.result["winners"] else 2
    weak = _model().rate(
        [[_model().rating()], [_model().rating(mu=5.0, sigma=0.5)]],
        ranks=[change.rank, ai_place],
    )[0][0].mu
    assert change.mu_after != pytest.approx(weak)
    strong = _model().rate(
        [[_model().rating()], [_model().rating(mu=40.0, sigma=0.5)]],
        ranks=[change.rank, ai_place],
    )[0][0].mu
    assert change.mu_after == pytest.approx(strong)


def test_placements_rank_winners_then_scores_with_ties() -> None:
    ranks = places([SeatEnd(i) for i in range(4)], winners=[2], scores=[5, 7, 9, 5])
    assert ranks == {2: 1, 1: 2, 0: 3, 3: 3}


def test_a_rematch_is_rated_like_the_game(variant: Variant, make_user: Any) -> None:
    game, ann, bob = rated_pair(variant, make_user)
    game = play_out(game, {0: ann, 1: bob})
    assert rematch_game(game=game, user=ann).rated is True


# --- pages and API --------------------------------------------------------------------------


def test_profile_shows_played_wins_rating_and_graph(client: Any, variant: Variant,
                                                    make_user: Any) -> None:
    game, ann, bob = rated_pair(variant, make_user)
    play_out(game, {0: ann, 1: bob})
    page = client.get(reverse("accounts:profile", args=["ann"]))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-stats-game="fakegame"' in html
    rating = Rating.objects.get(user=ann, game="fakegame").rating
    assert f"<td data-rating>{rating} " in html
    assert "<svg" in html and 'class="rating-graph"' in html and "<polyline" in html


def test_leaderboard_page_and_api(client: Any, variant: Variant, make_user: Any) -> None:
    game, ann, bob = rated_pair(variant, make_user)
    play_out(game, {0: ann, 1: bob})
    page = client.get(reverse("leaderboard") + "?game=fakegame")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-player="ann"' in html and 'data-player="bob"' in html
    assert client.get(reverse("leaderboard") + "?game=nope").status_code == 404

    data = client.get("/api/leaderboard/?game=fakegame").json()
    assert data["game"] == "fakegame"
    assert [row["rank"] for row in data["players"]] == [1, 2]
    ratings_shown = [row["rating"] for row in data["players"]]
    assert ratings_shown == sorted(ratings_shown, reverse=True)
    bad = client.get("/api/leaderboard/?game=nope")
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid" and "game" in bad.json()["errors"]
    assert client.get("/api/leaderboard/").status_code == 400


def test_player_api_has_ratings(client: Any, variant: Variant, make_user: Any) -> None:
    game, ann, bob = rated_pair(variant, make_user)
    play_out(game, {0: ann, 1: bob})
    data = client.get("/api/players/ann/").json()
    assert data["username"] == "ann"
    [row] = data["ratings"]
    assert row["game"] == "fakegame" and row["games"] == 1
    assert row["rating"] == Rating.objects.get(user__username="ann").rating
    assert data["stats"] == [{"game": "fakegame", "played": 1, "wins": row["wins"]}]
    missing = client.get("/api/players/nobody/")
    assert missing.status_code == 404 and missing.json()["code"]


def test_api_creates_rated_tables(client: Any, variant: Variant, make_user: Any) -> None:
    ann = make_user("ann")
    client.force_login(ann)
    body = {"variant": variant.pk, "seats": [{"type": "human"}, {"type": "human"}],
            "rated": True}
    response = client.post("/api/games/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    assert response.json()["rated"] is True
    assert Game.objects.get(pk=response.json()["id"]).rated


def test_lobby_form_creates_a_rated_table(client: Any, variant: Variant, make_user: Any,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "get_board", lambda name: object())
    client.force_login(make_user("ann"))
    response = client.post(reverse("lobby_create"), {
        "variant": str(variant.pk), "num_players": "2", "seat_2": "open", "rated": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Game.objects.get().rated is True


def test_schema_documents_ratings(client: Any) -> None:
    schema = client.get("/api/schema/?format=json").json()
    assert "/api/leaderboard/" in schema["paths"]
    assert "/api/players/{username}/" in schema["paths"]
    props = schema["components"]["schemas"]["PlayerOutput"]["properties"]
    assert "ratings" in props
    assert "rated" in schema["components"]["schemas"]["GameCreateInput"]["properties"]
