"""The public REST API (Django REST framework): thin views over services and selectors.

Errors of the services come back as ``{"detail": message, "code": code}`` (plus the
current ``version`` when known) with the error's status: 403 not your seat, 409 stale
version / not your turn / not running / key conflict / table full, 422 illegal move.
"""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from accounts.client_ip import client_key
from accounts.ratelimit import cache_failed
from games import analysis, clocks, replays, selectors, services
from games.api_errors import backend_unavailable
from games.boards import get_board
from games.engines import EngineError, get_engine
from games.models import AI_LEVELS, Game, Variant
from games.parsers import SafeJSONParser
from games.selectors import active_variants

# --- parsing and throttling -----------------------------------------------------------------

PARSERS = [SafeJSONParser, FormParser, MultiPartParser]


class ClientAddressThrottle(ScopedRateThrottle):
    """A scoped throttle keyed by the user, or by the client's address for anonymous
    requests -- the address from the one rule of ``accounts.client_ip`` (a client cannot
    choose it with a fresh ``X-Forwarded-For``).

    The counters live in the cache (Redis): when it fails, the throttle fails *open*
    and says so in the log, rather than turning every request into a 500.
    """

    def get_ident(self, request):
        return client_key(request)

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception as exc:
            if not backend_unavailable(exc):
                raise
            cache_failed("an API throttle", exc)
            return True


# --- serializers ----------------------------------------------------------------------------


class VariantOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    title = serializers.CharField(help_text="the game's display name")
    name = serializers.CharField()
    description = serializers.CharField(help_text="the variant's description")
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    browser = serializers.BooleanField(help_text="whether the web pages can show this game")


class ErrorOutput(serializers.Serializer):
    """Every API error: a message, a stable code, field errors for invalid input."""

    detail = serializers.CharField()
    code = serializers.CharField()
    errors = serializers.DictField(
        required=False, help_text="Invalid input: the messages by field name."
    )
    version = serializers.IntegerField(
        required=False, help_text="The game's current version (refetch on a 409)."
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="Throttled: seconds to wait before trying again."
    )


class CredentialsInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()


class SeatInput(serializers.Serializer):
    type = serializers.ChoiceField(choices=["human", "ai"])
    level = serializers.ChoiceField(choices=list(AI_LEVELS), required=False, default="normal")


class TimeControlInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Game.Clock.values, default=Game.Clock.NONE)
    reserve = serializers.IntegerField(
        required=False, min_value=clocks.MIN_RESERVE, max_value=clocks.MAX_RESERVE,
        help_text="live: the seconds each player starts with",
    )
    increment = serializers.IntegerField(
        required=False, min_value=0, max_value=clocks.MAX_INCREMENT,
        help_text="live: seconds added when a player's turn ends (Fischer)",
    )
    days = serializers.IntegerField(
        required=False, min_value=clocks.MIN_DAYS, max_value=clocks.MAX_DAYS,
        help_text="correspondence: days per move",
    )


class GameCreateInput(serializers.Serializer):
    variant = serializers.IntegerField()
    seats = SeatInput(many=True, allow_empty=False)
    rated = serializers.BooleanField(
        required=False, default=False,
        help_text="A rated table changes its players' ratings when it ends (AI seats count).",
    )
    time_control = TimeControlInput(
        required=False, help_text="none (default), live or correspondence"
    )
    departure_rule = serializers.ChoiceField(
        choices=Game.DepartureRule.values, default=Game.DepartureRule.AI,
        help_text="ai: the AI takes the seat of a player who resigns or runs out of time; "
        "lose: that player loses, and the game ends when one person is left",
    )
    takeover_level = serializers.ChoiceField(
        choices=list(AI_LEVELS), default="normal", help_text="the AI level that takes a seat"
    )


class JoinInput(serializers.Serializer):
    seat = serializers.IntegerField(required=False, allow_null=True, min_value=0)


class ActionField(serializers.JSONField):
    """The action JSON: at most ``services.MAX_ACTION_BYTES`` (else 413, as the play page),
    and never a 500 on deep nesting (a form-encoded action is a string parsed here)."""

    def to_internal_value(self, data):
        if isinstance(data, str | bytes) and len(data) > services.MAX_ACTION_BYTES:
            raise services.ActionTooLarge()
        try:
            value = super().to_internal_value(data)
        except RecursionError:
            raise services.ActionTooLarge() from None
        services.check_action_size(value)
        return value


