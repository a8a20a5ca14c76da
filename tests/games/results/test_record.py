"""The result record (``SeatResult``): written when a game finishes, read by every page."""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.migrations.loader import MigrationLoader
from django.urls import reverse
from django.utils import timezone

from accounts.models import Rating, RatingChange
from games.ai_turns.turn import play_one_ai_turn
from games.core.services import submit_action
from games.models import Game, Seat, SeatResult, Variant
from games.ratings.services import record_result
from games.results.backfill import backfill_results
from games.results.services import record_game_results, result_rows
from games.tables.selectors import summarize_game
from games.tables.services import (
    apply_timeouts,
    create_game,
    hand_over_seat,
    join_game,
    resign_game,
)

pytestmark = pytest.mark.django_db

LIVE = {"kind": "live", "reserve": 600, "increment": 0}


def table(variant: Variant, users: list, *, ai: int = 0, **rules: Any) -> Game:
    """A running game of ``users`` (in seat order) and ``ai`` AI seats after them."""
    seats = [{"type": "human"}] * len(users) + [{"type": "ai", "level": "easy"}] * ai
    game = create_game(creator=users[0], variant=variant, seats=seats, **rules)
    for user in users[1:]:
        join_game(game=game, user=user)
    game.refresh_from_db()
    return game


def play_out(game: Game) -> Game:
    """Card 0 for whoever is to move until the end (the stubbed AI for AI seats)."""
    for step in range(100):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            return game
        seat = game.to_move[0]
        holder = Seat.objects.get(game=game, index=seat)
        if holder.is_ai:
            assert play_one_ai_turn(game.pk, game.version)
        else:
            submit_action(game=game, user=holder.user, seat=seat, action={"play": 0},
                          version=game.version, key=f"k{step}")
    raise AssertionError("the game did not end")


def time_out(game: Game, user: Any) -> None:
    """``user``'s seat (to move) runs out of time and the sweep applies it."""
    index = Seat.objects.get(game=game, user=user).index
    game.refresh_from_db()
    assert game.to_move == [index]
    Seat.objects.filter(game=game, index=index).update(
        deadline=timezone.now() - timedelta(seconds=1))
    assert apply_timeouts(game=game) == 1


def advance_to(game: Game, user: Any) -> None:
    """Play on until ``user``'s seat is to move."""
    seat = Seat.objects.get(game=game, user=user).index
    for step in range(100):
        game.refresh_from_db()
        if game.to_move == [seat]:
            return
        mover = Seat.objects.get(game=game, index=game.to_move[0])
        if mover.is_ai:
            assert play_one_ai_turn(game.pk, game.version)
        else:
            submit_action(game=game, user=mover.user, seat=mover.index, action={"play": 0},
                          version=game.version, key=f"a{step}")
    raise AssertionError("the seat never came to move")


def rows(game: Game) -> dict[int, SeatResult]:
    return {r.seat: r for r in SeatResult.objects.filter(game=game)}


def of_people(game: Game) -> dict[Any, SeatResult]:
    """The rows of the people (a rated table may draw who sits where)."""
    return {r.user: r for r in SeatResult.objects.filter(game=game, user__isnull=False)
            .select_related("user")}


def test_a_game_played_to_its_end_gets_one_row_per_seat(variant: Variant, ann: Any,
                                                        bob: Any, ai_calls: list) -> None:
    game = play_out(table(variant, [ann, bob], ai=1))
    record = rows(game)
    assert sorted(record) == [0, 1, 2]
    scores, winners = game.result["scores"], game.result["winners"]
    for seat, row in record.items():
        assert row.points == scores[seat] and row.ended == "finished"
        assert row.won == (seat in winners) and (row.place == 1) == (seat in winners)
        assert row.rating_before is None and row.rating_after is None  # unrated
        assert row.game_name == "fakegame" and row.finished_at == game.finished_at
    assert (record[0].user, record[1].user, record[2].user) == (ann, bob, None)
    assert record[2].ai_level == "easy" and record[0].ai_level == ""


def test_the_rows_commit_with_the_last_move_and_are_written_once(variant: Variant, ann: Any,
                                                                 bob: Any) -> None:
    game = table(variant, [ann, bob])
    with transaction.atomic():
        game = play_out(game)
        assert SeatResult.objects.filter(game=game).count() == 2  # no commit hook needed
        first = rows(game)
        again = record_game_results(game=game)
    assert {r.pk for r in again} == {r.pk for r in first.values()}
    assert SeatResult.objects.filter(game=game).count() == 2
    assert record_game_results(game=table(variant, [bob, ann])) == []  # not finished


