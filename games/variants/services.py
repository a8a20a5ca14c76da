"""Writes of the variants: keyword-only, typed, atomic.

A variant is a series of immutable published versions plus at most one draft (the rules
editor, ``games.editor``, works on drafts).  Here: creating, cloning, importing and
exporting variants, retiring them or one of their versions, the shipped defaults, and the
version a new table pins (:func:`version_for_new_game`).  Every write validates with the
engine first and changes nothing when it refuses; every write appends to the change log
(``VariantChange``: who, what, when, field by field).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from common.jsondata import Change, canonical, diff, digest
from games.engines import Engine, InvalidVariant, engine_names, get_engine
from games.models import Variant, VariantChange, VariantVersion
from games.variants.errors import (
    ImportInvalid,
    NoDraft,
    NotPublished,
    UnknownGame,
    VariantDataInvalid,
    VariantNameInvalid,
    VariantNameTaken,
)
from games.variants.selectors import EXPORT_FORMAT, current_version, draft_of

logger = logging.getLogger(__name__)

Origin = VariantVersion.Origin
Action = VariantChange.Action


def save_variant(*, game: str, name: str, data: dict, is_default: bool = False) -> Variant:
    """Create a variant published as version 1, or publish ``data`` as its next version.

    For scripts and tests (no simulation check; the editor's pages and API require one).
    Raises ``InvalidVariant`` (listing every problem by field) and changes nothing when
    the data is not playable; ``KeyError`` for an unknown game.
    """
    get_engine(game)
    try:
        return publish_data(game=game, name=name, data=data, is_default=is_default)
    except VariantDataInvalid as exc:
        raise InvalidVariant(exc.problems) from None


NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


#: The change log keeps at most this many field changes per entry.
MAX_LOGGED_CHANGES = 200


def engine_of(game: str) -> Engine:
    """The engine of ``game``; ``UnknownGame`` otherwise."""
    try:
        return get_engine(game)
    except KeyError:
        raise UnknownGame() from None


def has_name_field(engine: Engine) -> bool:
    """Whether the game's variant data carries its own ``name`` (kept equal to the variant's)."""
    try:
        return "name" in engine.variant_schema().get("properties", {})
    except Exception:
        return False


def problems_of(engine: Engine, data: Any) -> list[str]:
    """The engine's problems with ``data``; an engine that crashes on it is a problem too."""
    if not isinstance(data, dict):
        return [_("(variant): must be a JSON object")]
    try:
        return list(engine.validate_variant(data))
    except Exception as exc:  # garbage the engine did not expect: refuse, never a 500
        logger.warning("validate_variant raised on editor data", exc_info=True)
        return [_("(variant): the engine could not read this data (%(error)s)")
                % {"error": type(exc).__name__}]


def checked_data(*, game: str, data: Any, name: str) -> dict:
    """A validated copy of ``data`` with its ``name`` set to ``name`` (its ``title`` dropped
    when that renames it); ``VariantDataInvalid``."""
    engine = engine_of(game)
    if not isinstance(data, dict):
        raise VariantDataInvalid([_("(variant): must be a JSON object")])
    try:
        data = json.loads(json.dumps(data))  # a private, JSON-only copy (key order kept)
    except (TypeError, ValueError):
        raise VariantDataInvalid([_("(variant): must be JSON data")]) from None
    data = {**data}
    if has_name_field(engine):
        if data.get("name") != name:
            # Renamed (a clone, an import under another name): the display name was the
            # other variant's; this one shows its own name until an admin gives it a title.
            data.pop("title", None)
        data["name"] = name
    problems = problems_of(engine, data)
    if problems:
        raise VariantDataInvalid(problems, game=game)
    return data


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise VariantNameInvalid()
    return name


