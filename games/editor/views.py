"""Thin HTML views of the rules editor (staff only; no game is named here).

Reads go through ``games.editor.selectors``, writes through ``games.editor.services``.
The draft page is a form generated from the engine's JSON Schema plus the game's visual
editors; HTMX checks it as you type (``draft_validate``) and redraws it after structural
edits (``draft_form``); a simulation's progress arrives over the editor socket.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial, wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from common.jsondata import diff, digest
from games.core.errors import GameServiceError
from games.editor import selectors, services
from games.editor.forms import CloneForm, ImportForm, NewVariantForm, SimulationForm, VariantEditor
from games.editor.presenters import change_summary, diff_rows, report_sections, reproduce_command
from games.editor.problems import problem_line
from games.editor.simulation import player_counts
from games.editor.widgets import figure_label
from games.engines import engine_names, get_engine
from games.models import Simulation, Variant, VariantVersion
from games.variants import selectors as variant_selectors
from games.variants import services as variants

View = Callable[..., HttpResponse]

#: The largest variant file an import reads (real ones are a few KB).
MAX_IMPORT_BYTES = 1024 * 1024


def staff_required(view: View) -> View:
    """Staff only: the anonymous are sent to log in, everyone else gets 403."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied(_("The rules editor is for staff only."))
        return view(request, *args, **kwargs)

    return wrapped


def _variant(variant_id: int) -> Variant:
    variant = get_object_or_404(Variant, pk=variant_id)
    if variant.game not in engine_names():
        raise Http404(_("This game is not installed."))
    variants.ensure_versions(variant=variant)
    return variant


def _title(game: str) -> str:
    return str(getattr(get_engine(game), "title", "") or game)


def _games() -> list[tuple[str, str]]:
    return [(name, _title(name)) for name in engine_names()]


def _refuse(request: HttpRequest, exc: GameServiceError) -> None:
    if isinstance(exc, variants.VariantDataInvalid) and exc.problems:
        messages.error(request, "; ".join(_problem_lines(exc)))
        return
    messages.error(request, str(exc))


def _problem_lines(exc: Any) -> list[str]:
    """A ``VariantDataInvalid``'s problems in the reader's language (fields by title when
    the game is known)."""
    game = getattr(exc, "game", None)
    if game:
        try:
            return VariantEditor(game).lines_of(exc.problems)
        except GameServiceError:
            pass
    return [problem_line(p) for p in exc.problems]


# --- index, new, import --------------------------------------------------------------------------


@staff_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """Every game's variants with their versions and status."""
    return TemplateResponse(request, "editor/index.html", {
        "games": selectors.editor_index(),
        "new_form": _new_form(),
    })


def _new_form(data: Any = None) -> NewVariantForm:
    starts = [("", _("the game's standard variant"))]
    for variant in Variant.objects.order_by("game", "name"):
        starts.append((str(variant.pk), f"{_title(variant.game)} · {variant.title}"))
    return NewVariantForm(data, games=_games(), starts=starts)


@staff_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    """A new variant: a draft copied from the game's standard or from another variant."""
    form = _new_form(request.POST)
    if not form.is_valid():
        return TemplateResponse(request, "editor/index.html", {
            "games": selectors.editor_index(), "new_form": form}, status=400)
    game, name = form.cleaned_data["game"], form.cleaned_data["name"]
    try:
        source_id = form.cleaned_data.get("start_from")
        if source_id:
            source = get_object_or_404(Variant, pk=int(source_id))
            if source.game != game:
                raise variants.VariantDataInvalid([_("(variant): that variant is of another game")])
            variant = variants.clone_variant(variant=source, name=name, user=request.user)
        else:
            variant = variants.create_variant(game=game, name=name, user=request.user)
    except GameServiceError as exc:
        _refuse(request, exc)
        return redirect("editor:index")
    messages.success(request, _("Variant %(name)s created as a draft.") % {"name": name})
    return redirect("editor:draft", variant_id=variant.pk)


