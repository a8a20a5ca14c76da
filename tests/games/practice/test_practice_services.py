"""Practice help's services: undo (the fold of the shorter log, idempotent, version-checked),
the hint (searched once per version from the seat's view, dropped when old), and both
refused -- with nothing changed -- in rated games and games with other people."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

import ai
from games.ai_turns.turn import play_one_ai_turn
from games.core.errors import (
    GameNotRunning,
    KeyConflict,
    NotSeated,
    NotYourTurn,
    StaleVersion,
)
from games.core.selectors import current_state, legal_actions_json, replayed_state
from games.core.services import submit_action
from games.live import broadcast
from games.models import Game, Move, Rewind, Seat, Variant
from games.practice import hints
from games.practice.errors import NothingToUndo, NotPractice, UndoRevealed
from games.practice.selectors import (
    hint_key,
    hint_rows,
    hint_seed,
    is_practice,
    practice_panel,
    stored_hint,
)
from games.practice.services import request_hint, undo_last_move
from games.tables.services import create_game, join_game

pytestmark = pytest.mark.django_db


def practice_game(variant: Variant, user: Any, *, ai_seats: int = 1,
                  rated: bool = False) -> Game:
    """``user`` in seat 0 against ``ai_seats`` random AI seats, running."""
    game = create_game(creator=user, variant=variant, rated=rated,
                       seats=[{"type": "human"},
                              *({"type": "ai", "level": "random"} for _ in range(ai_seats))])
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    return game


def play(game: Game, user: Any, on_commit: Any, action: dict, key: str) -> Game:
    """``user``'s move at the current version; the AI answers (eager, on commit)."""
    game.refresh_from_db()
    with on_commit():
        submit_action(game=game, user=user, seat=0, action=action, version=game.version,
                      key=key)
    game.refresh_from_db()
    return game


def snapshot(game: Game) -> tuple:
    """Everything a refused request must leave as it was."""
    game.refresh_from_db()
    moves = list(Move.objects.filter(game=game).order_by("seq")
                 .values_list("seq", "seat", "action"))
    return (game.version, game.state_json, game.to_move, game.status, game.rewinds, moves,
            Rewind.objects.filter(game=game).count())


# --- who may ------------------------------------------------------------------------------


def test_practice_means_unrated_with_only_ai_others(variant, ann, bob) -> None:
    game = practice_game(variant, ann, ai_seats=2)
    assert is_practice(game, seat=0)
    assert not is_practice(game, seat=None)  # a spectator
    rated = practice_game(variant, ann, rated=True)
    assert not is_practice(rated, seat=0)
    people = create_game(creator=ann, variant=variant,
                         seats=[{"type": "human"}, {"type": "human"}, {"type": "ai",
                                                                       "level": "random"}])
    join_game(game=people, user=bob)
    people.refresh_from_db()
    assert not is_practice(people, seat=0) and not is_practice(people, seat=1)
    # A person who left (the AI plays their seat now) still makes it a game with people.
    Seat.objects.filter(game=people, index=1).update(user=None, ai_level="normal",
                                                    left_user=bob, left_reason="resigned")
    people.refresh_from_db()
    assert not is_practice(people, seat=0)


# --- undo ---------------------------------------------------------------------------------


def place_game(user: Any) -> Game:
    """``user`` in seat 0 against the random AI at three in a row (no hidden information:
    no move reveals anything, every undo is allowed), ``user`` to move."""
    variant = Variant.objects.get(game="placegame", name="standard")
    game = practice_game(variant, user)
    while game.to_move != [0]:  # the seed decides who starts
        play_one_ai_turn(game.pk, game.version)
        game.refresh_from_db()
    return game


def mark(game: Game, index: int = 0) -> dict:
    """The ``index``-th legal mark of seat 0."""
    return legal_actions_json(game, 0)[index]


