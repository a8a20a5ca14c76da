"""Tables and moves through the core and table services (toy engine; New Haven when importable)."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from django.db import connection
from django.db.models import ProtectedError
from django.utils import timezone

from games.core.errors import (
    AlreadySeated,
    GameFull,
    GameNotOpen,
    GameNotRunning,
    IllegalMove,
    InvalidSeats,
    KeyConflict,
    NotSeated,
    NotYourTurn,
    StaleVersion,
    VariantUnavailable,
)
from games.core.selectors import current_state, replayed_state
from games.core.services import submit_action
from games.engines import get_engine
from games.live import broadcast
from games.models import Game, Move, Seat, Variant
from games.tables.services import create_game, join_game, leave_game
from games.variants.services import save_variant

pytestmark = pytest.mark.django_db

requires_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers, no real race",
)


def newhaven_engine() -> Any:
    """The New Haven engine."""
    return get_engine("newhaven")


def two_player_game(variant: Variant, make_user: Any) -> tuple[Game, Any, Any]:
    """A running game of two people: (game, seat-0 user, seat-1 user)."""
    ann, bob = make_user("ann"), make_user("bob")
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return game, ann, bob


def play(game: Game, user: Any, action: Any, key: str = "k1", seat: int | None = None) -> Game:
    seat = game.to_move[0] if seat is None else seat
    return submit_action(
        game=game, user=user, seat=seat, action=action, version=game.version, key=key
    )


def snapshot(game: Game) -> tuple:
    game.refresh_from_db()
    return (game.version, game.state_json, game.status, Move.objects.filter(game=game).count())


# --- tables ---------------------------------------------------------------------------------


def test_create_with_ai_starts_at_once(variant: Variant, make_user: Any) -> None:
    ann = make_user("ann")
    game = create_game(
        creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "ai", "level": "easy"}]
    )
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert game.version == 0 and game.started_at is not None
    assert game.state_json is not None and game.to_move == [0]
    seats = list(game.seats.order_by("index"))
    assert seats[0].user == ann and not seats[0].is_ai
    assert seats[1].is_ai and seats[1].ai_level == "easy" and not seats[1].is_open
    assert game.game_name == "fakegame" and game.variant_name == "basic"


def test_create_open_table_then_join_starts_it(variant: Variant, make_user: Any) -> None:
    ann, bob, cat = make_user(), make_user(), make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 3)
    assert game.status == Game.Status.OPEN and game.state_json is None
    seat = join_game(game=game, user=bob, seat=2)
    assert seat.index == 2 and seat.user == bob
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN
    assert join_game(game=game, user=cat).index == 1
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.state_json is not None


def test_variant_data_is_a_snapshot(variant: Variant, make_user: Any) -> None:
    game = create_game(
        creator=make_user(), variant=variant, seats=[{"type": "human"}, {"type": "ai"}]
    )
    variant.data = {"hand_size": 9}
    variant.save()
    game.refresh_from_db()
    assert game.variant_data == {"hand_size": 3}
    # The game pins the version it was made with: that version (and so its variant)
    # cannot be deleted while the game exists; variants are retired instead.
    assert game.variant_version.data == {"hand_size": 3}
    with pytest.raises(ProtectedError):
        variant.delete()
    game.refresh_from_db()
    assert game.variant == variant and game.variant_data == {"hand_size": 3}


@pytest.mark.parametrize(
    "seats",
    [
        [{"type": "human"}],
        [{"type": "human"}] * 5,
        [{"type": "ai"}, {"type": "human"}],
        [{"type": "human"}, {"type": "ai", "level": "godlike"}],
        [{"type": "human"}, {"type": "robot"}],
        "human,ai",
    ],
)
def test_create_rejects_bad_seats(variant: Variant, make_user: Any, seats: Any) -> None:
    with pytest.raises(InvalidSeats):
        create_game(creator=make_user(), variant=variant, seats=seats)
    assert not Game.objects.exists()


def test_create_rejects_inactive_variant(variant: Variant, make_user: Any) -> None:
    variant.active = False
    variant.save()
    with pytest.raises(VariantUnavailable):
        create_game(creator=make_user(), variant=variant, seats=[{"type": "human"}] * 2)


def test_join_errors(variant: Variant, make_user: Any) -> None:
    ann, bob, cat = make_user(), make_user(), make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 3)
    with pytest.raises(AlreadySeated):
        join_game(game=game, user=ann)
    with pytest.raises(GameFull):
        join_game(game=game, user=bob, seat=0)  # taken by ann
    with pytest.raises(GameFull):
        join_game(game=game, user=bob, seat=7)
    join_game(game=game, user=bob)
    join_game(game=game, user=cat)
    with pytest.raises(GameNotOpen):
        join_game(game=game, user=make_user())


def test_join_full_table_with_ai(variant: Variant, make_user: Any) -> None:
    game = create_game(
        creator=make_user(), variant=variant, seats=[{"type": "human"}, {"type": "ai"}]
    )
    with pytest.raises(GameNotOpen):
        join_game(game=game, user=make_user())


def test_leave_frees_the_seat_and_creator_aborts(variant: Variant, make_user: Any) -> None:
    ann, bob = make_user(), make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 3)
    join_game(game=game, user=bob)
    leave_game(game=game, user=bob)
    assert Seat.objects.get(game=game, index=1).is_open
    with pytest.raises(NotSeated):
        leave_game(game=game, user=bob)
    leave_game(game=game, user=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    with pytest.raises(GameNotOpen):
        join_game(game=game, user=bob)


def test_cannot_leave_after_start(variant: Variant, make_user: Any) -> None:
    game, _ann, bob = two_player_game(variant, make_user)
    with pytest.raises(GameNotOpen):
        leave_game(game=game, user=bob)


# --- submit_action --------------------------------------------------------------------------


def test_submit_happy_path(
    variant: Variant, make_user: Any, on_commit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple] = []
    monkeypatch.setattr(broadcast, "game_updated", lambda g, v, **_kw: sent.append((g, v)))
    game, ann, _bob = two_player_game(variant, make_user)
    hand = game.engine.state_from_json(game.state_json)["hands"][0]
    with on_commit():
        game = play(game, ann, {"play": 1})
        assert sent == []  # nothing leaves before the commit
    assert sent == [(game.pk, 1)]
    assert game.version == 1 and game.to_move == [1]
    game.refresh_from_db()
    assert game.version == 1 and game.to_move == [1]
    move = Move.objects.get(game=game)
    assert (move.seq, move.seat, move.action, move.key) == (1, 0, {"play": 1}, "k1")
    assert move.event == {"type": "play", "seat": 0, "card": hand[1]}
    assert current_state(game)["pile"] == [[0, hand[1]]]


def test_submit_accepts_a_game_id(variant: Variant, make_user: Any) -> None:
    game, ann, _ = two_player_game(variant, make_user)
    result = submit_action(
        game=game.pk, user=ann, seat=0, action={"play": 0}, version=0, key="x"
    )
    assert isinstance(result, Game) and result.version == 1


def test_stale_version_changes_nothing(variant: Variant, make_user: Any) -> None:
    game, ann, bob = two_player_game(variant, make_user)
    play(game, ann, {"play": 0})
    before = snapshot(game)
    with pytest.raises(StaleVersion) as err:
        submit_action(game=game, user=bob, seat=1, action={"play": 0}, version=0, key="b")
    assert err.value.version == 1 and err.value.status_code == 409
    assert snapshot(game) == before


def test_repeated_key_returns_the_game_unchanged(variant: Variant, make_user: Any) -> None:
    game, ann, _bob = two_player_game(variant, make_user)
    first = play(game, ann, {"play": 2}, key="same")
    before = snapshot(game)
    again = submit_action(
        game=game, user=ann, seat=0, action={"play": 2}, version=0, key="same"
    )
    assert again.version == first.version == 1
    assert snapshot(game) == before
    with pytest.raises(KeyConflict):
        submit_action(
            game=game, user=ann, seat=0, action={"play": 0}, version=0, key="same"
        )
    with pytest.raises(KeyConflict):
        submit_action(game=game, user=ann, seat=0, action="garbage", version=0,
                               key="same")
    assert snapshot(game) == before


def test_a_repeated_request_sends_its_hints_again(
    variant: Variant, make_user: Any, on_commit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A web process that died after its commit, before its hints went out: the proxy
    sends the move again with its key, and the hints go out this time (issue 23)."""
    game, ann, _bob = two_player_game(variant, make_user)
    play(game, ann, {"play": 2}, key="same")  # committed; pretend its hints were lost
    sent: list[tuple] = []
    monkeypatch.setattr(broadcast, "game_updated",
                        lambda g, v, **kw: sent.append((g, v, kw)))
    with on_commit():
        again = submit_action(game=game, user=ann, seat=0, action={"play": 2}, version=0,
                              key="same")
    assert again.version == 1 and Move.objects.filter(game=game).count() == 1
    assert sent == [(game.pk, 1, {"seats": False})]