def test_the_issue_scenario_b_resigns_a_times_out_the_ai_plays_on(
    variant: Variant, make_user: Any, ai_calls: list, client: Any
) -> None:
    """A rated game with a clock: B resigned, then A ran out of time while the AI played
    their seats on; C stayed.  C is first and the only winner, A second (left later), B
    last -- whatever the AI then scored in A's seat -- and every page says so."""
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    game = table(variant, [a, b, c], rated=True, time_control=LIVE, takeover_level="easy")
    seat_of = {s.user: s.index for s in Seat.objects.filter(game=game)}
    resign_game(game=game, user=b)
    advance_to(game, a)
    time_out(game, a)
    game = play_out(game)
    record = of_people(game)
    assert [(record[u].place, record[u].ended, record[u].won) for u in (a, b, c)] == [
        (2, "timed_out", False), (3, "resigned", False), (1, "finished", True)]
    assert record[a].left_at > record[b].left_at
    for row in record.values():  # rated: before and after stored on each person's row
        assert row.rating_after == Rating.objects.get(user=row.user).rating
        assert row.rating_before == 1500
    assert record[c].rating_after > record[a].rating_after > record[b].rating_after

    board = client.get("/api/leaderboard/?game=fakegame").json()["players"]
    assert [(p["username"], p["games"], p["wins"]) for p in board] == [
        ("c", 1, 1), ("a", 1, 0), ("b", 1, 0)]
    player = client.get("/api/players/a/").json()
    assert player["stats"] == [{"game": "fakegame", "played": 1, "wins": 0}]
    assert player["results"][0] | {"finished_at": None} == {
        "id": game.pk, "game": "fakegame", "seat": seat_of[a], "place": 2,
        "points": game.result["scores"][seat_of[a]], "ended": "timed_out", "won": False,
        "rating_before": 1500, "rating_after": record[a].rating_after, "finished_at": None}
    html = client.get(reverse("accounts:profile", args=["a"])).content.decode()
    assert "<td data-wins>0</td>" in html and "lost (ran out of time)" in html
    document = client.get(f"/api/games/{game.pk}/").json()
    assert sorted((r["username"], r["place"], r["ended"], r["won"], r["seat"])
                  for r in document["seat_results"]) == [
        ("a", 2, "timed_out", False, seat_of[a]), ("b", 3, "resigned", False, seat_of[b]),
        ("c", 1, "finished", True, seat_of[c])]
    assert summarize_game(game, None)["result_label"] == "c"
    assert summarize_game(game, b)["result_label"] == "lost (resigned)"


def test_everyone_left_nobody_won_and_the_later_leaver_is_first(
    placegame: Any, ann: Any, bob: Any, ai_calls: list, client: Any
) -> None:
    """Two seats, both left (the table's rule lets the AI play on): the later leaver is
    first, nobody won, and the play page says so instead of crowning the AI's seat."""
    game = table(Variant.objects.get(game="placegame"), [ann, bob], rated=True)
    hand_over_seat(game=game, user=bob)
    hand_over_seat(game=game, user=ann)
    for _step in range(20):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        assert play_one_ai_turn(game.pk, game.version)
    record = of_people(game)
    assert [(record[u].place, record[u].ended, record[u].won) for u in (ann, bob)] == [
        (1, "left", False), (2, "left", False)]
    assert game.status == Game.Status.FINISHED
    assert summarize_game(game, None)["result_label"] == "no winner"
    assert summarize_game(game, ann)["result_label"] == "lost (left the game)"
    page = client.get(reverse("play", args=[game.pk])).content.decode()
    assert "No winner: every player left the game." in page
    board = client.get("/api/leaderboard/?game=placegame").json()["players"]
    assert [(p["username"], p["wins"]) for p in board] == [("ann", 0), ("bob", 0)]


def test_the_lose_rule_ends_the_game_and_the_remaining_person_is_first(
    variant: Variant, make_user: Any
) -> None:
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    game = table(variant, [a, b, c], departure_rule="lose", rated=True)
    resign_game(game=game, user=b)
    resign_game(game=game, user=c)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    record = of_people(game)
    assert [(record[u].place, record[u].ended, record[u].won) for u in (a, b, c)] == [
        (1, "finished", True), (3, "resigned", False), (2, "resigned", False)]
    assert all(r.rating_after is not None for r in record.values())