@staff_required
def import_view(request: HttpRequest) -> HttpResponse:
    """Import an export (or bare variant data) as a new variant."""
    form = ImportForm(request.POST or None, request.FILES or None, games=_games())
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data.get("file")
        if upload and upload.size > MAX_IMPORT_BYTES:
            form.add_error("file", _("A variant file is at most 1 MB."))
            text = ""
        else:
            text = (upload.read().decode("utf-8", "replace") if upload
                    else form.cleaned_data["text"])
        payload = None
        try:
            payload = json.loads(text) if text else None
        except (ValueError, RecursionError) as exc:
            form.add_error(None, _("This is not JSON: %(error)s") % {"error": exc})
        if payload is None or form.errors:
            if not form.errors:
                form.add_error(None, _("Choose a file or paste the JSON."))
        else:
            try:
                variant = services.import_variant(
                    payload=payload, user=request.user,
                    game=form.cleaned_data.get("game") or None,
                    name=form.cleaned_data.get("name") or None)
            except variants.VariantDataInvalid as exc:
                for line in _problem_lines(exc):
                    form.add_error(None, line)
            except GameServiceError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, _("Imported as a draft of %(name)s.")
                                 % {"name": variant.name})
                return redirect("editor:draft", variant_id=variant.pk)
    status = 400 if request.method == "POST" else 200
    return TemplateResponse(request, "editor/import.html", {"form": form}, status=status)


# --- one variant ---------------------------------------------------------------------------------


@staff_required
@require_GET
def variant_detail(request: HttpRequest, variant_id: int) -> HttpResponse:
    """Versions, status, history and the actions on a variant."""
    variant = _variant(variant_id)
    versions = selectors.versions_of(variant)
    editor = VariantEditor(variant.game, name=variant.name)
    for version in versions:
        version.problems = editor.lines_of(selectors.version_problems(version))
        version.note_text = variants.note_text(version.note)
    history = selectors.variant_history(variant)
    title = editor.form(None).path_title
    for entry in history:
        entry.lines = change_summary(entry.changes, title=title)
        entry.note_text = variants.note_text(entry.note)
    return TemplateResponse(request, "editor/variant.html", {
        "variant": variant, "title": _title(variant.game), "versions": versions,
        "current": variant_selectors.current_version(variant),
        "draft": variant_selectors.draft_of(variant),
        "history": history, "clone_form": CloneForm(),
    })


@staff_required
@require_GET
def version_detail(request: HttpRequest, variant_id: int, number: int) -> HttpResponse:
    """One published version: read-only form, the games pinned to it, its simulations."""
    variant = _variant(variant_id)
    version = get_object_or_404(VariantVersion, variant=variant, number=number)
    editor = VariantEditor(variant.game, name=variant.name)
    root, _placed = editor.render(version.data)
    sim = (version.simulations.filter(status=Simulation.Status.DONE)
           .order_by("-created_at").first())
    return TemplateResponse(request, "editor/version.html", {
        "variant": variant, "title": _title(variant.game), "version": version, "root": root,
        "readonly": True, "games": selectors.games_on(version),
        "problems": editor.lines_of(selectors.version_problems(version)),
        "sections": report_sections(sim.report if sim else None, None,
                                    partial(figure_label, variant.game)), "sim": sim,
        "is_current": variant_selectors.current_version(variant) == version,
        "draft": variant_selectors.draft_of(variant),
    })


@staff_required
@require_POST
def variant_active(request: HttpRequest, variant_id: int, active: bool) -> HttpResponse:
    variant = _variant(variant_id)
    variants.set_variant_active(variant=variant, active=active, user=request.user)
    messages.success(request, _("Variant restored: new tables may use it.") if active else
                     _("Variant retired: no new table gets it; games keep their version."))
    return redirect("editor:variant", variant_id=variant.pk)


@staff_required
@require_POST
def version_retired(request: HttpRequest, variant_id: int, number: int,
                    retired: bool) -> HttpResponse:
    variant = _variant(variant_id)
    version = get_object_or_404(VariantVersion, variant=variant, number=number)
    variants.set_version_retired(version=version, retired=retired, user=request.user)
    current = variant_selectors.current_version(variant)
    messages.success(request, _("New tables now get %(version)s.")
                     % {"version": current.label} if current else
                     _("No version is left for new tables: restore one."))
    return redirect("editor:variant", variant_id=variant.pk)