#: Notes the services write themselves: stored in English, shown in the reader's language
#: (``note_text``); a note someone typed is shown as typed.
SYSTEM_NOTES = [
    gettext_noop("from %(version)s"),
    gettext_noop("Copy of %(source)s %(version)s"),
    gettext_noop("Copied to %(name)s"),
    gettext_noop("Imported"),
]
_NOTE_PATTERNS = [
    (re.compile("^" + re.sub(r"%\\\((\w+)\\\)s", r"(?P<\1>.+?)", re.escape(msgid)) + "$"), msgid)
    for msgid in SYSTEM_NOTES
]


def system_note(msgid: str, **params: Any) -> str:
    """One of ``SYSTEM_NOTES`` with its values, as stored (English)."""
    return msgid % params if params else msgid


def note_text(note: str) -> str:
    """A stored note in the reader's language when the services wrote it, else as typed."""
    for pattern, msgid in _NOTE_PATTERNS:
        match = pattern.match(note or "")
        if match:
            return _(msgid) % match.groupdict() if match.groupdict() else _(msgid)
    return note


def log_change(*, variant: Variant, action: str, user: Any = None,
               version: VariantVersion | None = None, changes: list[Change] | None = None,
               note: str = "", details: list[dict] | None = None) -> VariantChange:
    """Append one entry to the change log."""
    records = [c.as_json() for c in (changes or [])[:MAX_LOGGED_CHANGES]]
    if changes and len(changes) > MAX_LOGGED_CHANGES:
        records.append({"path": "…", "kind": "more", "count": len(changes) - MAX_LOGGED_CHANGES})
    real_user = user if getattr(user, "is_authenticated", False) else None
    return VariantChange.objects.create(
        variant=variant,
        variant_label=str(variant),
        version=version,
        version_label=(f"v{version.number}" if version and version.number else
                       ("draft" if version else "")),
        user=real_user,
        username=real_user.get_username() if real_user else "",
        action=action,
        changes=records + (details or []),
        note=note,
    )


def locked_variant(variant: Variant | int) -> Variant:
    pk = variant if isinstance(variant, int) else variant.pk
    return Variant.objects.select_for_update().get(pk=pk)


def ensure_versions(*, variant: Variant) -> None:
    """Give a variant row made outside the editor (a fixture, a script, the old admin) its
    data as version 1, so it can be played and edited like any other."""
    if variant.pk is None or variant.versions.exists():
        return
    try:
        with transaction.atomic():
            shipped = variant.is_default
            VariantVersion.objects.create(
                variant=variant, number=1, status=VariantVersion.Status.PUBLISHED,
                data=variant.data, origin=Origin.SHIPPED if shipped else Origin.SCRIPT,
                shipped_digest=digest(variant.data) if shipped else "",
                published_at=timezone.now(),
            )
    except IntegrityError:  # another request adopted it first
        pass


def version_for_new_game(variant: Variant) -> VariantVersion | None:
    """The version a new table of ``variant`` gets (``None``: nothing playable)."""
    ensure_versions(variant=variant)
    return current_version(variant)


def sync_current(variant: Variant) -> None:
    """Keep ``Variant.data`` equal to the current version's data."""
    current = current_version(variant)
    if current is not None and variant.data != current.data:
        variant.data = current.data
        variant.save(update_fields=["data", "updated_at"])


def _next_number(variant: Variant) -> int:
    top = variant.versions.aggregate(top=Max("number"))["top"]
    return (top or 0) + 1


def publish_version(version: VariantVersion, *, user: Any, note: str = "") -> VariantVersion:
    version.number = _next_number(version.variant)
    version.status = VariantVersion.Status.PUBLISHED
    version.published_at = timezone.now()
    version.published_by = user if getattr(user, "is_authenticated", False) else None
    if note:
        version.note = note
    version.save()
    return version


def _starter_data(engine: Engine) -> dict:
    defaults = engine.default_variants()
    return defaults.get("standard") or next(iter(defaults.values()))