def test_the_ratings_write_the_rows_if_nobody_did_yet(variant: Variant, ann: Any,
                                                      bob: Any) -> None:
    game = play_out(table(variant, [ann, bob], rated=True))
    SeatResult.objects.filter(game=game).delete()  # as if the ratings listened first
    RatingChange.objects.filter(game=game).delete()
    Game.objects.filter(pk=game.pk).update(rated_at=None)
    game.refresh_from_db()
    with transaction.atomic():
        changes = record_result(game=game)
    assert len(changes) == 2
    assert {r.seat: r.rating_after for r in SeatResult.objects.filter(game=game)} == {
        c.seat: c.rating_after for c in changes}


def test_the_backfill_writes_the_rows_a_finishing_game_would_have(
    variant: Variant, make_user: Any, ai_calls: list
) -> None:
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    played = table(variant, [a, b, c], rated=True, time_control=LIVE)
    resign_game(game=played, user=b)
    played = play_out(played)
    other = play_out(table(variant, [c, a]))
    fields = ("seat", "user_id", "ai_level", "place", "points", "ended", "left_at", "won",
              "rating_before", "rating_after", "finished_at", "game_name")
    # Sorted by their text: an AI seat's user_id is None, and rows that tie up to it
    # cannot be compared (failed once when two games' seat 0 were a person and the AI).
    before = sorted(SeatResult.objects.values_list(*fields), key=repr)
    ratings = sorted(Rating.objects.values_list("user_id", "mu", "sigma", "rating"))
    SeatResult.objects.all().delete()
    report = backfill_results()
    assert sorted(report.games) == sorted([played.pk, other.pk])
    assert report.people == {a.pk, b.pk, c.pk}
    assert sorted(SeatResult.objects.values_list(*fields), key=repr) == before
    # The ratings are history: the backfill copies them, it does not recompute them.
    assert sorted(Rating.objects.values_list("user_id", "mu", "sigma", "rating")) == ratings
    assert backfill_results().games == []  # idempotent
    assert sorted(SeatResult.objects.values_list(*fields), key=repr) == before


def test_the_backfill_ranks_an_old_leaver_without_a_time_below_everyone(
    variant: Variant, ann: Any, bob: Any
) -> None:
    game = play_out(table(variant, [ann, bob]))
    SeatResult.objects.all().delete()
    # An old game whose seat 1 was left to the AI before departures had a time or reason.
    Seat.objects.filter(game=game, index=1).update(user=None, ai_level="easy",
                                                   left_user=bob)
    Game.objects.filter(pk=game.pk).update(result={"scores": [0, 9], "winners": [1]})
    backfill_results()
    record = rows(game)
    assert (record[1].user, record[1].place, record[1].ended, record[1].won) == (
        bob, 2, "replaced_by_ai", False)
    assert (record[0].user, record[0].place, record[0].won) == (ann, 1, True)
    assert record[1].left_at is None  # not known: nothing is made up


def test_the_schema_documents_the_record(client: Any) -> None:
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert "seat_results" in schema["GameDocumentOutput"]["properties"]
    assert "results" in schema["PlayerOutput"]["properties"]
    assert set(schema["SeatResultOutput"]["properties"]) >= {
        "place", "points", "ended", "won", "rating_before", "rating_after"}


def test_the_data_migration_backfills_with_the_historical_models(
    variant: Variant, ann: Any, bob: Any
) -> None:
    game = play_out(table(variant, [ann, bob], rated=True))
    fields = ("seat", "user_id", "place", "points", "ended", "won", "rating_after")
    before = sorted(SeatResult.objects.values_list(*fields), key=repr)
    SeatResult.objects.all().delete()
    migration = import_module("games.migrations.0014_backfill_seat_results")
    state = MigrationLoader(connection).project_state(("games", "0014_backfill_seat_results"))
    migration.backfill(state.apps, None)
    assert sorted(SeatResult.objects.filter(game=game).values_list(*fields), key=repr) == before


def test_a_two_seat_resignation_that_ends_the_game_at_once(ann: Any, bob: Any) -> None:
    """As the resign branch ends a two-seat game: the seat keeps no AI, the person who
    resigned is its ``left_user``, the other seat is the table's winner."""
    now = timezone.now()
    game = Game(game_name="fakegame", status=Game.Status.FINISHED, started_at=now,
                result={"scores": [3, 8], "winners": [0], "ended_by": "resigned",
                        "resigned": 1})
    seats = [Seat(index=0, user=ann),
             Seat(index=1, user=None, ai_level="", left_user=bob, left_at=now,
                  left_reason="resigned")]
    assert [(r["user_id"], r["place"], r["ended"], r["won"], r["points"])
            for r in result_rows(game, seats)] == [
        (ann.pk, 1, "finished", True, 3), (bob.pk, 2, "resigned", False, 8)]