@staff_required
@require_POST
def clone(request: HttpRequest, variant_id: int) -> HttpResponse:
    variant = _variant(variant_id)
    form = CloneForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("A variant name is lower-case letters, digits and hyphens."))
        return redirect("editor:variant", variant_id=variant.pk)
    source = None
    if request.POST.get("version"):
        source = selectors.version_by_label(variant, request.POST["version"])
    try:
        copy = variants.clone_variant(variant=variant, name=form.cleaned_data["name"],
                                      user=request.user, version=source)
    except GameServiceError as exc:
        _refuse(request, exc)
        return redirect("editor:variant", variant_id=variant.pk)
    messages.success(request, _("Copied: edit the draft of %(name)s.") % {"name": copy.name})
    return redirect("editor:draft", variant_id=copy.pk)


@staff_required
@require_GET
def export(request: HttpRequest, variant_id: int, label: str) -> HttpResponse:
    """A version (or the draft) as a JSON file."""
    variant = _variant(variant_id)
    version = selectors.version_by_label(variant, label)
    if version is None:
        raise Http404(_("No such version."))
    response = JsonResponse(variant_selectors.export_document(version),
                            json_dumps_params={"indent": 1, "ensure_ascii": False})
    filename = f"{variant.game}-{variant.name}-{label}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@staff_required
@require_GET
def diff_view(request: HttpRequest, variant_id: int) -> HttpResponse:
    """Two versions field by field (``?a=1&b=draft``)."""
    variant = _variant(variant_id)
    versions = selectors.versions_of(variant)
    labels = [("draft" if v.is_draft else str(v.number), v.label) for v in versions]
    current = variant_selectors.current_version(variant)
    draft = variant_selectors.draft_of(variant)
    if draft is not None:
        base = draft.based_on or current
        default_a, default_b = (str(base.number) if base else "draft"), "draft"
    elif current is not None:
        default_a, default_b = str(max(1, current.number - 1)), str(current.number)
    else:
        default_a = default_b = ""
    a_label, b_label = request.GET.get("a", default_a), request.GET.get("b", default_b)
    a = selectors.version_by_label(variant, a_label)
    b = selectors.version_by_label(variant, b_label)
    title = VariantEditor(variant.game, name=variant.name).form(None).path_title
    rows = diff_rows(diff(a.data, b.data), title) if a and b else []
    return TemplateResponse(request, "editor/diff.html", {
        "variant": variant, "title": _title(variant.game), "labels": labels, "a": a, "b": b,
        "a_label": a_label, "b_label": b_label, "rows": rows,
    })


# --- the draft -----------------------------------------------------------------------------------


def _sim_context(variant: Variant, draft: VariantVersion | None,
                 form: SimulationForm | None = None) -> dict[str, Any]:
    """What the simulation panel shows: settings, progress, the report beside the
    published version's, and whether the draft may be published."""
    services.expire_stale_simulations(variant=variant)
    engine = variants.engine_of(variant.game)
    counts = player_counts(engine, draft.data) if draft else []
    sim = selectors.latest_simulation(draft)
    published, published_sim, comparing = selectors.published_report(variant, like=sim)
    sections = report_sections(sim.report if sim and sim.report else None,
                               published_sim.report if published_sim else None,
                               partial(figure_label, variant.game))
    errors = []
    if sim and sim.report:
        for error in sim.report.get("errors", [])[:50]:
            errors.append({**error, "command": reproduce_command(
                variant.game, variant.name, error, sim.bots)})
    return {
        "variant": variant, "draft": draft, "sim": sim,
        "sim_current": selectors.simulation_is_current(sim, draft),
        "published": published, "published_sim": published_sim, "comparing": comparing,
        "sections": sections, "sim_errors": errors,
        "blocker": services.publish_blocker(draft) if draft else "",
        "sim_form": form or SimulationForm(bots=services.allowed_bots(), counts=counts),
        "min_games": getattr(settings, "EDITOR_MIN_SIMULATION_GAMES", 10),
    }