class ActionInput(serializers.Serializer):
    action = ActionField(help_text="The action as the engine's JSON notation.")
    version = serializers.IntegerField(min_value=0)
    key = serializers.CharField(
        max_length=64,
        help_text="A fresh idempotency key per action (keys starting with ai- are reserved).",
    )


class ClockOutput(serializers.Serializer):
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="when the seat runs out of time (while it is to move)")
    time_left = serializers.FloatField(allow_null=True, help_text="seconds left now")


class LeftOutput(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    reason = serializers.ChoiceField(choices=["resigned", "timeout", "handover"])


class SeatOutput(serializers.Serializer):
    index = serializers.IntegerField()
    type = serializers.ChoiceField(choices=["human", "ai"])
    username = serializers.CharField(allow_null=True)
    level = serializers.CharField(allow_null=True)
    clock = ClockOutput(allow_null=True, required=False)
    left = LeftOutput(allow_null=True, required=False,
                      help_text="the person the AI replaced in this seat, and why")


class TimeControlOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Game.Clock.values)
    reserve = serializers.IntegerField()
    increment = serializers.IntegerField()
    days = serializers.IntegerField()


class GameDocumentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    variant = serializers.CharField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    seats = SeatOutput(many=True)
    to_move = serializers.ListField(child=serializers.IntegerField())
    my_seat = serializers.IntegerField(allow_null=True)
    view = serializers.JSONField(help_text="engine.observe for your seat (spectator otherwise)")
    legal_actions = serializers.ListField(child=serializers.JSONField())
    result = serializers.JSONField(allow_null=True, help_text="{scores, winners} once finished")
    rated = serializers.BooleanField(help_text="whether the result changes ratings")
    time_control = TimeControlOutput()
    departure_rule = serializers.ChoiceField(choices=Game.DepartureRule.values)
    takeover_level = serializers.CharField()


class MoveOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    event = serializers.JSONField(allow_null=True, help_text="the engine's event (JSON data)")
    description = serializers.CharField(help_text="legacy text of old moves; empty for events")
    created_at = serializers.DateTimeField()
    action = serializers.JSONField(
        required=False, help_text="Only for the seat that made it, or once the game is over."
    )


ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="malformed request"),
    401: OpenApiResponse(ErrorOutput, description="not signed in (send a token)"),
    403: OpenApiResponse(ErrorOutput, description="not your seat"),
    404: OpenApiResponse(ErrorOutput, description="no such game"),
    409: OpenApiResponse(ErrorOutput, description="stale version, not your turn, not running"),
}


# --- base -----------------------------------------------------------------------------------


class GameApi(APIView):
    """The API's base view; errors take one shape in ``games.api_errors``."""

    parser_classes = PARSERS

    def get_authenticate_header(self, request: Request) -> str:
        """Always a challenge, so a refused log-in is a 401 (as documented), never a 403."""
        return super().get_authenticate_header(request) or 'Token realm="api"'

    def get_game(self, game_id: int) -> Game:
        try:
            return selectors.get_game(game_id)
        except Game.DoesNotExist:
            raise Http404(_("No such game.")) from None

    def document(self, game_id: int, request: Request) -> dict:
        """The fresh game document for the caller."""
        return selectors.game_document(self.get_game(game_id), request.user)


# --- auth -----------------------------------------------------------------------------------