@transaction.atomic
def create_variant(*, game: str, name: str, user: Any, data: Any = None,
                   origin: str = Origin.EDITOR, note: str = "",
                   action: str = Action.CREATED) -> Variant:
    """A new variant holding only a draft (not offered to tables before it is published).

    ``data`` defaults to the game's standard variant.
    """
    engine = engine_of(game)
    check_name(name)
    if Variant.objects.filter(game=game, name=name).exists():
        raise VariantNameTaken()
    data = checked_data(game=game, data=_starter_data(engine) if data is None else data,
                        name=name)
    try:
        with transaction.atomic():
            variant = Variant.objects.create(game=game, name=name, data=data, active=True)
    except IntegrityError:
        raise VariantNameTaken() from None
    draft = VariantVersion.objects.create(
        variant=variant, status=VariantVersion.Status.DRAFT, data=data, origin=origin,
        created_by=user if getattr(user, "is_authenticated", False) else None, note=note,
    )
    log_change(variant=variant, action=action, user=user, version=draft, note=note)
    return variant


@transaction.atomic
def clone_variant(*, variant: Variant, name: str, user: Any,
                  version: VariantVersion | None = None) -> Variant:
    """A new variant of the same game whose draft is a copy of ``version`` (default: the
    current version, else the draft)."""
    source = version or current_version(variant) or draft_of(variant)
    if source is None:
        raise NoDraft(_("This variant has no version to copy."))
    clone = create_variant(game=variant.game, name=name, user=user, data=source.data,
                           origin=Origin.CLONE, action=Action.CLONED,
                           note=system_note(SYSTEM_NOTES[1], source=variant.name,
                                            version=source.label))
    log_change(variant=variant, action=Action.CLONED, user=user, version=source,
               note=system_note(SYSTEM_NOTES[2], name=name))
    return clone


@transaction.atomic
def set_variant_active(*, variant: Variant, active: bool, user: Any) -> Variant:
    """Retire a variant (no new tables; games keep their version) or restore it."""
    variant = locked_variant(variant)
    if variant.active != active:
        variant.active = active
        variant.save(update_fields=["active", "updated_at"])
        log_change(variant=variant, action=Action.RESTORED if active else Action.RETIRED,
                   user=user)
    return variant


@transaction.atomic
def set_version_retired(*, version: VariantVersion, retired: bool, user: Any) -> VariantVersion:
    """Retire a published version (new tables get the newest one not retired) or restore it."""
    variant = locked_variant(version.variant_id)
    version = VariantVersion.objects.get(pk=version.pk)
    if version.status != VariantVersion.Status.PUBLISHED:
        raise NotPublished()
    if (version.retired_at is not None) != retired:
        version.retired_at = timezone.now() if retired else None
        version.save(update_fields=["retired_at"])
        log_change(variant=variant, version=version, user=user,
                   action=Action.VERSION_RETIRED if retired else Action.VERSION_RESTORED)
        sync_current(variant)
    return version


def read_import(payload: Any, *, game: str | None = None) -> tuple[str, str | None, dict]:
    """``(game, name or None, data)`` of an export document or of bare variant data."""
    if not isinstance(payload, dict):
        raise ImportInvalid()
    if payload.get("format") == EXPORT_FORMAT:
        data, doc_game = payload.get("data"), payload.get("game")
        if not isinstance(data, dict) or not isinstance(doc_game, str):
            raise ImportInvalid()
        if game and doc_game != game:
            raise ImportInvalid(_("This export is of another game (%(game)s).")
                                % {"game": doc_game})
        name = payload.get("variant")
        return doc_game, name if isinstance(name, str) else None, data
    if not game:
        raise ImportInvalid(_("Choose the game of this variant data."))
    name = payload.get("name")
    return game, name if isinstance(name, str) else None, payload


