"""Property: over random finished games with resignations, departures and timeouts, every
read of a result -- leaderboard (page and API), profile (page and API), game lists, the
game's API document -- comes from the one record (``SeatResult``) and agrees with it, and
the record itself keeps the rule (leavers after everyone who stayed, the later leaver
first, a leaver never wins)."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Rating
from games.ai_turns.turn import play_one_ai_turn
from games.core.services import submit_action
from games.models import Game, Seat, SeatResult, Variant
from games.tables.selectors import result_text, summarize_game
from games.tables.services import (
    apply_timeouts,
    create_game,
    hand_over_seat,
    join_game,
    resign_game,
)

pytestmark = pytest.mark.django_db

PEOPLE = ("ann", "bob", "cy", "di")
LIVE = {"kind": "live", "reserve": 600, "increment": 0}


class Rollback(Exception):
    """Leaves an example's transaction, so the next example starts from an empty database."""


def play_random_game(data: st.DataObject, variant: Variant, users: dict[str, Any]) -> Game:
    """One random table of some of ``users`` and AI seats, played to its end with random
    moves, resignations, hand-overs and timeouts."""
    names = data.draw(st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=4, unique=True),
                      label="people")
    seats = [{"type": "human"}] * len(names)
    seats += [{"type": "ai", "level": "easy"}] * data.draw(
        st.integers(max(0, 2 - len(names)), 4 - len(names)), label="ai seats")
    order = data.draw(st.permutations(range(1, len(seats))), label="seat order")
    seats = [seats[0], *(seats[i] for i in order)]
    rules = {"rated": data.draw(st.booleans(), label="rated"),
             "departure_rule": data.draw(st.sampled_from(["ai", "lose"]), label="rule"),
             "time_control": LIVE}
    # The game's seed (its deal and seat order) is Hypothesis's too, so an example is the
    # same game when replayed: with a fresh random seed, the number of events drawn
    # changed between runs of one example (FlakyStrategyDefinition in make test-long).
    seed = data.draw(st.integers(0, 2**62), label="seed")
    field = Game._meta.get_field("seed")
    with mock.patch.object(field, "_get_default", lambda: seed):
        game = create_game(creator=users[names[0]], variant=variant, seats=seats, **rules)
    assert game.seed == seed
    for name in names[1:]:
        join_game(game=game, user=users[name])
    for step in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        people = {s.index: s.user for s in Seat.objects.filter(game=game, user__isnull=False)}
        mover = game.to_move[0]
        event = data.draw(st.sampled_from(["move", "move", "move", "resign", "handover",
                                           "timeout"]), label="event")
        if event in ("resign", "handover") and people:
            # Each draw's bounds are fixed (an index taken modulo the choices): the game's
            # seed and the AI's moves are not Hypothesis's, so two examples that start alike
            # may have different hands or seats here, and bounds that followed them made
            # Hypothesis stop with FlakyStrategyDefinition (seen in CI).
            pick = data.draw(st.integers(0, len(PEOPLE) - 1), label="leaver")
            leaver = people[sorted(people)[pick % len(people)]]
            (resign_game if event == "resign" else hand_over_seat)(game=game, user=leaver)
        elif event == "timeout" and mover in people:
            Seat.objects.filter(game=game, index=mover).update(
                deadline=timezone.now() - timedelta(seconds=1))
            assert apply_timeouts(game=game) == 1
        elif mover in people:
            hand = len(game.state_json["hands"][mover])
            card = data.draw(st.integers(0, 9), label="card") % hand
            submit_action(game=game, user=people[mover], seat=mover, action={"play": card},
                          version=game.version, key=f"k{step}")
        else:
            assert play_one_ai_turn(game.pk, game.version)
    raise AssertionError("the game did not end")


def check_the_record(game: Game) -> dict[int, SeatResult]:
    """The rows of ``game`` keep the rule; returns them by seat."""
    rows = {r.seat: r for r in SeatResult.objects.filter(game=game)}
    seats = {s.index: s for s in Seat.objects.filter(game=game)}
    assert sorted(rows) == sorted(seats) == list(range(game.num_players))
    for index, row in rows.items():
        seat = seats[index]
        assert row.user_id == (seat.left_user_id or seat.user_id)
        assert (row.ended == "finished") == (seat.left_user_id is None)
        assert row.won == (row.place == 1 and row.ended == "finished")
        assert (row.rating_after is not None) == (game.rated and row.user_id is not None
                                                  and game.rated_at is not None)
    stayed = [r for r in rows.values() if r.ended == "finished"]
    left = [r for r in rows.values() if r.ended != "finished"]
    assert all(s.place < r.place for s in stayed for r in left)
    assert all(a.place < b.place for a in left for b in left if a.left_at > b.left_at)
    assert all(a.place == b.place for a in left for b in left if a.left_at == b.left_at)
    return rows