def test_undo_takes_back_my_move_and_the_ai_answer(placegame, ann, on_commit) -> None:
    for _deal in range(10):  # the random AI may win with its third mark: deal again
        game = place_game(ann)
        start = game.version
        game = play(game, ann, on_commit, mark(game), "m1")
        before = (game.version, game.state_json, list(game.to_move))
        kept = list(Move.objects.filter(game=game).values_list("seq", flat=True))
        game = play(game, ann, on_commit, mark(game), "m2")
        if game.status == Game.Status.RUNNING:
            break
    assert game.version == before[0] + 2  # my move and the AI's answer
    with on_commit():
        undone = undo_last_move(game=game.pk, user=ann, version=game.version, key="u1")
    game.refresh_from_db()
    # Back to my turn at the position before my move: the fold of the shorter log.
    assert game.state_json == before[1] and game.to_move == before[2] == [0]
    assert game.version == before[0] + 3 and undone.version == game.version  # never back
    assert list(Move.objects.filter(game=game).values_list("seq", flat=True)) == kept
    assert current_state(game) == replayed_state(game)
    assert game.rewinds == 1
    rewind = Rewind.objects.get(game=game)
    assert (rewind.seat, rewind.from_seq, rewind.removed, rewind.version) == (
        0, start + 3, 2, game.version)
    # The game goes on from there: a move after the undo gets a fresh number.
    game = play(game, ann, on_commit, mark(game), "m3")
    assert [m.seq for m in Move.objects.filter(game=game)] == [*kept, start + 6, start + 7]
    assert current_state(game) == replayed_state(game)


def test_undo_back_to_the_deal(placegame, ann, on_commit) -> None:
    game = place_game(ann)
    deal, kept = game.state_json, game.moves.count()
    game = play(game, ann, on_commit, mark(game, 2), "m1")
    undo_last_move(game=game, user=ann, version=game.version, key="u1")
    game.refresh_from_db()
    assert game.state_json == deal and game.to_move == [0] and game.moves.count() == kept
    with pytest.raises(NothingToUndo):
        undo_last_move(game=game, user=ann, version=game.version, key="u2")


def test_undo_is_idempotent_and_version_checked(placegame, ann, make_user, on_commit) -> None:
    for _deal in range(10):  # the random AI may win with its third mark: deal again
        game = place_game(ann)
        game = play(game, ann, on_commit, mark(game), "m1")
        game = play(game, ann, on_commit, mark(game), "m2")
        if game.status == Game.Status.RUNNING:
            break
    version = game.version
    undo_last_move(game=game, user=ann, version=version, key="u1")
    after = snapshot(game)
    # The same request again (a retry): nothing more is taken back.
    again = undo_last_move(game=game, user=ann, version=version, key="u1")
    assert again.version == version + 1 and snapshot(game) == after
    # An old version is refused.
    with pytest.raises(StaleVersion):
        undo_last_move(game=game, user=ann, version=version, key="u2")
    assert snapshot(game) == after
    # Someone else's key, or no seat at all.
    with pytest.raises(NotSeated):
        undo_last_move(game=game, user=make_user(), version=version + 1, key="u1")
    assert snapshot(game) == after


def test_undo_refused_past_an_answer_that_revealed_a_hidden_card(variant, ann,
                                                                 on_commit) -> None:
    """The AI's answer played a card from its hidden hand: taken back and replayed, the
    player would know that card.  Refused, nothing changed, no undo button; before the
    AI has answered the same undo is allowed."""
    game = practice_game(variant, ann)
    game = play(game, ann, on_commit, {"play": 0}, "m1")
    assert game.version == 2  # my card (I knew it) and the AI's (I could not)
    before = snapshot(game)
    with pytest.raises(UndoRevealed) as refused:
        undo_last_move(game=game, user=ann, version=game.version, key="u1")
    assert refused.value.status_code == 409 and refused.value.code == "undo_revealed"
    assert "revealed something new" in str(refused.value)
    assert snapshot(game) == before
    panel = practice_panel(game, 0)
    assert panel["can_undo"] is False and panel["undo_blocked"] is True
    # My own card only: nothing I did not know.
    submit_action(game=game, user=ann, seat=0, action={"play": 0}, version=2, key="m2")
    game.refresh_from_db()
    assert practice_panel(game, 0)["can_undo"] is True
    undo_last_move(game=game, user=ann, version=3, key="u2")
    game.refresh_from_db()
    assert game.moves.count() == 2 and game.to_move == [0]


