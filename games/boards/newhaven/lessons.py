"""New Haven's lesson ("Learn to play"): one turn of a real game, step by step, then scoring.

Every position is built with the engine (``games.boards.lessons``): the shipped standard
variant, 2 players, seed 1, and the actions played so far.  Steps 1-9 follow one turn
(harvest or shipment, building face up and face down, ending the build, the other player's
share and pass, the draws from the market and the bag); step 10 plays on until a building
completes a line of the village.  ``tests/games/lessons`` checks that each expected move is
legal in its position and that each explanation of a wrong move is given.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.boards.lessons import Hint, Lesson, Step, from_seed, play_until

_SEED = 1
_HARVEST = {"type": "harvest", "tile": 0, "row": 4, "col": 1, "rotation": 0}
_UP = {"type": "build", "resource": "stone", "number": 2, "row": 4, "col": 0, "face_up": True}
_DOWN = {"type": "build", "resource": "wheat", "number": 5, "row": 4, "col": 1,
         "face_up": False}
_END = {"type": "end_build"}
_SHARE = {"type": "build", "resource": "stone", "number": 1, "row": 5, "col": 0,
          "face_up": True}
_PASS = {"type": "pass"}
_MARKET = {"type": "draw_market", "resource": "wheat", "number": 3}
#: The turn the first nine steps follow, action by action.
TURN = (_HARVEST, _UP, _DOWN, _END, _SHARE, _PASS, _MARKET)


def _at(moves: int):
    """The position after the first ``moves`` actions of :data:`TURN`."""
    return from_seed("standard", 2, _SEED, TURN[:moves])


def _gathers_three(engine, before, seat, action, after) -> bool:
    """A harvest tile that brings one resource's marker to 3 or more."""
    view = engine.observe(after, seat)
    return action[0] == "harvest" and max(view["markers"].values()) >= 3


def _is(kind: str, **fields):
    def goal(engine, before, seat, action, after) -> bool:
        data = engine.action_to_json(action)
        return data.get("type") == kind and all(data.get(k) == v for k, v in fields.items())
    return goal


def _completes_a_line(engine, before, seat, action, after) -> bool:
    """A building that completes a row or a column: the village's score goes up."""
    return action[0] == "build" and engine.scores(after)[seat] > engine.scores(before)[seat]


def _scoring_position(engine, state, seat) -> bool:
    """Some building of the seat to move completes a line, and some other does not."""
    builds = [a for a in engine.legal_actions(state, seat) if a[0] == "build"]
    base = engine.scores(state)[seat]
    scoring = [a for a in builds if engine.scores(engine.apply(state, seat, a))[seat] > base]
    return bool(scoring) and len(scoring) < len(builds)


def _builds_first(engine, state, seat, legal):
    """The lesson's stand-in players: build whenever they can, else the first legal move."""
    return next((a for a in legal if a[0] == "build"), legal[0])


_NOT_SHIPMENT = Hint({"type": "ship"}, _(
    "The shipment works only once per game, and this step is about a harvest tile: pick one "
    "of the two tiles in your hand."))