@transaction.atomic
def publish_data(*, game: str, name: str, data: Any, user: Any = None,
                 is_default: bool = False, origin: str = Origin.SCRIPT) -> Variant:
    """Create a variant published as version 1, or publish ``data`` as its next version
    when it differs from the current one.  For scripts, fixtures and tests: it skips the
    simulation check the editor requires (the API and pages never call it)."""
    check_name(name)
    data = checked_data(game=game, data=data, name=name)
    variant = Variant.objects.select_for_update().filter(game=game, name=name).first()
    if variant is None:
        variant = Variant.objects.create(game=game, name=name, data=data,
                                         is_default=is_default, active=True)
        version = publish_version(VariantVersion(
            variant=variant, data=data, origin=origin,
            shipped_digest=digest(data) if origin == Origin.SHIPPED else ""), user=user)
        log_change(variant=variant, action=Action.CREATED, user=user, version=version)
        return variant
    ensure_versions(variant=variant)
    current = current_version(variant)
    if current is None or canonical(current.data) != canonical(data):
        version = publish_version(VariantVersion(
            variant=variant, data=data, origin=origin, based_on=current,
            shipped_digest=digest(data) if origin == Origin.SHIPPED else ""), user=user)
        sync_current(variant)
        log_change(variant=variant, action=Action.PUBLISHED, user=user, version=version,
                   changes=diff(current.data, data) if current else [])
    return variant


@dataclass(frozen=True)
class LoadResult:
    """What ``load_default_variants`` did with one shipped default."""

    variant: Variant
    outcome: str  # created | updated | kept | unchanged
    version: int | None = None

    def __str__(self) -> str:
        return f"{self.variant}: {self.outcome}" + (f" (v{self.version})" if self.version else "")


def load_default_variants(*, games: list[str] | None = None) -> list[LoadResult]:
    """Store the engines' default variants without ever overwriting anything.

    A missing default is created (published as version 1).  When a shipped default has
    changed since it was last loaded, it is published as a new version, unless the
    admins have published a version of their own (then theirs stays, ``kept``).
    Retired variants and versions stay retired; drafts are left alone.
    """
    results = []
    for game in games or engine_names():
        engine = engine_of(game)
        for name, data in engine.default_variants().items():
            results.append(_load_default(game, name, data))
    return results


@transaction.atomic
def _load_default(game: str, name: str, data: dict) -> LoadResult:
    shipped = digest(data)
    try:
        data = checked_data(game=game, data=data, name=name)
    except VariantDataInvalid as exc:  # a broken engine default must not replace anything
        logger.error("shipped default %s/%s is invalid: %s", game, name, exc)
        variant = Variant.objects.filter(game=game, name=name).first()
        if variant is None:
            raise
        return LoadResult(variant, "kept")
    variant = Variant.objects.select_for_update().filter(game=game, name=name).first()
    if variant is None:
        variant = Variant.objects.create(game=game, name=name, data=data, is_default=True,
                                         active=True)
        version = publish_version(VariantVersion(variant=variant, data=data, origin=Origin.SHIPPED,
                                          shipped_digest=shipped), user=None)
        log_change(variant=variant, action=Action.SHIPPED, version=version)
        return LoadResult(variant, "created", version.number)
    ensure_versions(variant=variant)
    published = variant.versions.filter(status=VariantVersion.Status.PUBLISHED)
    last_shipped = published.filter(origin=Origin.SHIPPED).order_by("-number").first()
    if last_shipped is not None and last_shipped.shipped_digest == shipped:
        return LoadResult(variant, "unchanged")
    if published.exclude(origin=Origin.SHIPPED).exists():
        return LoadResult(variant, "kept")
    version = publish_version(VariantVersion(
        variant=variant, data=data, origin=Origin.SHIPPED, shipped_digest=shipped,
        based_on=current_version(variant),
    ), user=None)
    sync_current(variant)
    log_change(variant=variant, action=Action.SHIPPED, version=version,
               changes=diff(last_shipped.data, version.data) if last_shipped else [])
    return LoadResult(variant, "updated", version.number)
