"""Nouvelle-France's lesson ("Learn to play"): the first turn of a real game, step by step,
then scoring by adjacency and a snowstorm.

Every position is built with the engine (``games.boards.lessons``): the shipped standard
variant, 2 players, seed 1, and the actions played so far; the last steps play on (the
lesson's stand-in players take the first legal move) until the position they teach comes up.
``tests/games/lessons`` checks that each expected move is legal in its position and that
each explanation of a wrong move is given.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.boards.lessons import Hint, Lesson, Step, from_seed, play_until
from games.engines.nouvellefrance.positions import nothing_playable

_SEED = 1
_PLACE = ["place", "church", 0, 0, 0]
#: The first turn the first steps follow, action by action (seat 1 is the active player).
TURN = (["huron"], ["order", 2, 0, 1], ["skip_huron"], ["draw"], ["card", 0], ["copy", 1],
        _PLACE, ["fille_du_roy"])


def _at(moves: int):
    """The position after the first ``moves`` actions of :data:`TURN`."""
    return from_seed("standard", 2, _SEED, TURN[:moves])


def _is(tag: str):
    def goal(engine, before, seat, action, after) -> bool:
        return action[0] == tag
    return goal


def _points(engine, state, action) -> int:
    return int(engine.describe_action(state, action).get("points") or 0)


def _scores_three(engine, before, seat, action, after) -> bool:
    """A placement that scores 3 points or more (its cubes touch earlier ones of yours)."""
    return action[0] == "place" and _points(engine, before, action) >= 3


def _adjacency_position(engine, state, seat) -> bool:
    """Placing a piece where some placement scores 3 or more and some fewer."""
    legal = engine.legal_actions(state, seat)
    if not legal or legal[0][0] != "place":
        return False
    points = {_points(engine, state, a) for a in legal}
    return max(points) >= 3 > min(points)


def _snowflake_next(engine, state, seat) -> bool:
    """The seat to move may draw, and the card it would draw brings a snowstorm."""
    if ("draw",) not in engine.legal_actions(state, seat):
        return False
    return bool(engine.describe_action(state, ("draw",)).get("storms"))


def _nothing_playable(engine):
    """The card choice of the first turn, but with no face-up card playable (a constructed
    position: the engine's ``positions.nothing_playable`` takes their shapes' copies out)."""
    return nothing_playable(_at(4)(engine))


def _first_legal(engine, state, seat, legal):
    """The lesson's stand-in players: never an ally, else the first legal move."""
    return next((a for a in legal if a[0] in ("skip_huron", "no_ally", "decline")), legal[0])


_WHY_DRAW = Hint(["bonus"], _(
    "A bonus piece may replace the draw, but this step asks you to draw a card."))