LESSON = Lesson(
    game="newhaven",
    title=_("Learn to play New Haven"),
    intro=_(
        "Ten short steps through one turn of a real game and its scoring. In each step make "
        "the move asked for, on the board below, as you would in a game: the rules check it."),
    steps=(
        Step(
            key="harvest",
            title=_("Harvest"),
            task=_("Place a harvest tile from your hand so that one resource's marker reaches "
                   "3 or more."),
            rule=_("A tile's squares gather every square of the same resource they touch "
                   "edge to edge, across tiles (printed areas too): each marker is set to the "
                   "size of its chain. Diagonals do not connect."),
            done=_("Every marker shows what you gathered; you spend it building this turn."),
            position=_at(0),
            goal=_gathers_three,
            hints=(_NOT_SHIPMENT, Hint({"type": "harvest"}, _(
                "There that tile gathers less than 3 of every resource: place or turn it so "
                "that its squares join squares of the same resource on the board."))),
        ),
        Step(
            key="ship",
            title=_("The shipment"),
            task=_("Play your shipment instead of a tile: choose a resource, then a cell."),
            rule=_("Once per game you may play your face-down shipment instead of a harvest "
                   "tile: it counts as 4 squares of the resource you choose."),
            done=_("The shipment is turned face up at the end of the turn and counts as a "
                   "normal tile from then on; you draw no new tile this time."),
            position=_at(0),
            goal=_is("ship"),
            hints=(Hint({"type": "harvest"}, _(
                "That is a harvest tile. This step asks for the shipment: choose its resource "
                "under Shipment, then a cell.")),),
        ),
        Step(
            key="build-up",
            title=_("Build face up"),
            task=_("Build your stone 2 face up, on a space that costs 2."),
            rule=_("A building goes face up only on a space whose cost equals its number; "
                   "the cost is paid from the marker of its resource."),
            done=_("Your stone marker paid the cost. A row or column built all face up later "
                   "scores double."),
            position=_at(1),
            goal=_is("build", resource="stone", number=2, face_up=True),
            hints=(
                Hint({"type": "build", "face_up": False}, _(
                    "Face down is allowed, but it gives up the double score of a line built "
                    "all face up: build the stone 2 face up here.")),
                Hint({"type": "end_build"}, _(
                    "You still have markers to spend: build before you end the build.")),
                Hint({"type": "build"}, _("Build the stone 2, face up.")),
            ),
        ),
        Step(
            key="build-down",
            title=_("Build face down"),
            task=_("Build your wheat 5 face down: your wheat marker pays for a space that "
                   "costs 2 or 1."),
            rule=_("Any building may go face down on a space you can pay for: it keeps its "
                   "colour and loses its number. A second building of a colour must touch "
                   "one of that colour already in your village."),
            done=_("A face-down building fills a space cheaply, but its row and column no "
                   "longer score double."),
            position=_at(2),
            goal=_is("build", resource="wheat", number=5, face_up=False),
            hints=(
                Hint({"type": "end_build"}, _(
                    "Your wheat marker still shows 2: build the wheat 5 face down first.")),
                Hint({"type": "build", "resource": "wheat", "number": 6}, _(
                    "That is the wheat 6: this step asks for the wheat 5.")),
            ),
        ),
        Step(
            key="end-build",
            title=_("End the build"),
            task=_("Keep the rest of your hand for better spaces: end your build."),
            rule=_("You build as many buildings as you like, one at a time, then end your "
                   "build; what is left of the markers goes to the other players."),
            done=_("Your build is over: now the other player may use the markers you left."),
            position=_at(3),
            expect=(_END,),
            hints=(Hint({"type": "build"}, _(
                "Allowed, but a building face down on the cheapest row wastes a space you "
                "could fill face up later: end the build instead.")),),
        ),
        Step(
            key="share",
            title=_("Share the markers"),
            task=_("You are now the other player: build your stone 1 face up with the "
                   "markers the active player left."),
            rule=_("After the active player's build, every other player in turn may build "
                   "with the markers that are left, by the same rules, or pass."),
            done=_("Markers left unused are not lost to everyone: each other player may "
                   "share them."),
            position=_at(4),
            goal=_is("build", resource="stone", number=1, face_up=True),
            hints=(
                Hint({"type": "pass"}, _(
                    "You may pass, but the stone marker can still pay for your stone 1: "
                    "build it first.")),
                Hint({"type": "build"}, _("Build the stone 1, face up, on a space that "
                                          "costs 1.")),
            ),
        ),
        Step(
            key="pass",
            title=_("Pass"),
            task=_("You have used what you can: pass."),
            rule=_("A player sharing the markers ends their share by passing; then the next "
                   "player may share, and the active player draws."),
            done=_("Your share is over: the active player now draws buildings."),
            position=_at(5),
            expect=(_PASS,),
        ),
        Step(
            key="draw-market",
            title=_("Draw from the market"),
            task=_("You are the active player again: take the wheat 3 from the market."),
            rule=_("The active player draws one building for every marker at 0. The first "
                   "must come from the market; each further one from the market or blind "
                   "from the bag."),
            done=_("The market is refilled only after all your draws."),
            position=_at(6),
            expect=(_MARKET,),
            hints=(
                Hint({"type": "draw_bag"}, _(
                    "Not yet: the first draw must come from the market."), legal=False),
                Hint({"type": "draw_market"}, _("Take the wheat 3, not another building.")),
            ),
        ),
        Step(
            key="draw-bag",
            title=_("Draw from the bag"),
            task=_("Draw your next building blind from the bag."),
            rule=_("After the first draw from the market, each further draw may come blind "
                   "from the bag: only you see what you drew."),
            done=_("Nobody else knows that building until you build it face up."),
            position=_at(7),
            expect=({"type": "draw_bag"},),
            hints=(Hint({"type": "draw_market"}, _(
                "Allowed, but everyone sees what you take from the market: this step asks "
                "for a blind draw from the bag.")),),
        ),
        Step(
            key="scoring",
            title=_("Score a line"),
            task=_("Later in the game: build a building that completes a row or a column of "
                   "your village."),
            rule=_("Only completed rows and columns score: a row its cost (6 to 1 from the "
                   "top), a column 5, 4, 3, 4 or 5; doubled when every building in it is "
                   "face up. Buildings left in hand score nothing."),
            done=_("Your score went up by the value of the completed line. Most points at "
                   "the end wins."),
            position=play_until("standard", 2, _SEED, _builds_first, _scoring_position),
            goal=_completes_a_line,
            hints=(
                Hint({"type": "build"}, _(
                    "That building completes no row or column, so it scores nothing yet: "
                    "look for a line with a single empty space.")),
                Hint({"type": "end_build"}, _(
                    "You can still complete a line with this build: do it before you end.")),
            ),
        ),
    ),
)
