"""Write operations of the rules editor: keyword-only, typed, atomic.

A variant is a series of immutable published versions plus at most one draft.  Every
write validates with the engine first and changes nothing when it refuses; every write
appends to the change log (``VariantChange``: who, what, when, field by field).
Publishing needs a passing simulation of the draft *as it is now* (its digest).
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games.editor import broadcast
from games.editor.errors import (
    DraftExists,
    ImportInvalid,
    NoDraft,
    NotPublished,
    SimulationInvalid,
    SimulationRequired,
    SimulationRunning,
    UnknownGame,
    VariantDataInvalid,
    VariantNameInvalid,
    VariantNameTaken,
)
from games.editor.jsondata import Change, canonical, diff, digest
from games.editor.simulation import final_report, merge_reports, next_chunk, player_counts
from games.editor.simulation import run_chunk as play_chunk
from games.engines import Engine, engine_names, get_engine
from games.models import Simulation, Variant, VariantChange, VariantVersion

logger = logging.getLogger(__name__)

Origin = VariantVersion.Origin
Action = VariantChange.Action

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: The change log keeps at most this many field changes per entry.
MAX_LOGGED_CHANGES = 200
EXPORT_FORMAT = "colonia-variant/1"


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# --- engines and data ----------------------------------------------------------------------------


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
    """A validated copy of ``data`` with its ``name`` set to ``name``; ``VariantDataInvalid``."""
    engine = engine_of(game)
    if not isinstance(data, dict):
        raise VariantDataInvalid([_("(variant): must be a JSON object")])
    try:
        data = json.loads(json.dumps(data))  # a private, JSON-only copy (key order kept)
    except (TypeError, ValueError):
        raise VariantDataInvalid([_("(variant): must be JSON data")]) from None
    data = {**data}
    if has_name_field(engine):
        data["name"] = name
    problems = problems_of(engine, data)
    if problems:
        raise VariantDataInvalid(problems)
    return data


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise VariantNameInvalid()
    return name


# --- the change log ------------------------------------------------------------------------------


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


# --- versions ------------------------------------------------------------------------------------


def _locked(variant: Variant | int) -> Variant:
    pk = variant if isinstance(variant, int) else variant.pk
    return Variant.objects.select_for_update().get(pk=pk)


def current_version(variant: Variant) -> VariantVersion | None:
    """The newest published version that is not retired (what new tables get)."""
    return (
        variant.versions.filter(status=VariantVersion.Status.PUBLISHED, retired_at__isnull=True)
        .order_by("-number")
        .first()
    )


def draft_of(variant: Variant) -> VariantVersion | None:
    return variant.versions.filter(status=VariantVersion.Status.DRAFT).first()


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


def _sync_current(variant: Variant) -> None:
    """Keep ``Variant.data`` equal to the current version's data."""
    current = current_version(variant)
    if current is not None and variant.data != current.data:
        variant.data = current.data
        variant.save(update_fields=["data", "updated_at"])


def _next_number(variant: Variant) -> int:
    top = variant.versions.aggregate(top=Max("number"))["top"]
    return (top or 0) + 1


def _publish(version: VariantVersion, *, user: Any, note: str = "") -> VariantVersion:
    version.number = _next_number(version.variant)
    version.status = VariantVersion.Status.PUBLISHED
    version.published_at = timezone.now()
    version.published_by = user if getattr(user, "is_authenticated", False) else None
    if note:
        version.note = note
    version.save()
    return version


# --- creating variants ---------------------------------------------------------------------------


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
                           note=_("Copy of %(source)s %(version)s")
                           % {"source": variant.name, "version": source.label})
    log_change(variant=variant, action=Action.CLONED, user=user, version=source,
               note=_("Copied to %(name)s") % {"name": name})
    return clone


# --- drafts --------------------------------------------------------------------------------------


