"""The places of a finished game's seats (``games.results.places``): one pure function."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.results.places import SeatEnd, places

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_stayers_rank_by_the_engines_winners_then_by_score_ties_sharing() -> None:
    ranks = places([SeatEnd(i) for i in range(4)], winners=[2], scores=[5, 7, 9, 5])
    assert ranks == {2: 1, 1: 2, 0: 3, 3: 3}


def test_winners_share_place_one_whatever_their_scores() -> None:
    ranks = places([SeatEnd(i) for i in range(3)], winners=[0, 2], scores=[4, 9, 3])
    assert ranks == {0: 1, 2: 1, 1: 3}


def test_a_leaver_is_after_every_stayer_whatever_the_ai_then_scored() -> None:
    # Seat 0 left; the AI playing it on won 6-2: the seat that stayed is first all the same.
    ranks = places([SeatEnd(0, left_at=at(5)), SeatEnd(1)], winners=[0], scores=[6, 2])
    assert ranks == {1: 1, 0: 2}


def test_between_leavers_the_later_ranks_higher_and_simultaneous_ones_share() -> None:
    seats = [SeatEnd(0, left_at=at(10)), SeatEnd(1, left_at=at(3)), SeatEnd(2),
             SeatEnd(3, left_at=at(10))]
    ranks = places(seats, winners=[1], scores=[40, 50, 1, 30])
    assert ranks == {2: 1, 0: 2, 3: 2, 1: 4}


def test_the_issue_scenario_b_resigned_then_a_left_and_the_ai_won_a_seat() -> None:
    # Three seats: B (1) resigned, then A (0) ran out of time, C (2) stayed; the AI in
    # A's seat won 6-2-1.  C first, A second (left later than B), B last.
    seats = [SeatEnd(0, left_at=at(7)), SeatEnd(1, left_at=at(2)), SeatEnd(2)]
    assert places(seats, winners=[0], scores=[6, 2, 1]) == {2: 1, 0: 2, 1: 3}


def test_a_game_ended_because_everyone_else_left_ranks_the_remaining_seat_first() -> None:
    # The remaining seat is the table's winner; the others left one after the other.
    seats = [SeatEnd(0), SeatEnd(1, left_at=at(4)), SeatEnd(2, left_at=at(9))]
    assert places(seats, winners=[0], scores=[0, 12, 20]) == {0: 1, 2: 2, 1: 3}
    # Without any result at all (an engine that scores only finished games) too.
    assert places(seats) == {0: 1, 2: 2, 1: 3}


def test_everyone_left_the_last_to_leave_ranks_first() -> None:
    seats = [SeatEnd(0, left_at=at(7)), SeatEnd(1, left_at=at(2))]
    assert places(seats, winners=[1], scores=[2, 6]) == {0: 1, 1: 2}


def test_a_seat_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        places([SeatEnd(0), SeatEnd(0)])


@given(st.lists(st.one_of(st.none(), st.integers(0, 5)), min_size=1, max_size=4),
       st.lists(st.integers(-3, 30), min_size=4, max_size=4),
       st.sets(st.integers(0, 3), max_size=4))
def test_places_properties(left: list, scores: list, winners: set) -> None:
    seats = [SeatEnd(i, left_at=None if m is None else at(m)) for i, m in enumerate(left)]
    ranks = places(seats, scores=scores, winners=sorted(winners))
    assert set(ranks) == {s.seat for s in seats}
    assert min(ranks.values()) == 1
    for a in seats:
        for b in seats:
            if a.stayed and not b.stayed:
                assert ranks[a.seat] < ranks[b.seat]  # stayers before leavers
            if not a.stayed and not b.stayed and a.left_at > b.left_at:
                assert ranks[a.seat] < ranks[b.seat]  # the later leaver first
            if a.stayed and b.stayed and a.seat in winners and b.seat not in winners:
                assert ranks[a.seat] < ranks[b.seat]
    # Competition ranks: a place p is shared by k seats, and the next place is p + k.
    values = sorted(ranks.values())
    for i, value in enumerate(values):
        assert value == 1 + sum(1 for v in values if v < value) and value <= i + 1
