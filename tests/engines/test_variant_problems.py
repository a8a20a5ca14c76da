"""The engines' variant problems carry their parts for a translation (issue 21): each is
its English line as before, with the field's path, a template the engine lists and the
template's parameters."""

from __future__ import annotations

import copy
import pickle

import pytest

from games.engines import get_engine
from games.engines.problems import (
    SCHEMA_TEMPLATES,
    TERMS,
    FieldRef,
    Problem,
    Several,
    Term,
)

GAMES = ["newhaven", "nouvellefrance"]


def _broken(game: str) -> list[dict]:
    """Variants with schema errors of several kinds, and with errors of the engine's own
    checks."""
    base = get_engine(game).default_variants()["standard"]
    out = []

    def variant(change) -> None:
        data = copy.deepcopy(base)
        change(data)
        out.append(data)

    variant(lambda d: d.pop(next(iter(d))))  # required
    variant(lambda d: d.update(bogus=1))  # additionalProperties
    if game == "newhaven":
        variant(lambda d: d["village"]["col_values"].__setitem__(0, -1))  # minimum
        variant(lambda d: d.update(market_size=99))  # maximum
        variant(lambda d: d["village"].update(rows="x"))  # type
        variant(lambda d: d["board"].update(side=""))  # minLength
        variant(lambda d: d.update(resources=d["resources"] * 2))  # maxItems, uniqueItems
        variant(lambda d: d["board"]["play_area"].update(x=d["board"]["play_area"]["2"]))
        variant(lambda d: d.update(turns_per_player=d["turns_per_player"] + 1))
        variant(lambda d: d["board"].update(settlement_tiles=d["board"]["settlement_tiles"] + 1))
        variant(lambda d: d["village"]["row_costs"].__setitem__(0, 99))
        variant(lambda d: d["board"]["clearings"].append(d["board"]["printed_areas"][0]["cell"]))
    else:
        variant(lambda d: d["display"].update(size=0))  # minimum
        variant(lambda d: d.update(tiebreak_bonus_piece=5))  # type with two types
        variant(lambda d: d["allies"].update(enabled=["nobody"]))  # enum
        variant(lambda d: d["deck"]["piles"].__setitem__(0, d["deck"]["piles"][0] + 1))
        variant(lambda d: d["copies"].__setitem__(0, d["copies"][0][:-1]))
        variant(lambda d: d["sites"][0]["footprint"].append(d["sites"][0]["footprint"][0]))
        variant(lambda d: d.update(tiebreak_bonus_piece="nobody"))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_every_problem_is_its_english_line_with_a_listed_template(game: str) -> None:
    engine = get_engine(game)
    listed = set(engine.problem_templates()) | set(SCHEMA_TEMPLATES)
    seen: set[str] = set()
    for data in _broken(game):
        problems = engine.validate_variant(data)
        for problem in problems:
            assert isinstance(problem, Problem) and problem.template in listed, problem
            seen.add(problem.template)
            line = f"{problem.label}: {problem.message}" if problem.label else problem.message
            assert str(problem) == line
            if problem.template not in SCHEMA_TEMPLATES:  # the engine's own: its template
                assert problem.template % problem.params == problem.message
            assert pickle.loads(pickle.dumps(problem)).params == problem.params
    own = seen - set(SCHEMA_TEMPLATES)
    assert own and seen & set(SCHEMA_TEMPLATES), seen


def test_schema_problems_keep_jsonschemas_english_and_say_which_rule() -> None:
    engine = get_engine("newhaven")
    data = engine.default_variants()["standard"]
    data["village"]["col_values"][0] = -1
    data["village"]["rows"] = "x"
    del data["market_size"]
    problems = engine.validate_variant(data)
    assert problems == ["(variant): 'market_size' is a required property",
                        "village.col_values[0]: -1 is less than the minimum of 0",
                        "village.rows: 'x' is not of type 'integer'"]
    required, minimum, kind = problems
    assert required.path == () and required.params["field"].path == ("market_size",)
    assert minimum.path == ("village", "col_values", 0)
    assert (minimum.template, minimum.params) == ("must be at least %(limit)s", {"limit": 0})
    assert kind.params == {"type": "a whole number"} and isinstance(kind.params["type"], Term)
    assert set(TERMS) >= {"a whole number", "a text"}


def test_a_field_named_in_a_message_is_a_reference() -> None:
    engine = get_engine("newhaven")
    data = engine.default_variants()["standard"]
    data["turns_per_player"] += 1
    problem = engine.validate_variant(data)[0]
    assert problem.startswith("board.play_area['2']: gives ")
    assert problem.path == ("board", "play_area", "2")
    ref = problem.params["field"]
    assert isinstance(ref, FieldRef) and ref == "turns_per_player"
    assert ref.path == ("turns_per_player",)
    several = Several([FieldRef("a[0]", ("a", 0)), FieldRef("a[2]", ("a", 2))])
    template = "%(f)s"
    assert template % {"f": several} == "a[0], a[2]"
