"""Every AI level reads the rules from ``rule_data`` only.

Variants that change the rule numbers (a 7-row New Haven village, a fifth
resource, other Nouvelle-France footprints, symbols and bonuses) are built as
variant data, pass the engines' validators and are played to the end by every
level with tiny budgets.  A hard-coded row value, resource or site breaks these.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import re
from pathlib import Path

import pytest

import ai
from ai.rules import rule_data_for


def load(name: str):
    from games.engines import get_engine

    return get_engine(name)


def tall_village() -> dict:
    """New Haven with a 7-row village: rows cost 7..1, score 7..1."""
    engine = load("newhaven")
    v = copy.deepcopy(engine.default_variants()["standard"])
    v["name"] = "tall-village"
    v["village"] = {
        "rows": 7,
        "cols": 5,
        "row_costs": [7, 6, 5, 4, 3, 2, 1],
        "row_values": [7, 6, 5, 4, 3, 2, 1],
        "col_values": [5, 4, 3, 4, 5],
    }
    return v


def fifth_resource() -> dict:
    """New Haven with clay: a fifth resource on tiles and buildings, wider village columns."""
    engine = load("newhaven")
    v = copy.deepcopy(engine.default_variants()["standard"])
    v["name"] = "clay"
    v["resources"] = [*v["resources"], "clay"]
    others = v["resources"][:4]
    v["harvest_tiles"] = v["harvest_tiles"][:44] + [
        ["clay", "clay", other, other] for other in others
    ] + [["clay", other, "clay", "clay"] for other in others] + [
        ["clay", "clay", "clay", other] for other in others
    ] + [[other, "clay", other, "clay"] for other in others]
    v["village"] = {
        "rows": 5,
        "cols": 6,
        "row_costs": [5, 4, 3, 3, 1],
        "row_values": [6, 5, 4, 2, 1],
        "col_values": [6, 4, 3, 3, 4, 6],
    }
    return v


def other_sites() -> dict:
    """Nouvelle-France with other footprints, heights, symbols, stick faces and bonuses."""
    engine = load("nouvellefrance")
    v = copy.deepcopy(engine.default_variants()["standard"])
    v["name"] = "other-sites"

    def ring(h: int, w: int) -> list[list[int]]:
        return [[x, y] for x in range(h) for y in range(w) if x in (0, h - 1) or y in (0, w - 1)]

    bonus = {"+": 5, "x3": 3, "-": 9}
    v["sites"][0].update(footprint=ring(8, 8), height_limit=4, character_bonus=bonus)
    v["sites"][1].update(footprint=ring(7, 9), character_bonus=bonus)
    v["sites"][2].update(
        footprint=[[i, 0] for i in range(14)] + [[13, j] for j in range(1, 10)],
        extra_adjacency=[],
        character_bonus=bonus,
    )
    v["symbols"] = {"+": 2, "x3": 3, "-": -2}
    v["sticks"] = [
        {"name": "A", "levels": ["+", "x3", "-"]},
        {"name": "B", "levels": ["x3", "+", "-"]},
        {"name": "C", "levels": ["-", "x3", "+"]},
    ]
    return v


VARIANTS = {
    "tall-village": ("newhaven", tall_village),
    "clay": ("newhaven", fifth_resource),
    "other-sites": ("nouvellefrance", other_sites),
}


@pytest.fixture
def tiny_levels(monkeypatch):
    """Every search level with a budget of a few iterations (legality, not strength)."""
    tiny = {name: dataclasses.replace(level, iterations=6) for name, level in ai.LEVELS.items()}
    monkeypatch.setattr(ai, "LEVELS", tiny)
    return tiny


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
def test_the_variants_are_valid_and_really_differ(variant_name):
    game, build = VARIANTS[variant_name]
    engine = load(game)
    variant = build()
    assert engine.validate_variant(variant) == []
    data = engine.rule_data(variant)
    standard = engine.rule_data(engine.default_variants()["standard"])
    state = engine.new_game(variant, 2, 1)
    assert rule_data_for(engine, state) == data
    if variant_name == "tall-village":
        assert data["village"]["rows"] == 7 > standard["village"]["rows"]
    elif variant_name == "clay":
        assert len(data["resources"]) == 5 and "clay" in data["resources"]
    else:
        assert [s["footprint"] for s in data["sites"]] != [
            s["footprint"] for s in standard["sites"]
        ]
        assert data["symbols"] != standard["symbols"]


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
@pytest.mark.parametrize("level", ai.LEVEL_NAMES)
def test_every_level_plays_the_variant_to_the_end(variant_name, level, tiny_levels):
    game, build = VARIANTS[variant_name]
    engine = load(game)
    variant = build()
    rng = random.Random(7)
    state = engine.new_game(variant, 2, 11)
    # Seat 0 plays the level; seat 1 plays random, so the game reaches every phase.
    ply = 0
    hits = {"built_low": False}
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        legal = engine.legal_actions(state, seat)
        if seat == 0:
            action = ai.choose_action(engine, state, seat, level, seed=ply)
            assert action in legal
        else:
            action = rng.choice(legal)
        if game == "newhaven" and action[0] == "build" and action[3] >= 5:
            hits["built_low"] = True
        state = engine.apply(state, seat, action)
        ply += 1
    assert engine.winners(state)
    if variant_name == "tall-village":
        # The seventh row (index 6) exists and someone used the rows below the sixth.
        view = engine.observe(state, None)
        assert all(len(p["village"]) == 7 for p in view["players"])


@pytest.mark.parametrize("variant_name", sorted(VARIANTS))
def test_the_evaluator_reads_the_variants_numbers(variant_name):
    """The knowledge's evaluator runs on every position of a variant game (7th row filled)."""
    game, build = VARIANTS[variant_name]
    engine = load(game)
    knowledge = ai.get_knowledge(engine)
    rng = random.Random(3)
    state = engine.new_game(build(), 3, 5)
    while not engine.is_over(state):
        seat = engine.to_move(state)[0]
        legal = engine.legal_actions(state, seat)
        values = knowledge.evaluate(engine, state)
        assert len(values) == 3 and all(0.0 <= v <= 1.0 for v in values)
        ordered = knowledge.order_actions(engine, state, seat, legal)
        assert sorted(map(repr, ordered)) == sorted(map(repr, legal))
        # Prefer the lowest rows so the 7-row village really fills its seventh row.
        builds = [a for a in legal if a[0] == "build"] if game == "newhaven" else []
        action = max(builds, key=lambda a: a[3]) if builds else rng.choice(legal)
        state = engine.apply(state, seat, action)
    assert len(knowledge.evaluate(engine, state)) == 3


