"""Side B's set-up in the rulebook's order, and the shipment's seeded rotation.

Each test quotes the rulebook sentence (``shared/seeds/``) or the specification line
(``shared/rules/new-haven.md``) it checks.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from newhaven_helpers import VARIANTS, E, play_random

from games.engines.newhaven.state import HARVEST, POND_CELL, SHIP_UP, TILE
from games.engines.newhaven.variant import covered_settlements

SIDE_B = VARIANTS["side-b"]
FIVE_BY_FIVE = {(r, c) for r in range(1, 6) for c in range(1, 6)}


def rc(state, cell):
    return divmod(cell, state.compiled.size)


def test_the_settlement_and_clearing_cells_of_the_spec():
    """Spec: "*Settlement* cells (8), all inside the 2-player 5x5: (1,1), (1,3), (1,5),
    (3,2), (3,4), (5,1), (5,3), (5,5). *Clearing* cells (6): (2,2), (2,4), (4,2), (4,4),
    (6,3), (3,6). Four pond tiles labelled with the least player count that uses them:
    2, 2, 3, 4."
    """
    board = SIDE_B["board"]
    settlements = {tuple(c) for c in board["settlements"]}
    assert settlements == {(1, 1), (1, 3), (1, 5), (3, 2), (3, 4), (5, 1), (5, 3), (5, 5)}
    assert settlements <= FIVE_BY_FIVE
    assert [tuple(c) for c in board["clearings"]] == [
        (2, 2),
        (2, 4),
        (4, 2),
        (4, 4),
        (6, 3),
        (3, 6),
    ]
    assert board["ponds"] == [2, 2, 3, 4] and board["settlement_tiles"] == 4


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ponds_and_tiles_on_every_settlement_then_the_unused_ponds_come_off(n):
    """DE: "Die vier Teichplättchen werden zusammen mit 4 beliebigen Ernteplättchen
    gemischt. Diese Plättchen werden offen auf die Spielplanfelder mit Siedlungen gelegt.
    Die Teichplättchen mit 3+ bzw. 4 werden wieder vom Spielplan genommen, wenn nicht so
    viele Spieler teilnehmen."  Spec: "then take off the board the ponds whose label is
    above the player count (their cells become empty, playable cells)."
    """
    emptied: Counter = Counter()
    tiled: Counter = Counter()
    for seed in range(60):
        state = E.new_game(SIDE_B, n, seed)
        cv = state.compiled
        entries = {c: state.cells[c] for c in cv.settlements}
        tiles = [c for c, e in entries.items() if e is not None and e[0] == TILE]
        ponds = sorted(e[1] for e in entries.values() if e is not None and e[0] == POND_CELL)
        empty = [c for c, e in entries.items() if e is None]
        assert len(tiles) == 4
        assert ponds == [label for label in (2, 2, 3, 4) if label <= n]
        assert len(empty) == 4 - len(ponds)
        # The freed cells are empty, playable cells of the play area.
        harvest_cells = {a[2:4] for a in E.legal_actions(state, 0) if a[0] == "harvest"}
        assert all(rc(state, c) in harvest_cells for c in empty)
        assert set(empty) <= set(state.empty_cells)
        emptied.update(empty)
        tiled.update(tiles)
    if n < 4:
        # The pieces were shuffled over all 8 cells before the unused ponds came off: the
        # freed cells are any of the settlements, not a fixed pair.
        assert set(emptied) == set(state.compiled.settlements)
    assert set(tiled) == set(state.compiled.settlements)


def test_ponds_come_off_only_above_the_player_count():
    """IT: "Rimuovete gli Stagni contrassegnati con 3+ o 4 se non raggiungete quel numero
    di giocatori."  With 4 players every pond stays."""
    for seed in range(20):
        state = E.new_game(SIDE_B, 4, seed)
        cells = [state.cells[c] for c in state.compiled.settlements]
        assert all(e is not None for e in cells)
        assert sorted(e[1] for e in cells if e[0] == POND_CELL) == [2, 2, 3, 4]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_nine_turns_per_player_for_every_shuffle(n):
    """Spec: "Turns per player, for every shuffle: (25-6-1)/2 = (35-7-1)/3 = (45-8-1)/4
    = **9**."  The game ends with one empty cell of the play area, so the free cells
    after the set-up decide the turns."""
    for seed in range(300):
        state = E.new_game(SIDE_B, n, seed)
        assert len(state.empty_cells) - 1 == 9 * n, seed


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_on_side_b_give_everybody_nine_turns(n):
    """Spec: "All players have had the same number of turns"."""
    for seed in range(3):
        final, _ = play_random(SIDE_B, n, seed)
        assert [p.turns for p in final.players] == [9] * n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_face_up_building_on_each_clearing_of_the_play_area(n):
    """DE: "Aus dem Beutel werden zufällig Gebäude gezogen und auf jede Lichtung des
    Spielplans wird ein offenes Gebäude gelegt."  FR: "placez-en une, face visible, sur
    chaque clairière à l'intérieur de la zone de jeu"."""
    state = E.new_game(SIDE_B, n, 5)
    cv = state.compiled
    play = set(cv.play_area[n])
    assert sorted(state.clearings) == sorted(c for c in cv.clearings if c in play)
    assert len(state.clearings) == {2: 4, 3: 5, 4: 6}[n]
    view = E.observe(state, None)
    assert [(c["row"], c["col"]) for c in view["board"]["clearings"]] == [
        rc(state, c) for c in sorted(state.clearings)
    ]
    assert all(c["building"]["number"] is not None for c in view["board"]["clearings"])


