"""Reads of the variants: the ones a new table may use, versions, exports."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, QuerySet

from games.models import Variant, VariantVersion

#: The format of an exported variant (``export_document``).
EXPORT_FORMAT = "colonia-variant/1"


def active_variants(*, game: str | None = None) -> QuerySet[Variant]:
    """Variants a new table may use, optionally of one game, ordered by game then name.

    Active variants with a published version that is not retired (a variant made
    outside the editor, with no versions yet, gets its data as version 1 when used).
    """
    versions = VariantVersion.objects.filter(variant=OuterRef("pk"))
    playable = versions.filter(
        status=VariantVersion.Status.PUBLISHED, retired_at__isnull=True
    )
    variants = Variant.objects.filter(active=True).filter(Exists(playable) | ~Exists(versions))
    if game is not None:
        variants = variants.filter(game=game)
    return variants.order_by("game", "name")


def current_version(variant: Variant) -> VariantVersion | None:
    """The newest published version that is not retired (what new tables get)."""
    return (
        variant.versions.filter(status=VariantVersion.Status.PUBLISHED, retired_at__isnull=True)
        .order_by("-number")
        .first()
    )



def draft_of(variant: Variant) -> VariantVersion | None:
    return variant.versions.filter(status=VariantVersion.Status.DRAFT).first()



def export_document(version: VariantVersion) -> dict:
    """A version as a self-describing JSON document (import takes it back)."""
    variant = version.variant
    return {
        "format": EXPORT_FORMAT,
        "game": variant.game,
        "variant": variant.name,
        "version": version.number,
        "status": version.status,
        "published_at": version.published_at.isoformat() if version.published_at else None,
        "data": version.data,
    }

