"""Fair seating: the seat order (and so who starts) drawn from the game's seed, stored,
and shown before the first move; "seat order as listed" for unrated tables only."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.urls import reverse

from games.core.errors import InvalidTableRules
from games.core.selectors import current_state, legal_actions_json, replayed_state
from games.core.services import draw_seat_order, submit_action
from games.models import Game, Seat, Variant
from games.tables.services import create_game, join_game

pytestmark = pytest.mark.django_db


def dealt(variant: Variant, people: list, seed: int, **options: Any) -> Game:
    """A table of ``people`` (the first creates it) dealt with ``seed``."""
    game = create_game(creator=people[0], variant=variant,
                       seats=[{"type": "human"}] * len(people), **options)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    for person in people[1:]:
        join_game(game=game, user=person)
    game.refresh_from_db()
    return game


def seated(game: Game) -> list[str]:
    return [s.user.username for s in Seat.objects.filter(game=game).order_by("index")]


def test_the_seat_order_of_rated_games_varies_with_the_seed(variant, make_user):
    people = [make_user(n) for n in ("ann", "bob", "cy")]
    orders = set()
    for seed in range(1, 25):
        game = dealt(variant, people, seed, rated=True)
        assert game.status == Game.Status.RUNNING and not game.seats_as_listed
        # The order is the seed's, stored with the game, and everyone sits once.
        assert game.seat_order == draw_seat_order(seed, 3)
        assert seated(game) == [["ann", "bob", "cy"][i] for i in game.seat_order]
        orders.add(tuple(game.seat_order))
        for person in people:  # the next table is theirs to join again
            Seat.objects.filter(game=game, user=person).update(user=None)
    assert len(orders) == 6  # every order of three people came up (24 seeds)
    assert draw_seat_order(7, 4) == draw_seat_order(7, 4)  # the same seed, the same order


def test_the_creator_does_not_always_start(variant, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    firsts = set()
    for seed in range(1, 13):
        game = dealt(variant, [ann, bob], seed, seats_as_listed=False)
        firsts.add(seated(game)[game.to_move[0]])
        Seat.objects.filter(game=game).update(user=None)
    assert firsts == {"ann", "bob"}


def test_seats_as_listed_keeps_them_for_unrated_tables_only(variant, make_user, client):
    ann, bob = make_user("ann"), make_user("bob")
    game = dealt(variant, [ann, bob], 3, seats_as_listed=True)
    assert seated(game) == ["ann", "bob"] and game.seat_order == [0, 1]
    with pytest.raises(InvalidTableRules):
        create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2,
                    rated=True, seats_as_listed=True)
    assert Game.objects.count() == 1  # nothing made
    client.force_login(ann)
    api = client.post("/api/games/", {"variant": variant.pk, "seats": [{"type": "human"}] * 2,
                                      "rated": True, "seats_as_listed": True},
                      content_type="application/json")
    assert api.status_code == 400 and api.json()["code"] == "invalid_table_rules"
    assert "seats_as_listed" in str(api.json())
    assert Game.objects.count() == 1


def test_a_drawn_seat_order_replays_identically(variant, make_user):
    people = [make_user(n) for n in ("ann", "bob", "cy")]
    game = dealt(variant, people, 11, rated=True)
    assert game.seat_order != [0, 1, 2]
    holders = {s.index: s.user for s in Seat.objects.filter(game=game)}
    rng = random.Random(1)
    for n in range(6):
        seat = game.to_move[0]
        game = submit_action(game=game, user=holders[seat], seat=seat,
                             action=rng.choice(legal_actions_json(game, seat)),
                             version=game.version, key=f"k{n}")
    game = Game.objects.get(pk=game.pk)
    assert replayed_state(game) == current_state(game)


def test_the_lobby_form_draws_unless_ticked_and_refuses_it_for_rated(client, variant,
                                                                     make_user, placegame):
    ann = make_user("ann")
    client.force_login(ann)
    place = Variant.objects.get(game="placegame")
    # The second seat (seat_1 here, seat_2 once form fields are named by their labels).
    base = {"variant": place.pk, "num_players": 2, "seat_1": "ai-random", "seat_2": "ai-random"}
    refused = client.post(reverse("lobby_create"), {**base, "rated": "on",
                                                    "seats_as_listed": "on"})
    assert refused.status_code == 400 and not Game.objects.exists()
    assert "A rated game always draws its seat order" in refused.content.decode()
    client.post(reverse("lobby_create"), base)
    drawn = Game.objects.get()
    assert not drawn.seats_as_listed and drawn.seat_order == draw_seat_order(drawn.seed, 2)
    client.post(reverse("lobby_create"), {**base, "seats_as_listed": "on"})
    listed = Game.objects.exclude(pk=drawn.pk).get()
    assert listed.seats_as_listed and listed.seat_order == [0, 1]


def test_the_table_page_shows_the_order_and_who_starts_before_the_first_move(
    client, placegame, make_user
):
    ann, bob = make_user("ann"), make_user("bob")
    place = Variant.objects.get(game="placegame")
    game = create_game(creator=ann, variant=place, seats=[{"type": "human"}] * 2,
                       seats_as_listed=False)
    client.force_login(bob)
    waiting = client.get(reverse("play", args=[game.pk])).content.decode()
    assert "drawn at random when the game starts" in waiting
    join_game(game=game, user=bob)
    game.refresh_from_db()
    names = seated(game)
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="seat-order"' in html
    assert f"Seats: {names[0]}, {names[1]}. {names[game.to_move[0]]} starts." in html
    seat = game.to_move[0]
    submit_action(game=game, user=ann if names[seat] == "ann" else bob, seat=seat,
                  action=legal_actions_json(game, seat)[0], version=game.version, key="m1")
    assert 'id="seat-order"' not in client.get(reverse("play", args=[game.pk])).content.decode()