def test_undo_key_of_another_seat_conflicts(variant, ann, on_commit) -> None:
    game = practice_game(variant, ann)
    game = play(game, ann, on_commit, {"play": 0}, "m1")
    Rewind.objects.create(game=game, key="taken", seat=1, from_seq=1, removed=0, version=0)
    before = snapshot(game)
    with pytest.raises(KeyConflict):
        undo_last_move(game=game, user=ann, version=game.version, key="taken")
    assert snapshot(game) == before


def test_a_repeated_undo_sends_its_hints_again(
    placegame, ann, on_commit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a repeated move (the core's one rule for a request's key): an undo whose answer
    was lost is sent again with its key; nothing more is taken back, the hints go out."""
    game = place_game(ann)
    game = play(game, ann, on_commit, mark(game), "m1")
    undo_last_move(game=game, user=ann, version=game.version, key="u1")
    game.refresh_from_db()
    after = snapshot(game)
    sent: list[tuple] = []
    monkeypatch.setattr(broadcast, "game_updated",
                        lambda g, v, **kw: sent.append((g, v, kw)))
    with on_commit():
        again = undo_last_move(game=game, user=ann, version=game.version - 1, key="u1")
    assert again.version == game.version and snapshot(game) == after
    assert sent == [(game.pk, game.version, {"seats": False})]


def test_undo_during_the_ai_turn_takes_its_pending_turn_away(variant, ann) -> None:
    """No on-commit hooks: the AI has not answered yet; the undo still goes back to the
    player's turn, and the AI's queued turn finds its version gone."""
    game = practice_game(variant, ann)
    submit_action(game=game, user=ann, seat=0, action={"play": 1}, version=0, key="m1")
    game.refresh_from_db()
    assert game.to_move == [1]
    undo_last_move(game=game, user=ann, version=1, key="u1")
    game.refresh_from_db()
    assert game.to_move == [0] and game.version == 2 and not game.moves.exists()
    assert play_one_ai_turn(game.pk, 1) is False


def test_undo_refused_in_rated_games_and_games_with_people(variant, ann, bob,
                                                            on_commit) -> None:
    rated = practice_game(variant, ann, rated=True)
    # A rated table draws its seat order (ann may not start): the seat is what is refused.
    seat = next(s.index for s in rated.seats.all() if s.user_id == ann.pk)
    if rated.to_move == [seat]:
        rated = play(rated, ann, on_commit, {"play": 0}, "m1")
    before = snapshot(rated)
    with pytest.raises(NotPractice) as refused:
        undo_last_move(game=rated, user=ann, version=rated.version, key="u1")
    assert refused.value.status_code == 403 and "practice" in str(refused.value)
    assert snapshot(rated) == before

    people = create_game(creator=ann, variant=variant,
                         seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=people, user=bob)
    people.refresh_from_db()
    submit_action(game=people, user=ann, seat=0, action={"play": 0}, version=0, key="a")
    before = snapshot(people)
    for user in (ann, bob):
        with pytest.raises(NotPractice):
            undo_last_move(game=people, user=user, version=1, key="u")
    assert snapshot(people) == before


# --- hints --------------------------------------------------------------------------------


def test_hint_is_the_search_of_my_seat_three_moves_with_chances(variant, ann, on_commit,
                                                                 clear_cache) -> None:
    game = practice_game(variant, ann)
    with on_commit():  # the search is queued once the request's transaction commits
        assert request_hint(game=game, user=ann, version=0) == {"status": "pending"}
    # Eager: the worker's task has run; asking again answers from the cache.
    found = request_hint(game=game, user=ann, version=0)
    assert found["status"] == "done"
    moves = found["moves"]
    assert len(moves) == 3
    legal = [{"play": i} for i in range(3)]
    assert sorted(m["action"]["play"] for m in moves) == [0, 1, 2]
    assert all(m["action"] in legal and 0.0 <= m["win"] <= 1.0 for m in moves)
    assert [m["visits"] for m in moves] == sorted((m["visits"] for m in moves), reverse=True)
    rows = hint_rows(game, found, 0)
    hand = current_state(game)["hands"][0]
    # In the board's own words: the fake board has no words, the default event text.
    assert [r["text"] for r in rows] == [
        f"ann play card {hand[m['action']['play']]}" for m in moves]
    assert all(0 <= r["percent"] <= 100 for r in rows)


def test_hint_is_searched_once_per_version(variant, ann, on_commit, clear_cache,
                                           monkeypatch) -> None:
    game = practice_game(variant, ann)
    calls = []
    real = ai.suggest

    def counted(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(ai, "suggest", counted)
    for _ in range(3):
        with on_commit():
            request_hint(game=game, user=ann, version=0)
    assert request_hint(game=game, user=ann, version=0)["status"] == "done"
    assert calls == [0]


def test_hint_searches_from_the_seat_view_only(variant, ann, fake_engine, clear_cache,
                                               monkeypatch) -> None:
    """The search reads the true state through ``determinize`` for the hinted seat only,
    with a seed that never names the game's seed."""
    game = practice_game(variant, ann, ai_seats=2)
    seen = []
    real = type(fake_engine).determinize

    def spy(self, state, seat, rng):
        seen.append(seat)
        return real(self, state, seat, rng)

    monkeypatch.setattr(type(fake_engine), "determinize", spy)
    assert hints.compute_hint(game.pk, 0, 0)
    assert seen and set(seen) == {0}

    seed = hint_seed(game, 0, 0)
    Game.objects.filter(pk=game.pk).update(seed=game.seed + 1)
    game.refresh_from_db()
    assert hint_seed(game, 0, 0) == seed


def test_a_hint_for_an_old_version_is_dropped(variant, ann, on_commit, clear_cache) -> None:
    game = practice_game(variant, ann)
    game = play(game, ann, on_commit, {"play": 0}, "m1")
    with pytest.raises(StaleVersion):
        request_hint(game=game, user=ann, version=0)
    assert stored_hint(game, 0, 0) is None
    # A search queued for a version the game has since left stores nothing.
    assert hints.compute_hint(game.pk, 0, 0) is False
    assert stored_hint(game, 0, 0) is None


def test_hint_refused_when_not_my_turn_rated_or_with_people(variant, ann, bob,
                                                            clear_cache) -> None:
    game = practice_game(variant, ann)
    submit_action(game=game, user=ann, seat=0, action={"play": 1}, version=0, key="m1")
    game.refresh_from_db()
    with pytest.raises(NotYourTurn):
        request_hint(game=game, user=ann, version=1)
    rated = practice_game(variant, ann, rated=True)
    with pytest.raises(NotPractice):
        request_hint(game=rated, user=ann, version=0)
    people = create_game(creator=ann, variant=variant,
                         seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=people, user=bob)
    with pytest.raises(NotPractice):
        request_hint(game=people.pk, user=ann, version=0)

    for g in (game, rated, people):
        assert cache.get(hint_key(g, 0, 0)) is None and cache.get(hint_key(g, 1, 0)) is None


def test_undo_during_the_ai_turn_starts_my_clock_again(variant, ann) -> None:
    """Under a clock, the undo gives the turn back to the player: their clock runs again
    (it had stopped when they moved), or they could think for ever after an undo."""
    game = create_game(creator=ann, variant=variant, rated=False,
                       time_control={"kind": "correspondence", "days": 3},
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    game.refresh_from_db()
    assert Seat.objects.get(game=game, index=0).deadline is not None
    submit_action(game=game, user=ann, seat=0, action={"play": 1}, version=0, key="m1")
    assert Seat.objects.get(game=game, index=0).deadline is None  # the AI's turn
    undo_last_move(game=game, user=ann, version=1, key="u1")
    game.refresh_from_db()
    assert game.to_move == [0]
    assert Seat.objects.get(game=game, index=0).deadline is not None


def test_undo_refused_once_the_game_finished(variant, ann, on_commit) -> None:
    """The last move (the AI's answer) ended the game: nothing can be taken back, and the
    refusal changes nothing (the result record and the end stay)."""
    game = practice_game(variant, ann)
    for key in ("m1", "m2", "m3"):
        game = play(game, ann, on_commit, {"play": 0}, key)
    assert game.status == Game.Status.FINISHED
    before = snapshot(game)
    with pytest.raises(GameNotRunning) as refused:
        undo_last_move(game=game, user=ann, version=game.version, key="u1")
    assert refused.value.status_code == 409 and str(refused.value)
    assert snapshot(game) == before