def test_illegal_move_has_the_engine_message(variant: Variant, make_user: Any) -> None:
    game, ann, _ = two_player_game(variant, make_user)
    before = snapshot(game)
    with pytest.raises(IllegalMove) as err:
        play(game, ann, {"play": 7})
    assert str(err.value) == "You do not have that card." and err.value.status_code == 422
    with pytest.raises(IllegalMove) as err:
        play(game, ann, ["not", "an", "action"])
    assert str(err.value) == "That is not an action of this game."
    assert snapshot(game) == before
    play(game, ann, {"play": 0}, key="k-after")  # a refused key is not burnt


def test_not_seated(variant: Variant, make_user: Any) -> None:
    game, ann, bob = two_player_game(variant, make_user)
    before = snapshot(game)
    with pytest.raises(NotSeated) as err:
        play(game, bob, {"play": 0}, seat=0)
    assert err.value.status_code == 403
    with pytest.raises(NotSeated):
        play(game, make_user(), {"play": 0}, seat=0)
    with pytest.raises(NotSeated):
        play(game, None, {"play": 0}, seat=0)
    with pytest.raises(NotSeated):
        play(game, ann, {"play": 0}, seat=5)
    with pytest.raises(NotSeated):  # a human seat is not the AI's
        submit_action(game=game, seat=0, action={"play": 0}, version=0, key="a",
                               ai=True)
    assert snapshot(game) == before