def _rule_words() -> set[str]:
    """Names only the rules know: resources, sites, characters, shapes, bonus pieces."""
    words: set[str] = set()
    for game in ("newhaven", "nouvellefrance"):
        engine = load(game)
        for variant in engine.default_variants().values():
            data = engine.rule_data(variant)
            words.update(data.get("resources", []))
            for site in data.get("sites", []):
                words.update((site["name"], site["character"]))
            words.update(s["name"] for s in data.get("shapes", []))
            words.update(p["name"] for p in data.get("bonus_pieces", []))
    return words


def test_no_rule_number_or_name_in_the_ai_package():
    root = Path(ai.__file__).resolve().parent
    words = _rule_words()
    assert {"wheat", "church", "cross", "beam"} <= words
    sequences = set()
    for game in ("newhaven",):
        engine = load(game)
        for variant in engine.default_variants().values():
            village = engine.rule_data(variant)["village"]
            for key in ("row_values", "col_values", "row_costs"):
                sequences.add(", ".join(map(str, village[key])))
    offenders = []
    sources = sorted(root.rglob("*.py"))
    assert len(sources) >= 8
    for path in sources:
        text = path.read_text()
        for word in words:
            # A string literal naming a rule's thing ("wheat", 'church'); prose may use
            # ordinary words such as "post" or "square".
            if re.search(rf"[\"']{re.escape(word)}[\"']", text):
                offenders.append(f"{path.name}: {word!r}")
        for seq in sequences:
            if seq in text:
                offenders.append(f"{path.name}: ({seq})")
        if re.search(r"range\(\s*[4-7]\s*\)", text):
            offenders.append(f"{path.name}: a literal board/village size in range()")
    assert offenders == []
