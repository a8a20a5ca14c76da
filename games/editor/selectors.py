"""Read-only queries of the rules editor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Prefetch, QuerySet

from common.jsondata import digest
from games.engines import engine_names, get_engine
from games.models import Game, Simulation, Variant, VariantChange, VariantVersion
from games.variants.selectors import current_version, draft_of
from games.variants.services import engine_of, problems_of

__all__ = [
    "GameVariants",
    "current_version",
    "draft_of",
    "editor_index",
    "latest_simulation",
    "published_report",
    "variant_history",
    "version_by_label",
    "versions_of",
]


@dataclass
class GameVariants:
    """One game and its variants for the editor's index."""

    name: str
    title: str
    variants: list[Variant] = field(default_factory=list)


def _title(game: str) -> str:
    engine = get_engine(game)
    return str(getattr(engine, "title", "") or game)


def variants_with_versions() -> QuerySet[Variant]:
    """Every variant with its versions prefetched (newest first)."""
    return Variant.objects.prefetch_related(
        Prefetch("versions", queryset=VariantVersion.objects.order_by("-status", "-number")
                 .defer("data"))
    ).order_by("game", "name")


def editor_index() -> list[GameVariants]:
    """Every registered game with all its variants (active or retired)."""
    by_game: dict[str, GameVariants] = {
        name: GameVariants(name, _title(name)) for name in engine_names()
    }
    for variant in variants_with_versions():
        if variant.game in by_game:
            versions = list(variant.versions.all())
            variant.draft = next((v for v in versions if v.is_draft), None)
            published = [v for v in versions if not v.is_draft]
            variant.published = published
            variant.current = next((v for v in published if v.retired_at is None), None)
            by_game[variant.game].variants.append(variant)
    return list(by_game.values())


def versions_of(variant: Variant) -> list[VariantVersion]:
    """The variant's versions, the draft first, then newest published first, with the
    number of games pinned to each."""
    return list(
        variant.versions.annotate(game_count=Count("games"))
        .select_related("created_by", "published_by")
        .order_by("-status", "-number")
    )


def version_by_label(variant: Variant, label: str) -> VariantVersion | None:
    """``"3"`` -> version 3, ``"draft"`` -> the draft."""
    if label == "draft":
        return draft_of(variant)
    try:
        number = int(label)
    except (TypeError, ValueError):
        return None
    return variant.versions.filter(number=number).first()


def latest_simulation(version: VariantVersion | None) -> Simulation | None:
    if version is None:
        return None
    return version.simulations.order_by("-created_at", "-id").first()


def published_report(variant: Variant, like: Simulation | None = None,
                     ) -> tuple[VariantVersion | None, Simulation | None, Simulation | None]:
    """The current published version, its newest finished simulation to compare with
    (preferably with the same bots as ``like``) and one still running, if any."""
    version = current_version(variant)
    if version is None:
        return None, None, None
    sims = version.simulations.order_by("-created_at", "-id")
    done = sims.filter(status=Simulation.Status.DONE)
    sim = (done.filter(bots=like.bots).first() if like is not None else None) or done.first()
    running = sims.filter(status__in=[Simulation.Status.QUEUED,
                                      Simulation.Status.RUNNING]).first()
    return version, sim, running


def simulation_is_current(sim: Simulation | None, version: VariantVersion | None) -> bool:
    """Whether ``sim`` simulated ``version``'s data as it is now."""
    return bool(sim and version and sim.digest == digest(version.data))


def variant_history(variant: Variant, *, limit: int = 200) -> list[VariantChange]:
    return list(variant.changes.select_related("user").order_by("-created_at", "-id")[:limit])


def games_on(version: VariantVersion, *, limit: int = 50) -> list[Game]:
    """Games pinned to ``version``, newest first."""
    return list(version.games.order_by("-created_at").defer("state_json", "variant_data")[:limit])


def version_problems(version: VariantVersion) -> list[str]:
    """What the current engine says about a stored version ([] when it still plays)."""
    return problems_of(engine_of(version.variant.game), version.data)


def rule_data_of(game: str, data: dict) -> dict | None:
    """The engine's rule data for previews (``None`` when it has none or refuses)."""
    try:
        return get_engine(game).rule_data(data)
    except Exception:
        return None


def simulation_summary(sim: Simulation | None) -> dict[str, Any] | None:
    """``{id, status, progress: {done, total}, report}`` for the API."""
    if sim is None:
        return None
    return {
        "id": sim.pk,
        "status": sim.status,
        "progress": {"done": sim.done, "total": sim.games},
        "passed": sim.passed,
        "error": sim.error or None,
        "report": sim.report,
    }