def cells(html: str, username: str) -> list[str]:
    row = re.search(rf'<tr data-player="{username}">(.*?)</tr>', html, re.S)
    assert row, username
    return re.findall(r"<td>(?:<a [^>]*>)?([^<]*)", row.group(1))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_read_of_a_result_comes_from_the_record_and_agrees(
    data: st.DataObject, variant: Variant, ai_calls: list, client: Any
) -> None:
    try:
        with transaction.atomic():
            users = {name: get_user_model().objects.create_user(name, password="pw-x-9!")
                     for name in PEOPLE}
            games = [play_random_game(data, variant, users)
                     for _ in range(data.draw(st.integers(1, 3), label="games"))]
            check_everything(games, users, client)
            raise Rollback
    except Rollback:
        pass


def check_everything(games: list[Game], users: dict[str, Any], client: Any) -> None:
    mine: dict[str, list[SeatResult]] = defaultdict(list)
    for game in games:
        game.refresh_from_db()
        rows = check_the_record(game)
        # The game's API document carries the record as it is.
        document = client.get(f"/api/games/{game.pk}/").json()
        assert [(r["seat"], r["place"], r["points"], r["ended"], r["won"], r["username"],
                 r["rating_before"], r["rating_after"]) for r in document["seat_results"]] == [
            (r.seat, r.place, r.points, r.ended, r.won,
             r.user.username if r.user_id else None, r.rating_before, r.rating_after)
            for r in rows.values()]
        winners = [r for r in rows.values() if r.won]
        for row in rows.values():
            if row.user_id is None:
                continue
            mine[row.user.username].append(row)
            # The game lists say what the row says, for the person and for others.
            listing = summarize_game(game, None, subject=row.user)
            assert listing["result_label"] == result_text(row, shared=len(winners) > 1)
            assert [p["winner"] for p in listing["players"]] == [
                rows[i].won for i in sorted(rows)]

    board = {p["username"]: p for p in client.get(
        "/api/leaderboard/?game=fakegame").json()["players"]}
    board_page = client.get(reverse("leaderboard") + "?game=fakegame").content.decode()
    for name in PEOPLE:
        rows = sorted(mine[name], key=lambda r: (r.finished_at, r.pk))
        rated = [r for r in rows if r.rating_after is not None]
        played, wins = len(rows), sum(r.won for r in rows)
        rated_wins = sum(r.won for r in rated)
        player = client.get(f"/api/players/{name}/").json()
        assert player["stats"] == ([{"game": "fakegame", "played": played, "wins": wins}]
                                   if rows else [])
        assert sorted((r["id"], r["place"], r["ended"], r["won"]) for r in player["results"]
                      ) == sorted((r.game_id, r.place, r.ended, r.won) for r in rows)
        profile = client.get(reverse("accounts:profile", args=[name])).content.decode()
        if rows:
            assert f"<td data-played>{played}</td>" in profile
            assert f"<td data-wins>{wins}</td>" in profile
            for row in rows:  # each finished game listed with the row's label
                label = result_text(row, shared=sum(
                    r.won for r in SeatResult.objects.filter(game=row.game_id)) > 1)
                assert f"<td>{label}" in profile
        if not rated:
            assert name not in board and f'data-player="{name}"' not in board_page
            assert player["ratings"] == []
            continue
        rating = rated[-1].rating_after
        assert (board[name]["games"], board[name]["wins"], board[name]["rating"]) == (
            len(rated), rated_wins, rating)
        assert cells(board_page, name)[1:] == [name, str(rating), str(len(rated)),
                                              str(rated_wins)]
        assert [(r["games"], r["wins"], r["rating"]) for r in player["ratings"]] == [
            (len(rated), rated_wins, rating)]
        assert f"<td data-rating>{rating} " in profile
        # The ratings agree with the record they were computed from.
        model = Rating.objects.get(user=users[name], game="fakegame")
        assert model.rating == rating
        chain = [r.rating_before for r in rated[1:]]
        assert chain == [r.rating_after for r in rated[:-1]]
    ranks = [p["rank"] for p in board.values()]
    assert ranks == list(range(1, len(board) + 1))