@transaction.atomic
def start_draft(*, variant: Variant, user: Any,
                from_version: VariantVersion | None = None) -> VariantVersion:
    """The variant's draft, started from ``from_version`` (default: the current version).

    Without ``from_version`` an existing draft is returned; with one, ``DraftExists``.
    """
    variant = _locked(variant)
    ensure_versions(variant=variant)
    draft = draft_of(variant)
    if draft is not None:
        if from_version is not None:
            raise DraftExists()
        return draft
    if from_version is not None and from_version.variant_id != variant.pk:
        raise NotPublished(_("That version belongs to another variant."))
    base = from_version or current_version(variant) or (
        variant.versions.filter(status=VariantVersion.Status.PUBLISHED).order_by("-number").first()
    )
    data = base.data if base else variant.data
    draft = VariantVersion.objects.create(
        variant=variant, status=VariantVersion.Status.DRAFT, data=data, based_on=base,
        origin=Origin.EDITOR, created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    log_change(variant=variant, action=Action.DRAFT_STARTED, user=user, version=draft,
               note=_("from %(version)s") % {"version": base.label if base else "-"})
    return draft


@transaction.atomic
def save_draft(*, variant: Variant, data: Any, user: Any, note: str = "",
               origin: str = Origin.EDITOR) -> VariantVersion:
    """Store ``data`` as the variant's draft (started from the current version if there is
    none).  ``VariantDataInvalid`` (every problem, by field) changes nothing."""
    variant = _locked(variant)
    data = checked_data(game=variant.game, data=data, name=variant.name)
    ensure_versions(variant=variant)
    draft = draft_of(variant)
    if draft is None:
        base = current_version(variant)
        draft = VariantVersion.objects.create(
            variant=variant, status=VariantVersion.Status.DRAFT, data=data, based_on=base,
            origin=origin, note=note,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        changes = diff(base.data, data) if base else []
    else:
        changes = diff(draft.data, data)
        if not changes and not note:
            return draft
        draft.data = data
        if note:
            draft.note = note
        draft.save()
    log_change(variant=variant, action=Action.DRAFT_SAVED, user=user, version=draft,
               changes=changes, note=note)
    return draft


@transaction.atomic
def discard_draft(*, variant: Variant, user: Any) -> None:
    """Delete the draft (and its simulations)."""
    variant = _locked(variant)
    draft = draft_of(variant)
    if draft is None:
        raise NoDraft()
    log_change(variant=variant, action=Action.DRAFT_DISCARDED, user=user,
               changes=diff(draft.based_on.data, draft.data) if draft.based_on else [])
    draft.delete()


def passing_simulation(draft: VariantVersion) -> Simulation | None:
    """The newest passing simulation of the draft's current data that covers every player
    count and at least ``EDITOR_MIN_SIMULATION_GAMES`` games."""
    counts = set(player_counts(engine_of(draft.variant.game), draft.data))
    minimum = _setting("EDITOR_MIN_SIMULATION_GAMES", 10)
    for sim in draft.simulations.filter(digest=digest(draft.data), status=Simulation.Status.DONE):
        if sim.passed and sim.games >= minimum and counts <= set(sim.players):
            return sim
    return None


def publish_blocker(draft: VariantVersion) -> str:
    """Why the draft cannot be published now ("" when it can)."""
    if passing_simulation(draft) is not None:
        return ""
    sims = list(draft.simulations.filter(digest=digest(draft.data)))
    minimum = _setting("EDITOR_MIN_SIMULATION_GAMES", 10)
    if not sims:
        return _("Simulate the draft as it is now before publishing it.")
    latest = sims[0]
    if not latest.finished:
        return _("Wait for the simulation to finish.")
    if latest.status == Simulation.Status.FAILED:
        return _("The last simulation failed: fix the draft and simulate again.")
    if not latest.passed:
        return _("The last simulation found errors: fix them and simulate again.")
    if latest.games < minimum:
        return _("Simulate at least %(n)d games before publishing.") % {"n": minimum}
    return _("Simulate every player count this variant supports before publishing.")


@transaction.atomic
def publish_draft(*, variant: Variant, user: Any, note: str = "") -> VariantVersion:
    """Make the draft the next published version (new tables get it at once).

    ``SimulationRequired`` (409) without a passing simulation of the draft as it is now;
    ``VariantDataInvalid`` if the engine no longer accepts it.
    """
    variant = _locked(variant)
    draft = draft_of(variant)
    if draft is None:
        raise NoDraft()
    problems = problems_of(engine_of(variant.game), draft.data)
    if problems:
        raise VariantDataInvalid(problems)
    blocker = publish_blocker(draft)
    if blocker:
        raise SimulationRequired(blocker)
    previous = current_version(variant)
    version = _publish(draft, user=user, note=note)
    _sync_current(variant)
    log_change(variant=variant, action=Action.PUBLISHED, user=user, version=version,
               changes=diff(previous.data, version.data) if previous else [], note=note)
    return version


# --- retire and restore --------------------------------------------------------------------------


@transaction.atomic
def set_variant_active(*, variant: Variant, active: bool, user: Any) -> Variant:
    """Retire a variant (no new tables; games keep their version) or restore it."""
    variant = _locked(variant)
    if variant.active != active:
        variant.active = active
        variant.save(update_fields=["active", "updated_at"])
        log_change(variant=variant, action=Action.RESTORED if active else Action.RETIRED,
                   user=user)
    return variant


@transaction.atomic
def set_version_retired(*, version: VariantVersion, retired: bool, user: Any) -> VariantVersion:
    """Retire a published version (new tables get the newest one not retired) or restore it."""
    variant = _locked(version.variant_id)
    version = VariantVersion.objects.get(pk=version.pk)
    if version.status != VariantVersion.Status.PUBLISHED:
        raise NotPublished()
    if (version.retired_at is not None) != retired:
        version.retired_at = timezone.now() if retired else None
        version.save(update_fields=["retired_at"])
        log_change(variant=variant, version=version, user=user,
                   action=Action.VERSION_RETIRED if retired else Action.VERSION_RESTORED)
        _sync_current(variant)
    return version


# --- import / export -----------------------------------------------------------------------------


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
def import_variant(*, payload: Any, user: Any, game: str | None = None,
                   name: str | None = None, into: Variant | None = None) -> Variant:
    """Import an export (or bare data): as the draft of ``into``, or as a new variant."""
    doc_game, doc_name, data = read_import(payload, game=into.game if into else game)
    if into is not None:
        save_draft(variant=into, data=data, user=user, origin=Origin.IMPORT,
                   note=_("Imported"))
        return into
    return create_variant(game=doc_game, name=check_name(name or doc_name or ""), user=user,
                          data=data, origin=Origin.IMPORT, action=Action.IMPORTED)


# --- scripts and shipped defaults ----------------------------------------------------------------


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
        version = _publish(VariantVersion(
            variant=variant, data=data, origin=origin,
            shipped_digest=digest(data) if origin == Origin.SHIPPED else ""), user=user)
        log_change(variant=variant, action=Action.CREATED, user=user, version=version)
        return variant
    ensure_versions(variant=variant)
    current = current_version(variant)
    if current is None or canonical(current.data) != canonical(data):
        version = _publish(VariantVersion(
            variant=variant, data=data, origin=origin, based_on=current,
            shipped_digest=digest(data) if origin == Origin.SHIPPED else ""), user=user)
        _sync_current(variant)
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
        version = _publish(VariantVersion(variant=variant, data=data, origin=Origin.SHIPPED,
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
    version = _publish(VariantVersion(
        variant=variant, data=data, origin=Origin.SHIPPED, shipped_digest=shipped,
        based_on=current_version(variant),
    ), user=None)
    _sync_current(variant)
    log_change(variant=variant, action=Action.SHIPPED, version=version,
               changes=diff(last_shipped.data, version.data) if last_shipped else [])
    return LoadResult(variant, "updated", version.number)


# --- simulations ---------------------------------------------------------------------------------


def allowed_bots() -> tuple[str, ...]:
    """Bot names a simulation may use: ``random`` and every AI level."""
    try:
        import ai

        return tuple(dict.fromkeys(("random", *ai.LEVEL_NAMES)))
    except ImportError:  # pragma: no cover - the ai package ships with the project
        return ("random",)


def expire_stale_simulations(*, variant: Variant) -> int:
    """Mark simulations nobody has advanced for ``EDITOR_SIMULATION_STALE_SECONDS`` failed
    (their worker died, or none is running), so a new one may start."""
    limit = timezone.now() - timedelta(seconds=_setting("EDITOR_SIMULATION_STALE_SECONDS", 900))
    stale = Simulation.objects.filter(
        version__variant=variant, status__in=[Simulation.Status.QUEUED, Simulation.Status.RUNNING],
        updated_at__lt=limit,
    )
    return stale.update(
        status=Simulation.Status.FAILED, finished_at=timezone.now(),
        error=_("The simulation stopped: no worker advanced it for a while. Start it again."),
    )


@transaction.atomic
def request_simulation(*, variant: Variant, user: Any, games: Any, bots: Any,
                       players: Any = None, seed: Any = None,
                       version: VariantVersion | None = None,
                       compare: bool = True) -> Simulation:
    """Queue a simulation of the draft (or of ``version``) on Celery.

    With ``compare``, the current published version is simulated too (same games and
    seeds) unless it already has a finished simulation with these bots and counts.

    ``bots`` is one bot for every seat or one per seat; ``players`` one count or a list
    (default: every count the data supports).  ``SimulationInvalid`` for bad settings,
    ``SimulationRunning`` while another simulation of the variant is under way.
    """
    variant = _locked(variant)
    if version is None:
        version = draft_of(variant)
        if version is None:
            raise NoDraft()
    elif version.variant_id != variant.pk:
        raise SimulationInvalid(_("That version belongs to another variant."))
    engine = engine_of(variant.game)
    most = _setting("EDITOR_MAX_SIMULATION_GAMES", 1000)
    if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= most:
        raise SimulationInvalid(_("Play from 1 to %(n)d games.") % {"n": most})
    known = allowed_bots()
    if (not isinstance(bots, list) or not bots
            or not all(isinstance(b, str) and b in known for b in bots)):
        raise SimulationInvalid(_("Bots are a list of: %(names)s.") % {"names": ", ".join(known)})
    supported = player_counts(engine, version.data)
    if players is None:
        counts = [len(bots)] if len(bots) > 1 else supported
    else:
        counts = players if isinstance(players, list) else [players]
        if not counts or not all(isinstance(n, int) and not isinstance(n, bool) for n in counts):
            raise SimulationInvalid(_("Player counts are whole numbers."))
        counts = sorted(set(counts))
    bad = [n for n in counts if n not in supported]
    if bad or not counts:
        raise SimulationInvalid(_("This variant is played by %(counts)s players.")
                                % {"counts": ", ".join(map(str, supported)) or "-"})
    if len(bots) > 1 and counts != [len(bots)]:
        raise SimulationInvalid(_("Give one bot for all seats, or one per seat."))
    if games < len(counts):
        raise SimulationInvalid(_("Play at least one game per player count."))
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    elif not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62:
        raise SimulationInvalid(_("The seed is a whole number from 0."))
    expire_stale_simulations(variant=variant)
    if Simulation.objects.filter(
        version__variant=variant, status__in=[Simulation.Status.QUEUED, Simulation.Status.RUNNING]
    ).exists():
        raise SimulationRunning()
    sim = Simulation.objects.create(
        version=version, digest=digest(version.data), data=version.data, games=games,
        players=counts, bots=bots, seed=seed,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    log_change(variant=variant, action=Action.SIMULATED, user=user, version=version,
               details=[{"games": games, "players": counts, "bots": bots, "seed": seed}])
    sim_id = sim.pk
    transaction.on_commit(lambda: _enqueue_simulation(sim_id), robust=True)
    current = current_version(variant)
    if compare and version.is_draft and current is not None and not (
        current.simulations.filter(bots=bots, players=counts,
                                   status=Simulation.Status.DONE).exists()
    ) and not problems_of(engine, current.data):
        # The report is shown beside the published version's: play the same games
        # (same seeds) on it too, once per setting.
        other = Simulation.objects.create(
            version=current, digest=digest(current.data), data=current.data, games=games,
            players=[n for n in counts if n in player_counts(engine, current.data)] or counts,
            bots=bots, seed=seed, created_by=sim.created_by,
        )
        other_id = other.pk
        transaction.on_commit(lambda: _enqueue_simulation(other_id), robust=True)
    return sim


def _enqueue_simulation(simulation_id: int) -> None:
    from games.editor.tasks import simulate_variant

    simulate_variant.delay(simulation_id)


def run_simulation_chunk(*, simulation_id: int,
                         budget: float | None = None) -> bool:
    """Play the next chunk of a simulation and store the merged report; True while more
    chunks remain.  A chunk already stored (a redelivered task) is not stored twice."""
    sim = Simulation.objects.select_related("version__variant").filter(pk=simulation_id).first()
    if sim is None or sim.finished:
        return False
    variant = sim.version.variant
    if sim.status == Simulation.Status.QUEUED:
        Simulation.objects.filter(pk=sim.pk, status=Simulation.Status.QUEUED).update(
            status=Simulation.Status.RUNNING, started_at=timezone.now(), updated_at=timezone.now())
        sim.status = Simulation.Status.RUNNING
        _progress(variant.pk, sim, sim.done)
    partial = sim.partial or {}
    if budget is None:
        budget = _setting("EDITOR_SIMULATION_CHUNK_SECONDS", 2.0)
    chunk = next_chunk(sim.games, sim.players, sim.done, partial.get("seconds_per_game"), budget)
    if chunk is None:
        return _finish(sim, variant.pk)
    players, count, first = chunk
    base, step = sim.done, sim.step
    last = [time.monotonic()]

    def progress(done: int, _total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.25 or done == count:
            last[0] = now
            Simulation.objects.filter(pk=sim.pk, step=step).update(
                done=base + done, updated_at=timezone.now())
            _progress(variant.pk, sim, base + done)

    try:
        report = play_chunk(variant.game, sim.data, players, count, first, bots=sim.bots,
                            seed=sim.seed, progress=progress)
    except Exception as exc:  # the check could not run at all (invalid data, bad bot)
        logger.warning("simulation %s failed", sim.pk, exc_info=True)
        Simulation.objects.filter(pk=sim.pk, step=step).update(
            status=Simulation.Status.FAILED, error=f"{type(exc).__name__}: {exc}",
            finished_at=timezone.now(), updated_at=timezone.now())
        _progress(variant.pk, sim, base, status=Simulation.Status.FAILED)
        return False
    by_players = dict(partial.get("by_players", {}))
    by_players[str(players)] = merge_reports(by_players.get(str(players)), report)
    seconds = sum(r["seconds"] for r in by_players.values())
    done = base + count
    new_partial = {"by_players": by_players, "seconds_per_game": seconds / done if done else None}
    stored = Simulation.objects.filter(pk=sim.pk, step=step).update(
        step=step + 1, done=done, partial=new_partial, updated_at=timezone.now())
    if not stored:
        return False  # another delivery of this task stored the chunk first
    sim.step, sim.done, sim.partial = step + 1, done, new_partial
    if next_chunk(sim.games, sim.players, done, None) is None:
        return _finish(sim, variant.pk)
    return True


def _finish(sim: Simulation, variant_id: int) -> bool:
    by_players = (sim.partial or {}).get("by_players", {})
    report = final_report(by_players, games=sim.games, bots=sim.bots, seed=sim.seed)
    Simulation.objects.filter(pk=sim.pk, step=sim.step).update(
        status=Simulation.Status.DONE, report=report, finished_at=timezone.now(),
        updated_at=timezone.now())
    _progress(variant_id, sim, sim.games, status=Simulation.Status.DONE)
    return False


def _progress(variant_id: int, sim: Simulation, done: int, status: str | None = None) -> None:
    role = "draft" if sim.version.is_draft else "published"
    broadcast.simulation_progress(variant_id, sim.pk, done, sim.games, status or sim.status,
                                  role=role)