class RegisterApi(GameApi):
    """``POST /api/auth/register/``: create an account, get its API token."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "register"

    @extend_schema(
        request=CredentialsInput,
        responses={201: TokenOutput, 400: ErrorOutput, 429: ErrorOutput},
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = CredentialsInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            user = services.register_user(**data.validated_data)
        except services.RegistrationError as exc:
            return Response(
                {"detail": str(exc), "code": exc.code, "errors": exc.errors},
                status=status.HTTP_400_BAD_REQUEST,
            )
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key}, status=status.HTTP_201_CREATED)


class TokenApi(GameApi):
    """``POST /api/auth/token/``: exchange a username and password for the API token."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    # Per address, across usernames (django-axes locks one username + address pair).
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "token"

    @extend_schema(
        request=CredentialsInput,
        responses={200: TokenOutput, 400: ErrorOutput, 401: ErrorOutput, 429: ErrorOutput},
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = CredentialsInput(data=request.data)
        data.is_valid(raise_exception=True)
        # The HttpRequest lets django-axes count failures and lock out guessers.
        user = authenticate(request._request, **data.validated_data)
        if user is None or not user.is_active:
            raise AuthenticationFailed(_("Wrong username or password."))
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


# --- variants and games ---------------------------------------------------------------------


class VariantListApi(GameApi):
    """``GET /api/variants/``: every active variant of every game."""

    permission_classes = [AllowAny]
    serializer_class = VariantOutput

    @extend_schema(responses=VariantOutput(many=True), tags=["games"])
    def get(self, request: Request) -> Response:
        rows = []
        for variant in active_variants():
            engine = get_engine(variant.game)
            try:
                description = selectors.rule_data(variant.game, variant.data)["description"]
            except (EngineError, KeyError, TypeError, ValueError):
                description = ""
            rows.append(
                {
                    "id": variant.id,
                    "game": variant.game,
                    "title": selectors.game_title(variant.game),
                    "name": variant.name,
                    "description": description,
                    "min_players": engine.min_players,
                    "max_players": engine.max_players,
                    "browser": get_board(variant.game) is not None,
                }
            )
        return Response(VariantOutput(rows, many=True).data)


class GameCreateApi(GameApi):
    """``POST /api/games/``: open a table; you sit in seat 0."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=GameCreateInput,
        responses={201: GameDocumentOutput, 400: ErrorOutput, 401: ErrorOutput},
        tags=["games"],
    )
    def post(self, request: Request) -> Response:
        data = GameCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        variant = Variant.objects.filter(pk=data.validated_data["variant"], active=True).first()
        if variant is None:
            raise services.VariantUnavailable()
        options = data.validated_data
        game = services.create_game(
            creator=request.user, variant=variant, seats=options["seats"],
            rated=options["rated"], time_control=options.get("time_control"),
            departure_rule=options["departure_rule"], takeover_level=options["takeover_level"],
        )
        return Response(self.document(game.pk, request), status=status.HTTP_201_CREATED)


class GameDetailApi(GameApi):
    """``GET /api/games/{id}/``: the game as you may see it."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: GameDocumentOutput, 404: ErrorOutput}, tags=["games"])
    def get(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)
        if game.clock != Game.Clock.NONE and game.status == Game.Status.RUNNING \
                and services.apply_timeouts(game=game):
            game = self.get_game(game_id)  # a seat ran out of time: the table's rule applied
        services.nudge_if_stalled(game=game)  # a lost AI turn resumes for API clients too
        return Response(selectors.game_document(game, request.user))


class GameJoinApi(GameApi):
    """``POST /api/games/{id}/join/``: take a seat (the first free one by default)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=JoinInput, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        data = JoinInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_game(game_id)
        services.join_game(game=game, user=request.user, seat=data.validated_data.get("seat"))
        return Response(self.document(game_id, request))


class GameLeaveApi(GameApi):
    """``POST /api/games/{id}/leave/``: leave before the start (the creator aborts it)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        services.leave_game(game=self.get_game(game_id), user=request.user)
        return Response(self.document(game_id, request))


class GameResignApi(GameApi):
    """``POST /api/games/{id}/resign/``: resign (you lose; the table's rule decides whether
    the AI plays your seat on or the game ends when one person is left)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        services.resign_game(game=self.get_game(game_id).pk, user=request.user)
        return Response(self.document(game_id, request))


class GameHandOverApi(GameApi):
    """``POST /api/games/{id}/handover/``: leave; the AI plays your seat on (a loss for
    you in a rated game)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        services.hand_over_seat(game=self.get_game(game_id).pk, user=request.user)
        return Response(self.document(game_id, request))


class GameActionApi(GameApi):
    """``POST /api/games/{id}/actions/``: act for your seat at ``version``.

    A repeated ``key`` returns the current document and changes nothing.
    """

    permission_classes = [IsAuthenticated]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "moves"

    @extend_schema(
        request=ActionInput,
        responses={
            200: GameDocumentOutput,
            **ERRORS,
            413: OpenApiResponse(ErrorOutput, description="action over 4 KB of JSON"),
            422: OpenApiResponse(ErrorOutput, description="illegal action (engine's message)"),
            429: ErrorOutput,
        },
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = ActionInput(data=request.data)
        data.is_valid(raise_exception=True)
        # The seat alone (submit_action reads and locks the game itself).
        seat = selectors.seat_index(game_id, request.user)
        if seat is None:
            self.get_game(game_id)  # a 404 for a game that does not exist
            raise services.NotSeated(_("You are not seated at this table."))
        services.submit_action(game=game_id, user=request.user, seat=seat, **data.validated_data)
        return Response(self.document(game_id, request))


class GameMovesApi(GameApi):
    """``GET /api/games/{id}/moves/``: the move log as you may see it."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: MoveOutput(many=True), 404: ErrorOutput}, tags=["games"])
    def get(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)
        return Response(selectors.move_log(game, selectors.seat_of(game, request.user)))



# --- replays and export ---------------------------------------------------------------------


class ReplayOutput(serializers.Serializer):
    step = serializers.IntegerField(help_text="moves folded: 0 is the deal, `steps` the last")
    steps = serializers.IntegerField(help_text="moves made so far")
    seat = serializers.IntegerField(
        allow_null=True, help_text="the seat whose view this is; null for spectator and all"
    )
    perspective = serializers.ChoiceField(choices=["seat", "spectator", "revealed"])
    view = serializers.JSONField(
        help_text="engine.observe for the perspective at that step (engine.reveal for all)"
    )
    event = serializers.JSONField(
        allow_null=True, help_text="the event of the move that led to this step"
    )
    seed = serializers.IntegerField(
        allow_null=True, help_text="the game's seed: only in the revealed perspective"
    )


class ExportActionOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = serializers.JSONField(
        allow_null=True,
        help_text="the engine's JSON of the action; null for other seats' moves while the "
                  "game runs",
    )
    event = serializers.JSONField(allow_null=True)


class ExportOutput(serializers.Serializer):
    format = serializers.IntegerField(help_text="version of this document (1)")
    id = serializers.IntegerField()
    game = serializers.CharField(help_text="the engine's name")
    variant_name = serializers.CharField()
    variant = serializers.JSONField(help_text="the variant snapshot the game was played with")
    players = serializers.IntegerField(help_text="the player count")
    seats = SeatOutput(many=True)
    seed = serializers.IntegerField(allow_null=True, help_text="finished games only; null before")
    actions = ExportActionOutput(many=True)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    result = serializers.JSONField(allow_null=True, help_text="{scores, winners} once finished")


REPLAY_PARAMETERS = [
    OpenApiParameter(
        "step", int, OpenApiParameter.QUERY, required=False,
        description="0 (the deal) to the number of moves; the last step by default",
    ),
    OpenApiParameter(
        "seat", str, OpenApiParameter.QUERY, required=False,
        description="a seat number, `spectator` or `all` (everything revealed). During a "
                    "game only your own seat (players) or `spectator` (everyone else); any "
                    "after the end. Default: your seat, else spectator.",
    ),
]

REPLAY_ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="malformed step or seat"),
    403: OpenApiResponse(ErrorOutput, description="a perspective you may not take now"),
    404: OpenApiResponse(ErrorOutput, description="no such game"),
    409: OpenApiResponse(ErrorOutput, description="the game has not started"),
}


class GameReplayApi(GameApi):
    """``GET /api/games/{id}/replay/?step=K&seat=S``: one step of the game from one
    perspective, with the access rules of the replay page."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=REPLAY_PARAMETERS,
                   responses={200: ReplayOutput, **REPLAY_ERRORS}, tags=["replays"])
    def get(self, request: Request, game_id: int) -> Response:
        step = replays.replay_step(self.get_game(game_id), request.user,
                                   step=request.query_params.get("step"),
                                   seat=request.query_params.get("seat"))
        return Response(step.api_document())


class GameExportApi(GameApi):
    """``GET /api/games/{id}/export/``: the game as JSON (variant snapshot, seats, seed once
    finished, actions); ``python -m tools.replay FILE`` replays it."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: ExportOutput, 404: REPLAY_ERRORS[404],
                              409: REPLAY_ERRORS[409]}, tags=["replays"])
    def get(self, request: Request, game_id: int) -> Response:
        document = replays.export_document(self.get_game(game_id), request.user)
        response = Response(document)
        response["Content-Disposition"] = f'attachment; filename="game-{game_id}.json"'
        return response
# --- post-game analysis ---------------------------------------------------------------------


class AnalysisInput(serializers.Serializer):
    rerun = serializers.BooleanField(
        required=False, default=False,
        help_text="Start a finished (or failed) analysis over; otherwise it is reused.",
    )


class AnalysisMoveOutput(serializers.Serializer):
    step = serializers.IntegerField(help_text="moves made before this one (the replay step)")
    seat = serializers.IntegerField()
    played = serializers.JSONField(help_text="the move played (engine notation)")
    best = serializers.JSONField(help_text="the best move the search found")
    value_played = serializers.FloatField(help_text="win probability of the move played")
    value_best = serializers.FloatField(help_text="win probability of the best move")
    loss = serializers.FloatField()
    mark = serializers.ChoiceField(
        choices=["inaccuracy", "mistake", "blunder"], allow_null=True,
        help_text="loss of at least 0.05 / 0.10 / 0.20 win probability")
    forced = serializers.BooleanField(help_text="the only legal move (not judged)")
    chance = serializers.BooleanField(help_text="the move drew something the mover could "
                                                "not foresee")
    win = serializers.ListField(child=serializers.FloatField(),
                                help_text="every seat's win chance after the move")
    luck = serializers.ListField(child=serializers.FloatField(),
                                 help_text="every seat's change of win chance on the draw")
    choices = serializers.IntegerField(help_text="legal moves the mover had")


class AnalysisSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    decisions = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True, help_text="0-100")
    inaccuracy = serializers.IntegerField()
    mistake = serializers.IntegerField()
    blunder = serializers.IntegerField()
    luck = serializers.FloatField(help_text="sum of the seat's win-chance changes on draws")
    draws = serializers.IntegerField()


class AnalysisOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    progress = serializers.FloatField(help_text="from 0 to 1")
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    budget = serializers.JSONField(help_text="{iterations, samples, worlds}")
    moves = AnalysisMoveOutput(many=True)
    summary = AnalysisSeatOutput(many=True, allow_null=True, help_text="once done")


class GameAnalysisApi(GameApi):
    """``/api/games/{id}/analysis/``: the post-game analysis of a finished game.

    ``POST`` (a player of the game, or staff) queues it: 202, or 200 with the stored
    analysis when it is already done (``rerun`` starts it over).  ``GET`` (anyone who may
    see the replay) gives its status, progress and the moves judged so far.
    """

    permission_classes = [AllowAny]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "analysis"

    def get_permissions(self):
        if self.request.method == "POST":
            return [IsAuthenticated()]
        return super().get_permissions()

    def get_throttles(self):
        if self.request.method == "POST":
            return super().get_throttles()
        return []

    @extend_schema(
        responses={200: AnalysisOutput,
                   404: OpenApiResponse(ErrorOutput, description="no such game, or not "
                                        "analysed yet (code not_analysed)")},
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:

        game = self.get_game(game_id)
        found = analysis.get_analysis(game)
        if found is None:
            raise analysis.NotAnalysed()
        analysis.nudge_if_stalled(found)  # a lost chunk resumes for readers too
        return Response(analysis.analysis_document(found))

    @extend_schema(
        request=AnalysisInput,
        responses={
            200: AnalysisOutput,
            202: AnalysisOutput,
            400: ErrorOutput,
            401: ErrorOutput,
            403: OpenApiResponse(ErrorOutput, description="not a player of this game"),
            404: ErrorOutput,
            409: OpenApiResponse(ErrorOutput, description="the game has not ended"),
            429: ErrorOutput,
        },
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:

        data = AnalysisInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_game(game_id)
        found, queued = analysis.request_analysis(game=game, user=request.user,
                                                  rerun=data.validated_data["rerun"])
        found.refresh_from_db()
        code = status.HTTP_202_ACCEPTED if queued or not found.finished else status.HTTP_200_OK
        return Response(analysis.analysis_document(found), status=code)
