"""Filling Move.event by replaying games (the data migration's work)."""

from __future__ import annotations

import random

import pytest

from games.backfill import backfill_events
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.models import Game, Move
from games.tables.services import create_game, join_game

pytestmark = pytest.mark.django_db


def played(variant, ann, bob, moves: int):
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    users, rng = {0: ann, 1: bob}, random.Random(2)
    for n in range(moves):
        seat = game.to_move[0]
        game = submit_action(game=game, user=users[seat], seat=seat,
                             action=rng.choice(legal_actions_json(game, seat)),
                             version=game.version, key=f"b{n}")
    return game


def test_moves_of_a_replayable_game_get_their_events(nh_variants, ann, bob):
    game = played(nh_variants["standard"], ann, bob, 12)
    expected = list(game.moves.order_by("seq").values_list("event", flat=True))
    # As stored before events existed: a sentence and no event.
    Move.objects.filter(game=game).update(event=None, description="Seat 0 did something.")
    report = backfill_events(Game, Move)
    assert report.filled == [game.pk] and report.kept == {}
    assert list(game.moves.order_by("seq").values_list("event", flat=True)) == expected
    assert backfill_events(Game, Move).filled == []  # nothing left to do


def test_a_game_whose_replay_differs_keeps_its_sentences(nh_variants, ann, bob):
    game = played(nh_variants["standard"], ann, bob, 6)
    Move.objects.filter(game=game).update(event=None, description="Seat 0 did something.")
    # The rules changed since (here: another seed deals another game).
    Game.objects.filter(pk=game.pk).update(seed=game.seed + 1)
    report = backfill_events(Game, Move)
    assert report.filled == [] and game.pk in report.kept
    assert not game.moves.filter(event__isnull=False).exists()
    assert set(game.moves.values_list("description", flat=True)) == {"Seat 0 did something."}


def test_an_engine_without_events_changes_nothing(variant, fake_engine, ann, bob, monkeypatch):
    """An engine that describes moves with sentences: its games keep them."""
    game = played(variant, ann, bob, 2)
    Move.objects.filter(game=game).update(event=None)
    monkeypatch.setattr(type(fake_engine), "describe_action",
                        lambda self, state, action: "Seat 1 plays.")
    assert backfill_events(Game, Move).kept == {game.pk: "the engine gives no events"}


def test_the_command_reports_what_it_did(nh_variants, ann, bob):
    from io import StringIO

    from django.core.management import call_command

    game = played(nh_variants["standard"], ann, bob, 3)
    Move.objects.filter(game=game).update(event=None)
    out = StringIO()
    call_command("backfill_events", stdout=out)
    assert "1 games filled, 0 kept" in out.getvalue()
    assert not game.moves.filter(event__isnull=True).exists()


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_events(nh_variants, ann, bob):
    from importlib import import_module

    from django.apps import apps

    game = played(nh_variants["standard"], ann, bob, 4)
    Move.objects.filter(game=game).update(event=None)
    import_module("games.migrations.0007_backfill_move_events").backfill(apps, None)
    assert not game.moves.filter(event__isnull=True).exists()
