"""Writes of the rules editor: drafts, their simulations, publishing (keyword-only, typed,
atomic).

On top of the variants (``games.variants.services``): a variant is a series of immutable
published versions plus at most one draft.  Every write validates with the engine first
and changes nothing when it refuses; every write appends to the change log.  Publishing
needs a passing simulation of the draft *as it is now* (its digest).
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import ai
from common.jsondata import diff, digest
from games.editor import tasks
from games.editor.errors import (
    DraftExists,
    SimulationInvalid,
    SimulationRequired,
    SimulationRunning,
)
from games.editor.simulation import player_counts
from games.models import Simulation, Variant, VariantChange, VariantVersion
from games.variants.errors import NoDraft, NotPublished, VariantDataInvalid
from games.variants.selectors import current_version, draft_of
from games.variants.services import (
    SYSTEM_NOTES,
    check_name,
    checked_data,
    create_variant,
    engine_of,
    ensure_versions,
    locked_variant,
    log_change,
    problems_of,
    publish_version,
    read_import,
    sync_current,
    system_note,
)

logger = logging.getLogger(__name__)

Origin = VariantVersion.Origin
Action = VariantChange.Action


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# --- engines and data ----------------------------------------------------------------------------


# --- the change log ------------------------------------------------------------------------------


# --- versions ------------------------------------------------------------------------------------


# --- creating variants ---------------------------------------------------------------------------


# --- drafts --------------------------------------------------------------------------------------


@transaction.atomic
def start_draft(*, variant: Variant, user: Any,
                from_version: VariantVersion | None = None) -> VariantVersion:
    """The variant's draft, started from ``from_version`` (default: the current version).

    Without ``from_version`` an existing draft is returned; with one, ``DraftExists``.
    """
    variant = locked_variant(variant)
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
               note=system_note(SYSTEM_NOTES[0],
                                version=base.label if base else "-"))
    return draft


@transaction.atomic
def save_draft(*, variant: Variant, data: Any, user: Any, note: str = "",
               origin: str = Origin.EDITOR) -> VariantVersion:
    """Store ``data`` as the variant's draft (started from the current version if there is
    none).  ``VariantDataInvalid`` (every problem, by field) changes nothing."""
    variant = locked_variant(variant)
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
    variant = locked_variant(variant)
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
    variant = locked_variant(variant)
    draft = draft_of(variant)
    if draft is None:
        raise NoDraft()
    problems = problems_of(engine_of(variant.game), draft.data)
    if problems:
        raise VariantDataInvalid(problems, game=variant.game)
    blocker = publish_blocker(draft)
    if blocker:
        raise SimulationRequired(blocker)
    previous = current_version(variant)
    version = publish_version(draft, user=user, note=note)
    sync_current(variant)
    log_change(variant=variant, action=Action.PUBLISHED, user=user, version=version,
               changes=diff(previous.data, version.data) if previous else [], note=note)
    return version


# --- retire and restore --------------------------------------------------------------------------


# --- import / export -----------------------------------------------------------------------------


# --- simulations ---------------------------------------------------------------------------------


def allowed_bots() -> tuple[str, ...]:
    """Bot names a simulation may use: ``random`` and every AI level."""
    return tuple(dict.fromkeys(("random", *ai.LEVEL_NAMES)))


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
    variant = locked_variant(variant)
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
    transaction.on_commit(lambda: tasks.enqueue_simulation(sim_id), robust=True)
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
        transaction.on_commit(lambda: tasks.enqueue_simulation(other_id), robust=True)
    return sim


@transaction.atomic
def import_variant(*, payload: Any, user: Any, game: str | None = None,
                   name: str | None = None, into: Variant | None = None) -> Variant:
    """Import an export (or bare data): as the draft of ``into``, or as a new variant."""
    doc_game, doc_name, data = read_import(payload, game=into.game if into else game)
    if into is not None:
        save_draft(variant=into, data=data, user=user, origin=Origin.IMPORT,
                   note=system_note(SYSTEM_NOTES[3]))
        return into
    return create_variant(game=doc_game, name=check_name(name or doc_name or ""), user=user,
                          data=data, origin=Origin.IMPORT, action=Action.IMPORTED)