def _draft_context(variant: Variant, draft: VariantVersion, root: Any, placed: list,
                   **extra: Any) -> dict[str, Any]:
    return {
        "variant": variant, "title": _title(variant.game), "draft": draft, "root": root,
        "placed": placed, "readonly": False, "draft_digest": digest(draft.data),
        "form_url": reverse("editor:draft_form", args=[variant.pk]),
        "validate_url": reverse("editor:draft_validate", args=[variant.pk]),
        "rule_data": selectors.rule_data_of(variant.game, draft.data),
        "current": variant_selectors.current_version(variant),
        "last_saved": variant.changes.filter(version=draft).select_related("user")
        .order_by("-created_at").first(),
        **_sim_context(variant, draft),
        **extra,
    }


@staff_required
def draft(request: HttpRequest, variant_id: int) -> HttpResponse:
    """The draft's edit page (GET) and saving it (POST)."""
    variant = _variant(variant_id)
    draft = variant_selectors.draft_of(variant)
    if request.method == "GET":
        if draft is None:
            return TemplateResponse(request, "editor/no_draft.html", {
                "variant": variant, "title": _title(variant.game),
                "current": variant_selectors.current_version(variant)})
        editor = VariantEditor(variant.game, name=variant.name)
        checked = editor.check(draft.data)
        root, placed = editor.render(draft.data, checked.errors)
        return TemplateResponse(request, "editor/draft.html",
                                _draft_context(variant, draft, root, placed))
    if request.method != "POST":
        return HttpResponse(status=405)
    editor = VariantEditor(variant.game, name=variant.name)
    tree = editor.read(request.POST)
    checked = editor.check(tree)
    if request.POST.get("op") and draft is not None:
        # An add / remove button without JavaScript: draw the form again, save nothing.
        root, placed = editor.render(tree, checked.errors)
        return TemplateResponse(request, "editor/draft.html",
                                _draft_context(variant, draft, root, placed, dirty=True))
    seen = request.POST.get("_draft_digest", "")
    if draft is not None and seen and seen != digest(draft.data) and checked.ok \
            and digest(checked.data) != digest(draft.data):
        # Another member of staff saved the draft since this form was drawn: keep both.
        root, placed = editor.render(tree, checked.errors)
        messages.error(request, _(
            "Someone else saved this draft since you opened it (see the variant's history). "
            "Your edits are still in the form: save again to replace theirs, or reload."))
        return TemplateResponse(request, "editor/draft.html", _draft_context(
            variant, draft, root, placed, dirty=True), status=409)
    if checked.ok:
        try:
            draft = services.save_draft(variant=variant, data=checked.data, user=request.user,
                                        note=request.POST.get("note", "").strip()[:500])
        except variants.VariantDataInvalid as exc:
            checked.errors = editor.errors_of(exc.problems)
        else:
            messages.success(request, _("Draft saved."))
            return redirect("editor:draft", variant_id=variant.pk)
    if draft is None:  # nothing to draw the errors beside: refuse, change nothing
        messages.error(request, "; ".join(m for ms in checked.errors.values() for m in ms))
        return redirect("editor:variant", variant_id=variant.pk)
    root, placed = editor.render(tree, checked.errors)
    return TemplateResponse(request, "editor/draft.html",
                            _draft_context(variant, draft, root, placed), status=422)


@staff_required
@require_POST
def draft_form(request: HttpRequest, variant_id: int) -> HttpResponse:
    """The form drawn again from a submission (after an add / remove / grid change);
    nothing is saved."""
    variant = _variant(variant_id)
    editor = VariantEditor(variant.game, name=variant.name)
    tree = editor.read(request.POST)
    checked = editor.check(tree)
    root, placed = editor.render(tree, checked.errors)
    return TemplateResponse(request, "editor/partials/variant_form.html", {
        "variant": variant, "root": root, "placed": placed, "readonly": False,
        "draft_digest": request.POST.get("_draft_digest", ""),
        "form_url": reverse("editor:draft_form", args=[variant.pk]),
        "validate_url": reverse("editor:draft_validate", args=[variant.pk]),
        "dirty": True,
    })