def test_not_your_turn(variant: Variant, make_user: Any) -> None:
    game, _, bob = two_player_game(variant, make_user)
    with pytest.raises(NotYourTurn):
        play(game, bob, {"play": 0}, seat=1)
    assert Move.objects.count() == 0


def test_not_running(variant: Variant, make_user: Any) -> None:
    ann = make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    with pytest.raises(GameNotRunning):
        play(game, ann, {"play": 0}, seat=0)
    game, ann, bob = two_player_game(Variant.objects.create(
        game="fakegame", name="one", data={"hand_size": 1}), make_user)
    game = play(game, ann, {"play": 0}, key="a")
    game = play(game, bob, {"play": 0}, key="b")
    assert game.status == Game.Status.FINISHED
    with pytest.raises(GameNotRunning):
        play(game, ann, {"play": 0}, key="c", seat=0)


def play_randomly(game: Game, users: dict[int, Any], rng: random.Random,
                  max_moves: int = 10_000) -> Game:
    """Random legal moves through submit_action until the game ends."""
    engine = game.engine
    for n in range(max_moves):
        if game.status != Game.Status.RUNNING:
            break
        state = current_state(game)
        seat = game.to_move[0]
        action = rng.choice(engine.legal_actions(state, seat))
        game = submit_action(
            game=game.pk, user=users[seat], seat=seat, action=engine.action_to_json(action),
            version=game.version, key=f"r{n}",
        )
    return game


def test_state_is_the_fold_of_the_moves(fake_engine: Any, make_user: Any) -> None:
    variant = Variant.objects.create(game="fakegame", name="big", data={"hand_size": 6})
    ann, bob, cat = make_user(), make_user(), make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 3)
    join_game(game=game, user=bob)
    join_game(game=game, user=cat)
    game.refresh_from_db()
    game = play_randomly(game, {0: ann, 1: bob, 2: cat}, random.Random(3))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.version == 18
    assert game.finished_at is not None and game.to_move == []
    engine = game.engine
    folded = replayed_state(game)
    assert game.state_json == engine.state_to_json(folded)
    assert game.result == {"scores": engine.scores(folded), "winners": engine.winners(folded)}
    assert list(game.moves.values_list("seq", flat=True)) == list(range(1, 19))


def test_random_new_haven_game_through_services(make_user: Any) -> None:
    """Three people (the other New Haven tests play two-player games)."""
    players = 3
    engine = newhaven_engine()
    variant = save_variant(
        game="newhaven", name="standard", data=engine.default_variants()["standard"]
    )
    users = [make_user() for _ in range(players)]
    game = create_game(creator=users[0], variant=variant,
                                seats=[{"type": "human"}] * players)
    for user in users[1:]:
        join_game(game=game, user=user)
    game.refresh_from_db()
    game = play_randomly(game, dict(enumerate(users)), random.Random(players))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.state_json == engine.state_to_json(replayed_state(game))
    assert game.result["winners"] and len(game.result["scores"]) == players
    assert game.moves.count() == game.version


# --- concurrency ----------------------------------------------------------------------------


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_submits_for_one_version_exactly_one_wins(
    variant: Variant, make_user: Any
) -> None:
    game, ann, _bob = two_player_game(variant, make_user)
    barrier = threading.Barrier(2)
    outcomes: list[Any] = [None, None]

    def submit(slot: int) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[slot] = submit_action(
                game=game.pk, user=ann, seat=0, action={"play": slot}, version=0,
                key=f"tab-{slot}",
            )
        except Exception as exc:  # recorded and asserted below
            outcomes[slot] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    wins = [o for o in outcomes if isinstance(o, Game)]
    losses = [o for o in outcomes if isinstance(o, StaleVersion)]
    assert len(wins) == 1 and len(losses) == 1, outcomes
    game.refresh_from_db()
    assert game.version == 1 and Move.objects.filter(game=game).count() == 1
    assert game.state_json == game.engine.state_to_json(replayed_state(game))


@pytest.mark.django_db(transaction=True)
def test_parallel_joins_for_the_last_seat(variant: Variant, make_user: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (set DATABASE_URL) for two truly parallel writers")
    ann = make_user()
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    rivals = [make_user(), make_user()]
    barrier = threading.Barrier(2)
    outcomes: list[Any] = [None, None]

    def join(slot: int) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[slot] = join_game(game=game.pk, user=rivals[slot])
        except Exception as exc:
            outcomes[slot] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sum(isinstance(o, Seat) for o in outcomes) == 1, outcomes
    assert sum(isinstance(o, GameNotOpen | GameFull) for o in outcomes) == 1, outcomes
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert game.started_at <= timezone.now()
