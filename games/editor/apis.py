"""The rules editor's API for scripts (staff only), mounted at ``/api/editor/``.

``GET/POST variants/``, ``GET/PUT variants/{id}/draft/``, ``POST/GET
variants/{id}/simulate/``, ``POST variants/{id}/publish/``.  Everyone who is not staff
gets 403 (401 without credentials).  Every error is ``{"detail", "code", "errors"?}``;
bad variant data is a 422 whose ``errors`` map field paths (``village.row_costs[3]``) to
messages, and whose ``detail`` names them too.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api.base import PARSERS
from games.core.errors import GameServiceError
from games.editor import selectors, services
from games.engines import engine_names
from games.models import Variant, VariantVersion
from games.variants import selectors as variant_selectors
from games.variants import services as variants

# --- serializers ---------------------------------------------------------------------------------


class EditorErrorOutput(serializers.Serializer):
    detail = serializers.CharField()
    code = serializers.CharField()
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), required=False,
        help_text="Messages by field path (variant data) or by request field.",
    )


class VersionItem(serializers.Serializer):
    number = serializers.IntegerField(allow_null=True, help_text="null for the draft")
    status = serializers.ChoiceField(choices=VariantVersion.Status.choices)
    origin = serializers.ChoiceField(choices=VariantVersion.Origin.choices)
    published_at = serializers.DateTimeField(allow_null=True)
    retired = serializers.BooleanField()
    note = serializers.CharField(allow_blank=True)


class VariantItem(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    name = serializers.CharField()
    active = serializers.BooleanField()
    is_default = serializers.BooleanField()
    current_version = serializers.IntegerField(
        allow_null=True, help_text="the version new tables get")
    has_draft = serializers.BooleanField()
    versions = VersionItem(many=True)


class VariantCreateInput(serializers.Serializer):
    game = serializers.ChoiceField(choices=[])
    name = serializers.SlugField(max_length=64)
    data = serializers.JSONField(required=False, help_text="default: the game's standard")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = engine_names()


class DraftInput(serializers.Serializer):
    data = serializers.JSONField(help_text="the whole variant data (a JSON object)")
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class SimulationOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    progress = serializers.DictField(child=serializers.IntegerField(),
                                     help_text="{done, total} games")
    passed = serializers.BooleanField()
    error = serializers.CharField(allow_null=True)
    report = serializers.JSONField(allow_null=True, help_text=(
        "when done: {games, completed, seconds, bots, seed, errors, by_players: "
        "{count: simulation report}}"))


class DraftOutput(serializers.Serializer):
    variant = serializers.IntegerField()
    based_on = serializers.IntegerField(allow_null=True)
    data = serializers.JSONField()
    updated_at = serializers.DateTimeField()
    publishable = serializers.BooleanField()
    blocker = serializers.CharField(allow_blank=True, help_text="why it cannot be published")
    simulation = SimulationOutput(allow_null=True)


class SimulateInput(serializers.Serializer):
    games = serializers.IntegerField(min_value=1, max_value=1000)
    bots = serializers.ListField(child=serializers.CharField(), min_length=1, max_length=8,
                                 help_text="one bot for all seats, or one per seat: random, "
                                           "greedy, easy, normal, hard")
    players = serializers.JSONField(required=False, help_text=(
        "a player count or a list of them (default: every count the variant supports)"))
    seed = serializers.IntegerField(required=False, min_value=0)


class PublishInput(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


def variant_item(variant: Variant) -> dict:
    versions = list(variant.versions.order_by("-status", "-number"))
    current = next((v for v in versions if not v.is_draft and v.retired_at is None), None)
    return {
        "id": variant.pk, "game": variant.game, "name": variant.name,
        "active": variant.active, "is_default": variant.is_default,
        "current_version": current.number if current else None,
        "has_draft": any(v.is_draft for v in versions),
        "versions": [version_item(v) for v in versions],
    }


def version_item(v: VariantVersion) -> dict:
    return {"number": v.number, "status": v.status, "origin": v.origin,
            "published_at": v.published_at, "retired": v.retired_at is not None,
            "note": v.note}


ERRORS = {
    400: OpenApiResponse(EditorErrorOutput, description="malformed request"),
    401: OpenApiResponse(EditorErrorOutput, description="no credentials"),
    403: OpenApiResponse(EditorErrorOutput, description="not staff"),
    404: OpenApiResponse(EditorErrorOutput, description="no such variant"),
}


# --- views ---------------------------------------------------------------------------------------


def _flatten(data: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested validation errors as ``{"field.sub": [messages]}``."""
    if isinstance(data, dict):
        out: dict[str, list[str]] = {}
        for key, value in data.items():
            out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(data, list) and data and all(isinstance(x, str) for x in data):
        return {prefix or "request": [str(x) for x in data]}
    if isinstance(data, list):
        out = {}
        for i, value in enumerate(data):
            out.update(_flatten(value, f"{prefix}[{i}]"))
        return out
    return {prefix or "request": [str(data)]}