@staff_required
@require_POST
def draft_validate(request: HttpRequest, variant_id: int) -> HttpResponse:
    """Field-level errors of a submission, as you type (the error summary; the page's
    script puts each message beside its field)."""
    variant = _variant(variant_id)
    editor = VariantEditor(variant.game, name=variant.name)
    tree = editor.read(request.POST)
    checked = editor.check(tree)
    _root, placed = editor.render(tree, checked.errors)
    return TemplateResponse(request, "editor/partials/form_errors.html", {"placed": placed})


@staff_required
@require_POST
def draft_start(request: HttpRequest, variant_id: int) -> HttpResponse:
    """Start the draft (from the current version, or from ``version``)."""
    variant = _variant(variant_id)
    source = None
    if request.POST.get("version"):
        source = selectors.version_by_label(variant, request.POST["version"])
        if source is None or source.is_draft:
            raise Http404(_("No such version."))
    try:
        services.start_draft(variant=variant, user=request.user, from_version=source)
    except GameServiceError as exc:
        _refuse(request, exc)
    return redirect("editor:draft", variant_id=variant.pk)


@staff_required
@require_POST
def draft_discard(request: HttpRequest, variant_id: int) -> HttpResponse:
    variant = _variant(variant_id)
    try:
        services.discard_draft(variant=variant, user=request.user)
    except GameServiceError as exc:
        _refuse(request, exc)
    else:
        messages.success(request, _("Draft discarded."))
    return redirect("editor:variant", variant_id=variant.pk)


# --- simulation and publishing -------------------------------------------------------------------


def _sim_panel(request: HttpRequest, variant: Variant, *, status: int = 200,
               form: SimulationForm | None = None, **extra: Any) -> HttpResponse:
    draft = variant_selectors.draft_of(variant)
    return TemplateResponse(request, "editor/partials/sim_status.html",
                            {**_sim_context(variant, draft, form), **extra}, status=status)


@staff_required
@require_POST
def simulate(request: HttpRequest, variant_id: int) -> HttpResponse:
    """Save the submitted draft (when the form came along), then queue a simulation."""
    variant = _variant(variant_id)
    draft = variant_selectors.draft_of(variant)
    if draft is None:
        raise Http404(_("This variant has no draft."))
    if request.POST.get("_variant_form"):
        editor = VariantEditor(variant.game, name=variant.name)
        checked = editor.check(editor.read(request.POST))
        if not checked.ok:
            return _sim_panel(request, variant, status=422, notice=_(
                "The draft has errors (shown beside their fields): fix them first."))
        try:
            services.save_draft(variant=variant, data=checked.data, user=request.user)
        except variants.VariantDataInvalid:
            return _sim_panel(request, variant, status=422, notice=_(
                "The draft has errors (shown beside their fields): fix them first."))
        draft.refresh_from_db()
    counts = player_counts(variants.engine_of(variant.game), draft.data)
    form = SimulationForm(request.POST, bots=services.allowed_bots(), counts=counts)
    if not form.is_valid():
        return _sim_panel(request, variant, status=400, form=form)
    players = form.cleaned_data.get("players")
    try:
        services.request_simulation(
            variant=variant, user=request.user, games=form.cleaned_data["games"],
            bots=[form.cleaned_data["bots"]], players=int(players) if players else None)
    except GameServiceError as exc:
        return _sim_panel(request, variant, status=exc.status_code, form=form, notice=str(exc))
    if not request.htmx:
        return redirect("editor:draft", variant_id=variant.pk)
    return _sim_panel(request, variant, form=form, saved=True)


@staff_required
@require_GET
def sim_status(request: HttpRequest, variant_id: int) -> HttpResponse:
    """The simulation panel (progress, report beside the published version's, publish)."""
    return _sim_panel(request, _variant(variant_id))


@staff_required
@require_POST
def publish(request: HttpRequest, variant_id: int) -> HttpResponse:
    variant = _variant(variant_id)
    try:
        version = services.publish_draft(variant=variant, user=request.user,
                                         note=request.POST.get("note", "").strip()[:500])
    except GameServiceError as exc:
        _refuse(request, exc)
        return redirect("editor:draft", variant_id=variant.pk)
    messages.success(request, _("Published as %(version)s: new tables get it now.")
                     % {"version": version.label})
    return redirect("editor:variant", variant_id=variant.pk)