LESSON = Lesson(
    game="nouvellefrance",
    title=_("Learn to play Nouvelle-France"),
    intro=_(
        "Thirteen short steps through the first turn of a real game, then scoring. In each "
        "step make the move asked for, on the board below, as you would in a game: the rules "
        "check it."),
    steps=(
        Step(
            key="huron",
            title=_("The Huron"),
            task=_("Before you draw, use your Huron to look at the top three cards."),
            rule=_("Before the active player draws, every player with a ready Huron may look "
                   "at the top 3 cards of the deck and put them back in any order."),
            done=_("Only you saw those cards. Each ally is used at most once between two "
                   "snowstorms."),
            position=_at(0),
            expect=(["huron"],),
            hints=(Hint(["skip_huron"], _(
                "You may let the Huron pass, but this step asks you to use it.")),),
        ),
        Step(
            key="order",
            title=_("Reorder the cards"),
            task=_("Put the three cards back with the third one on top."),
            rule=_("You put the cards you looked at back in any order: give the new order "
                   "from the top."),
            done=_("The order is now known to you only: you decide what comes up next."),
            position=_at(1),
            goal=lambda engine, before, seat, action, after: list(action[:2]) == ["order", 2],
            hints=(Hint(["order"], _(
                "That order leaves another card on top: the third card must come first.")),),
        ),
        Step(
            key="skip-huron",
            title=_("Let an ally pass"),
            task=_("You are now the other player: keep your Huron for later and let it pass."),
            rule=_("Every player with a ready Huron is asked before the draw; saying no keeps "
                   "the ally for later."),
            done=_("Allies used before the 3rd snowstorm break ties against you: keep them "
                   "for when they help."),
            position=_at(2),
            expect=(["skip_huron"],),
            hints=(Hint(["huron"], _(
                "Allowed, but this step asks you to keep the Huron: let it pass.")),),
        ),
        Step(
            key="draw",
            title=_("Draw a card"),
            task=_("You are the active player again: draw the top card."),
            rule=_("On your turn you draw the top card face up onto the display, or place a "
                   "bonus piece instead of drawing."),
            done=_("The card joins the face-up cards of the display."),
            position=_at(3),
            expect=(["draw"],),
            hints=(_WHY_DRAW,),
        ),
        Step(
            key="bonus",
            title=_("A bonus piece"),
            task=_("Same position: this time place a bonus piece instead of drawing."),
            rule=_("Instead of drawing you may place one of your bonus pieces, all in your "
                   "colour: the beam before the 1st snowstorm, the post before the 2nd, the "
                   "peg before the 3rd."),
            done=_("All its cubes are yours, so they all score; unused bonus pieces expire "
                   "at their snowstorm."),
            position=_at(3),
            goal=_is("bonus"),
            hints=(Hint(["draw"], _(
                "Drawing is allowed, but this step asks for a bonus piece: choose one, then "
                "a spot on a site.")),),
        ),
        Step(
            key="card",
            title=_("Choose a card"),
            task=_("Choose one of the face-up cards: its shape is the piece you place."),
            rule=_("Choose a face-up card whose shape still has a copy in the supply and a "
                   "place to go; you take a copy of that shape."),
            done=_("The card is discarded once the piece is placed."),
            position=_at(4),
            goal=_is("card"),
        ),
        Step(
            key="copy",
            title=_("Choose the copy"),
            task=_("Take the copy of the piece with two cubes of your colour (brown)."),
            rule=_("Every piece has one cube of each colour and a second cube of one colour: "
                   "only the cubes of your colour score for you."),
            done=_("Two cubes of your colour: twice the points of the other copies."),
            position=_at(5),
            expect=(["copy", 1],),
            hints=(Hint(["copy"], _(
                "That copy has only one cube of your colour: take the one with two brown "
                "cubes.")),),
        ),
        Step(
            key="place",
            title=_("Place the piece"),
            task=_("Place the piece on a site: choose how it stands, then a spot."),
            rule=_("A piece is lowered straight down until it rests on the ground or on "
                   "cubes; every cube must be over the site, at most 3 levels high, and the "
                   "piece must stand freely (its centre over what it rests on)."),
            done=_("You scored one point for each cube of your colour in the piece."),
            position=_at(6),
            goal=_is("place"),
        ),
        Step(
            key="fille",
            title=_("The Fille du Roy"),
            task=_("Use your Fille du Roy to double this turn's points."),
            rule=_("After scoring, the active player may use the Fille du Roy: the turn's "
                   "points count twice."),
            done=_("Your points for this turn were doubled."),
            position=_at(7),
            expect=(["fille_du_roy"],),
            hints=(Hint(["no_ally"], _(
                "You may keep the Fille du Roy, but this step asks you to use it now.")),),
        ),
        Step(
            key="coureur",
            title=_("The Coureur des bois"),
            task=_("You are the other player: use your Coureur des bois to gain half of "
                   "those points."),
            rule=_("After the active player scores, the first other player who uses a ready "
                   "Coureur des bois gains half the points (before doubling), rounded down."),
            done=_("You gained points on the other player's turn."),
            position=_at(8),
            expect=(["coureur"],),
            hints=(Hint(["decline"], _(
                "You may decline, but this step asks you to use the Coureur des bois.")),),
        ),
        Step(
            key="discard",
            title=_("No card can be played"),
            task=_("Every copy of the three face-up shapes is gone: discard one of the cards."),
            rule=_("When no face-up card can be played, discard one of your choice (a copy "
                   "of its shape, if any is left, goes back in the box), draw again and "
                   "choose again."),
            done=_("The card went to the discard pile and you drew a new one."),
            position=_nothing_playable,
            goal=_is("discard"),
        ),
        Step(
            key="adjacency",
            title=_("Score by touching"),
            task=_("Later in the game: place the cannon so that it scores 3 points or more: "
                   "put two of your white cubes against the white cubes already on the "
                   "church."),
            rule=_("A placement scores 1 point for each uncovered cube of your colour in "
                   "the piece, plus 1 for each of them that touches, face to face, a cube of "
                   "your colour placed earlier on the same site."),
            done=_("Cubes of your colour side by side score again: build next to your own."),
            position=play_until("standard", 2, _SEED, _first_legal, _adjacency_position),
            goal=_scores_three,
            hints=(Hint(["place"], _(
                "That spot scores less than 3: your white cubes must touch white cubes "
                "placed earlier, face to face. Look at the church's left wall.")),),
        ),
        Step(
            key="storm",
            title=_("A snowstorm"),
            task=_("Draw a card: this time it is a snowflake."),
            rule=_("A snowflake brings a snowstorm: on each site every player scores their "
                   "cubes on level 1 by that site's stick (+1, x2 or -1 each), then level 1 "
                   "is buried under snow. The third storm ends the game."),
            done=_("The storm scored every site's level 1 and buried it. The player who drew "
                   "the snowflake draws again and goes on."),
            position=play_until("standard", 2, _SEED, _first_legal, _snowflake_next),
            expect=(["draw"],),
            hints=(_WHY_DRAW,),
        ),
    ),
)