def test_settlement_tiles_face_up_in_random_rotations():
    """IT: "Piazzate poi a caso, a faccia in su, questi Tasselli sugli spazi
    Inseidiamenti."  Spec: "face up, random rotation"."""
    rotations = set()
    for seed in range(12):
        state = E.new_game(SIDE_B, 2, seed)
        view = E.observe(state, 1)
        for c in state.compiled.settlements:
            entry = state.cells[c]
            if entry is not None and entry[0] == TILE:
                rotations.add(entry[2])
                shown = next(
                    t for t in view["board"]["tiles"] if (t["row"], t["col"]) == rc(state, c)
                )
                cv = state.compiled
                assert shown["squares"] == [cv.resources[x] for x in cv.rotate(entry[1], entry[2])]
    assert rotations == {0, 1, 2, 3}


def test_the_earlier_layout_is_refused_for_unequal_turns():
    """Spec: "An earlier reconstruction put two settlements outside the 5x5 [...]; with
    the rulebook's order that gave unequal turns in about 43% of 2-player games."  Spec:
    "a variant whose numbers break that is not playable (the rules editor must refuse
    it)"."""
    v = copy.deepcopy(SIDE_B)
    v["board"]["settlements"] = [[1, 1], [1, 5], [5, 1], [5, 5], [3, 2], [3, 4], [0, 3], [3, 0]]
    v["board"]["clearings"] = [[2, 2], [2, 4], [4, 2], [4, 4], [6, 3], [3, 6]]
    problems = E.validate_variant(v)
    two = next(p for p in problems if "2-player" in p)
    assert two.startswith("board.settlements[6], board.settlements[7]:")
    assert "4 to 6" in two
    # The arithmetic behind it: 8 pieces, 6 of them stay with 2 players, 6 cells in play.
    assert covered_settlements(6, 8, 6) == (4, 6)
    assert covered_settlements(8, 8, 6) == (6, 6)


def test_pond_labels_that_give_unequal_turns_are_refused():
    """Spec: "a variant whose numbers break that is not playable"; the validator names
    the play area whose arithmetic fails."""
    v = copy.deepcopy(SIDE_B)
    v["board"]["ponds"] = [2, 2, 3, 3]  # 3 players: 35 - 8 = 27 free cells, 26 % 3 != 0
    problems = E.validate_variant(v)
    assert any(p.startswith("board.play_area['3']:") and "unequal turns" in p for p in problems)
    v["board"]["ponds"] = [2, 2, 2, 4]  # 2 players: 25 - 7 = 18 free cells, 17 % 2 != 0
    problems = E.validate_variant(v)
    assert any(p.startswith("board.play_area['2']:") and "unequal turns" in p for p in problems)


def test_settlements_outside_a_play_area_are_fine_when_the_shuffle_cannot_matter():
    """When every piece stays (all ponds labelled 1), the covered cells of a play area
    do not depend on the shuffle even with settlements outside it: the validator
    accepts it, and a piece dealt outside the play area is out of the game."""
    v = copy.deepcopy(SIDE_B)
    v["board"]["settlements"] = [[1, 1], [1, 5], [5, 1], [5, 5], [3, 2], [3, 4], [0, 3], [3, 0]]
    v["board"]["ponds"] = [1, 1, 1, 1]
    assert E.validate_variant(v) == []  # 2p: 25 - 6 = 19, 3p: 35 - 7 = 28, 4p: 45 - 8 = 37
    for seed in range(30):
        state = E.new_game(v, 2, seed)
        assert state.cells[0 * 7 + 3] is None and state.cells[3 * 7 + 0] is None
        assert len(state.empty_cells) - 1 == 9 * 2


# -- the shipment ------------------------------------------------------------------------


def play_shipment(seed: int):
    """Seat 0 ships on (3, 3) and ends its turn; the state after the flip."""
    state = E.new_game(VARIANTS["standard"], 2, seed)
    state = E.apply(state, 0, ("ship", 3, 3, "wheat"))
    while not (state.phase == HARVEST and state.active == 1):
        seat = E.to_move(state)[0]
        state = E.apply(state, seat, E.legal_actions(state, seat)[0])
    return state


def test_the_shipment_is_turned_up_in_a_seeded_random_rotation():
    """Spec: "the shipment is turned face up where it lies (its real squares, in a
    rotation drawn from the game's seeded generator: a face-down tile has no
    orientation)".  DE: "Stattdessen dreht er nun das Lieferungsplättchen von links nach
    rechts auf die andere Seite, sodass es nun offen liegt."
    """
    rotations = Counter()
    for seed in range(40):
        state = play_shipment(seed)
        kind, tile, rotation = state.cells[3 * 7 + 3]
        assert kind == SHIP_UP
        rotations[rotation] += 1
        cv = state.compiled
        view = E.observe(state, None)
        shown = next(t for t in view["board"]["tiles"] if (t["row"], t["col"]) == (3, 3))
        assert shown["squares"] == [cv.resources[x] for x in cv.rotate(tile, rotation)]
        assert shown["face_down"] is False
        # The same seed gives the same rotation.
        assert play_shipment(seed).cells[3 * 7 + 3] == state.cells[3 * 7 + 3]
    assert set(rotations) == {0, 1, 2, 3}


def test_nobody_knows_the_rotation_before_the_flip():
    """Spec: "nobody, its owner included, may know its face until it has been played":
    the rotation is resampled by every seat's determinization and shown in no view."""
    state = E.new_game(VARIANTS["standard"], 2, 9)
    state = E.apply(state, 0, ("ship", 3, 3, "wheat"))  # face down until the turn ends
    for seat in (0, 1, None):
        worlds = [E.determinize(state, seat, random.Random(k)) for k in range(12)]
        assert all(E.observe(w, seat) == E.observe(state, seat) for w in worlds)
        assert len({w.players[0].shipment_rotation for w in worlds}) > 1