class EditorApi(APIView):
    """Staff only; every error as ``{"detail", "code", "errors"?}``."""

    permission_classes = [IsAdminUser]
    parser_classes = PARSERS

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, GameServiceError):
            body: dict[str, Any] = {"detail": str(exc), "code": exc.code}
            if getattr(exc, "errors", None):
                body["errors"] = exc.errors
            return Response(body, status=exc.status_code)
        response = super().handle_exception(exc)
        if isinstance(exc, ValidationError):
            errors = _flatten(exc.detail)
            detail = "; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items())
            response.data = {"detail": detail or _("Invalid request."), "code": "invalid",
                             "errors": errors}
        elif isinstance(exc, APIException) and isinstance(response.data, dict):
            codes = exc.get_codes()
            response.data = {
                "detail": str(response.data.get("detail", exc.detail)),
                "code": codes if isinstance(codes, str) else exc.default_code,
            }
        return response

    def variant(self, variant_id: int) -> Variant:
        variant = get_object_or_404(Variant, pk=variant_id)
        variants.ensure_versions(variant=variant)
        return variant


class VariantsApi(EditorApi):
    """``GET /api/editor/variants/``: every variant with its versions;
    ``POST``: a new variant holding a draft."""

    @extend_schema(responses={200: VariantItem(many=True), **ERRORS}, tags=["editor"])
    def get(self, request: Request) -> Response:
        variants = Variant.objects.prefetch_related("versions").order_by("game", "name")
        return Response(VariantItem([variant_item(v) for v in variants], many=True).data)

    @extend_schema(request=VariantCreateInput,
                   responses={201: VariantItem, 409: EditorErrorOutput,
                              422: EditorErrorOutput, **ERRORS}, tags=["editor"])
    def post(self, request: Request) -> Response:
        data = VariantCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        variant = variants.create_variant(
            game=data.validated_data["game"], name=data.validated_data["name"],
            data=data.validated_data.get("data"), user=request.user,
            origin=VariantVersion.Origin.API)
        return Response(VariantItem(variant_item(variant)).data, status=status.HTTP_201_CREATED)


def draft_document(variant: Variant, draft: VariantVersion) -> dict:
    blocker = services.publish_blocker(draft)
    return {
        "variant": variant.pk,
        "based_on": draft.based_on.number if draft.based_on else None,
        "data": draft.data,
        "updated_at": draft.updated_at,
        "publishable": not blocker,
        "blocker": blocker,
        "simulation": selectors.simulation_summary(selectors.latest_simulation(draft)),
    }


class DraftApi(EditorApi):
    """``GET /api/editor/variants/{id}/draft/``: the draft; ``PUT``: replace its data
    (the draft is started from the current version when there is none)."""

    @extend_schema(responses={200: DraftOutput, **ERRORS}, tags=["editor"])
    def get(self, request: Request, variant_id: int) -> Response:
        variant = self.variant(variant_id)
        draft = variant_selectors.draft_of(variant)
        if draft is None:
            return Response({"detail": _("This variant has no draft."), "code": "no_draft"},
                            status=status.HTTP_404_NOT_FOUND)
        return Response(DraftOutput(draft_document(variant, draft)).data)

    @extend_schema(request=DraftInput,
                   responses={200: DraftOutput,
                              422: OpenApiResponse(EditorErrorOutput, description=(
                                  "the data is refused; errors by field path")),
                              **ERRORS}, tags=["editor"])
    def put(self, request: Request, variant_id: int) -> Response:
        variant = self.variant(variant_id)
        data = DraftInput(data=request.data)
        data.is_valid(raise_exception=True)
        draft = services.save_draft(variant=variant, data=data.validated_data["data"],
                                    user=request.user, origin=VariantVersion.Origin.API,
                                    note=data.validated_data.get("note", ""))
        return Response(DraftOutput(draft_document(variant, draft)).data)


class SimulateApi(EditorApi):
    """``POST /api/editor/variants/{id}/simulate/``: simulate the draft (202);
    ``GET``: the newest simulation of the draft."""

    @extend_schema(request=SimulateInput,
                   responses={202: SimulationOutput, 409: EditorErrorOutput, **ERRORS},
                   tags=["editor"])
    def post(self, request: Request, variant_id: int) -> Response:
        variant = self.variant(variant_id)
        data = SimulateInput(data=request.data)
        data.is_valid(raise_exception=True)
        sim = services.request_simulation(
            variant=variant, user=request.user, games=data.validated_data["games"],
            bots=data.validated_data["bots"], players=data.validated_data.get("players"),
            seed=data.validated_data.get("seed"))
        sim.refresh_from_db()
        return Response(SimulationOutput(selectors.simulation_summary(sim)).data,
                        status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: SimulationOutput, **ERRORS}, tags=["editor"])
    def get(self, request: Request, variant_id: int) -> Response:
        variant = self.variant(variant_id)
        services.expire_stale_simulations(variant=variant)
        draft = variant_selectors.draft_of(variant)
        sim = selectors.latest_simulation(draft)
        if sim is None:
            return Response({"detail": _("The draft has not been simulated."),
                             "code": "no_simulation"}, status=status.HTTP_404_NOT_FOUND)
        return Response(SimulationOutput(selectors.simulation_summary(sim)).data)


class PublishApi(EditorApi):
    """``POST /api/editor/variants/{id}/publish/``: the draft becomes the next version
    (409 without a passing simulation of the draft as it is now)."""

    @extend_schema(request=PublishInput,
                   responses={200: VersionItem,
                              409: OpenApiResponse(EditorErrorOutput, description=(
                                  "no draft, or no passing simulation of it")),
                              422: EditorErrorOutput, **ERRORS}, tags=["editor"])
    def post(self, request: Request, variant_id: int) -> Response:
        variant = self.variant(variant_id)
        data = PublishInput(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.publish_draft(variant=variant, user=request.user,
                                         note=data.validated_data.get("note", ""))
        return Response(VersionItem(version_item(version)).data)
