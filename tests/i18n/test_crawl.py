"""Every page a player, a spectator and a staff member can reach, in German, French and
Italian, has no English left (issue 21).

The crawl builds a small world through the services (both games, running and finished,
a game against the AI, an analysed game, a variant with an edit history, a finished
simulation, an open table, drafts sent back with errors of the schema and of the engine's
checks), renders every page once in English and once in each language
(Django's test client, the language cookie the switcher sets) and fails on any visible text
the two share, unless nothing is left of it once names (users, game titles), numbers and
punctuation are taken out, or it is on the reviewed allow-list below (one reason per entry)
or on the shared one of ``textnodes.ALLOWED``.

How many leftovers each language has::

    .venv/bin/pytest -q -p no:cacheprovider tests/i18n/test_crawl.py -s -k reachable \
        | grep -E "^(de|fr|it) |^leftovers"

prints every leftover, page by page, and ``leftovers: de=N fr=N it=N``.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from textnodes import untranslated

from games.analysis.services import request_analysis
from games.boards import board_names
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.editor import services as editor_services
from games.editor import simulation
from games.engines import get_engine
from games.models import Analysis, Game, Variant
from games.tables.services import create_game, join_game
from games.variants import selectors as variant_selectors
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

LANGS = [code for code, _ in settings.LANGUAGES if code != "en"]
COOKIE = settings.LANGUAGE_COOKIE_NAME

#: Texts the crawl accepts as they are, beyond ``textnodes.ALLOWED`` (shared with the main
#: walk and the browser walk, where "Standard", the shipped variant's name, is): reviewed
#: one by one, each with its reason. Keep it short: anything else is a missing translation.
ALLOWED: dict[str, dict[str, str]] = {
    "common": {},
    "de": {},
    "fr": {
        "score": "French uses the English word for a game's score (the editor's figures)",
        "scores": "plural of the French « score »",
    },
    "it": {},
}

#: Parts of pages the crawl leaves out, by element id, each with its reason.
SKIPPED_IDS: dict[str, str] = {
}


def _play(game: Game, users: dict[int, Any], moves: int | None, seed: int = 3) -> Game:
    """Play random legal moves for the human seats (all of them when ``moves`` is None)."""
    rng = random.Random(seed)
    n = 0
    while game.status == Game.Status.RUNNING and (moves is None or n < moves):
        seat = game.to_move[0]
        if seat not in users:
            break  # an AI seat's turn: its task is not run here
        legal = legal_actions_json(game, seat)
        game = submit_action(game=game, user=users[seat], seat=seat, action=rng.choice(legal),
                             version=game.version, key=f"crawl-{game.pk}-{n}")
        n += 1
    return game


def _two_players(variant: Variant, ann: Any, bob: Any, moves: int | None, *,
                 rated: bool = True) -> Game:
    game = create_game(creator=ann, variant=variant, rated=rated,
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    # A rated table draws its seat order when it starts: the people by their seats.
    return _play(game, {s.index: s.user for s in game.seats.select_related("user")}, moves)


def _simulate(variant: Variant, user: Any, capture: Any) -> None:
    """A finished simulation of the variant's draft (and of its published version)."""
    counts = simulation.player_counts(get_engine(variant.game), variant_selectors.draft_of(
        variant).data)
    with capture(execute=True):
        editor_services.request_simulation(variant=variant, user=user, games=len(counts),
                                           bots=["random"])


@pytest.fixture
def world(db: None, django_capture_on_commit_callbacks: Any, settings: Any) -> dict[str, Any]:
    """Players ann and bob, spectator carl, staff sue; per game a running and a finished
    game (analysed), a game against the AI, a draft with an edit history and a simulation;
    an open table."""
    model = get_user_model()
    ann = model.objects.create_user("ann", password="pw-Unused-91")
    bob = model.objects.create_user("bob", password="pw-Unused-91")
    carl = model.objects.create_user("carl", password="pw-Unused-91")
    sue = model.objects.create_user("sue", password="pw-Unused-91", is_staff=True)
    load_default_variants()
    settings.EDITOR_MIN_SIMULATION_GAMES = 1
    # The analysis panel needs an analysis, not a good one.
    settings.ANALYSIS_ITERATIONS, settings.ANALYSIS_SAMPLES = 1, 1
    games: dict[str, dict[str, Any]] = {}
    for name in board_names():
        variant = Variant.objects.filter(game=name, name="standard").first()
        if variant is None:
            continue  # a test game
        running = _two_players(variant, ann, bob, 12)
        finished = _two_players(variant, ann, bob, None)
        with django_capture_on_commit_callbacks(execute=True):
            request_analysis(game=finished, user=ann)
        assert Analysis.objects.get(game=finished).status == Analysis.Status.DONE
        against_ai = create_game(creator=ann, variant=variant,
                                 seats=[{"type": "human"}, {"type": "ai", "level": "easy"}])
        against_ai = _play(against_ai, {0: ann}, 3)
        # A draft with a changed field of the variant's data, saved, then simulated.
        draft = editor_services.start_draft(variant=variant, user=sue)
        data = draft.data
        editor_services.save_draft(variant=variant, data=_changed(name, data), user=sue)
        _simulate(variant, sue, django_capture_on_commit_callbacks)
        games[name] = {"variant": variant, "running": running, "finished": finished,
                       "ai": against_ai, "invalid": _invalid_posts(variant, sue)}
    open_table = create_game(creator=bob, variant=Variant.objects.order_by("pk").first(),
                             seats=[{"type": "human"}, {"type": "human"}])
    names = {u.username for u in model.objects.all()}
    names |= {get_engine(g).title for g in games}
    return {"ann": ann, "bob": bob, "carl": carl, "sue": sue, "games": games,
            "open_table": open_table, "names": names}


def _form_post() -> Any:
    """``formdata.form_post`` of the editor's tests: what a browser submits for a form."""
    spec = importlib.util.spec_from_file_location(
        "crawl_formdata", Path(__file__).parent.parent / "games" / "editor" / "formdata.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.form_post


#: Drafts sent back with errors, per game: one breaking the JSON Schema's rules (minimum,
#: maximum, an empty text), one the engine's own checks (with a field named in a message).
INVALID_DRAFTS: dict[str, dict[str, dict[str, str]]] = {
    "newhaven": {
        "schema": {"village.col_values[0]": "-1", "market_size": "99", "board.side": ""},
        "rules": {"turns_per_player": "+1", "village.row_costs[0]": "99"},
    },
    "nouvellefrance": {
        "schema": {"display.size": "0", "display.initial_face_up": "-1"},
        "rules": {"deck.piles[0]": "+1", "display.initial_face_up": "+5"},
    },
}


def _invalid_posts(variant: Variant, sue: Any) -> dict[str, Any]:
    """The draft form of ``variant`` as a browser submits it, with the errors of
    ``INVALID_DRAFTS`` ("+1": one more than the field holds)."""
    client = Client()
    client.force_login(sue)
    client.cookies[COOKIE] = "en"
    page = client.get(reverse("editor:draft", args=[variant.pk])).content.decode()
    form_post = _form_post()
    posts = {}
    for kind, changes in INVALID_DRAFTS[variant.game].items():
        post = form_post(page)
        values = {}
        for name, value in changes.items():
            assert name in post, (variant.game, name)  # the form still has that field
            values[name] = str(int(post[name]) + int(value)) if value.startswith("+") \
                else value
        posts[kind] = form_post(page, **values)
    return posts


def _changed(game: str, data: dict) -> dict:
    """``data`` with one number changed (a history line with a field path)."""
    import copy

    data = copy.deepcopy(data)
    if game == "newhaven":
        data["village"]["row_values"][0] += 2
    elif game == "nouvellefrance":
        data["display"]["size"] = data["display"]["size"] + 1
    return data


def _pages(world: dict[str, Any]) -> Iterator[tuple[str, str | None, str, dict[str, Any]]]:
    """(label, who is logged in, path, how to ask) of every page of the crawl."""
    yield "home", None, reverse("home"), {}
    yield "lobby", None, reverse("lobby"), {}
    yield "lobby, player", "ann", reverse("lobby"), {}
    yield "leaderboard", None, reverse("leaderboard"), {}
    yield "own profile", "ann", reverse("accounts:profile", args=["ann"]), {}
    yield "another's profile", "carl", reverse("accounts:profile", args=["ann"]), {}
    yield "waiting games", "ann", reverse("waiting"), {}
    yield "sign-up", None, reverse("accounts:signup"), {}
    yield "log-in", None, reverse("accounts:login"), {}
    yield "password change", "ann", reverse("accounts:password_change"), {}
    yield "password changed", "ann", reverse("accounts:password_change_done"), {}
    yield "password reset", None, reverse("accounts:password_reset"), {}
    yield "password reset sent", None, reverse("accounts:password_reset_done"), {}
    yield "password reset bad link", None, reverse("accounts:password_reset_confirm",
                                                   args=["MQ", "bad-token"]), {}
    yield "password reset complete", None, reverse("accounts:password_reset_complete"), {}
    yield "notification settings", "ann", reverse("accounts:notifications"), {}
    table = world["open_table"]
    yield "open table, creator", "bob", reverse("play", args=[table.pk]), {}
    yield "open table, visitor", "carl", reverse("play", args=[table.pk]), {}
    yield "invite", None, reverse("invite", args=[table.invite_token]), {}
    for name, g in world["games"].items():
        running, finished, variant = g["running"], g["finished"], g["variant"]
        play, done = reverse("play", args=[running.pk]), reverse("play", args=[finished.pk])
        yield f"{name} rules", None, reverse("rules", args=[name]), {}
        yield f"{name} running, player", "ann", play, {}
        yield f"{name} running, spectator", "carl", play, {}
        yield f"{name} running, anonymous", None, play, {}
        yield f"{name} against the AI", "ann", reverse("play", args=[g["ai"].pk]), {}
        yield f"{name} finished, player", "ann", done, {}
        yield f"{name} finished, spectator", "carl", done, {}
        replay = reverse("replay", args=[finished.pk])
        yield f"{name} replay, player", "ann", replay + "?step=3&seat=0", {}
        yield f"{name} replay, spectator", "carl", replay + "?step=3", {}
        yield f"{name} replay, revealed", "carl", replay + "?step=5&seat=all", {}
        yield f"{name} running replay", "ann", reverse("replay", args=[running.pk]), {}
        yield (f"{name} analysis", "ann",
               reverse("analysis_panel", args=[finished.pk]) + "?step=4",
               {"HTTP_HX_REQUEST": "true"})
        yield f"{name} editor variant", "sue", reverse("editor:variant", args=[variant.pk]), {}
        yield f"{name} editor draft", "sue", reverse("editor:draft", args=[variant.pk]), {}
        yield f"{name} editor version", "sue", reverse("editor:version",
                                                       args=[variant.pk, 1]), {}
        yield f"{name} editor diff", "sue", reverse("editor:diff", args=[variant.pk]), {}
        yield (f"{name} editor simulation", "sue", reverse("editor:sim_status",
                                                           args=[variant.pk]),
               {"HTTP_HX_REQUEST": "true"})
        for kind, post in g["invalid"].items():  # every message beside its field, by title
            yield (f"{name} editor draft with errors ({kind})", "sue",
                   reverse("editor:draft", args=[variant.pk]),
                   {"method": "post", "status": 422, "data": post})
    yield "editor", "sue", reverse("editor:index"), {}
    yield "editor import", "sue", reverse("editor:import"), {}
    yield "not allowed (editor as a player)", "ann", reverse("editor:index"), {"status": 403}
    # Forms sent back with their errors.
    post = {"method": "post", "status": 400}
    yield "sign-up, refused", None, reverse("accounts:signup"), {**post, "data": {
        "username": "ann", "password1": "short", "password2": "other"}}
    yield "lobby, table refused", "ann", reverse("lobby_create"), {**post, "data": {
        "variant": "999999", "num_players": "9"}}
    yield "editor, new variant refused", "sue", reverse("editor:create"), {**post, "data": {
        "game": "newhaven", "name": "Not a slug!"}}
    yield "editor import, refused", "sue", reverse("editor:import"), {**post, "data": {
        "text": ""}}
    yield "not found", None, "/no/such/page/", {"status": 404}
    # A form sent after the session changed (a new CSRF cookie), and with no cookie at all.
    stale = {"method": "post", "csrf": True, "status": 403,
             "data": {"csrfmiddlewaretoken": "x" * 32},
             "HTTP_REFERER": "http://testserver/lobby/"}
    yield "CSRF failure", "ann", reverse("lobby_create"), {**stale,
                                                           "cookies": {"csrftoken": "y" * 32}}
    yield "CSRF failure, no cookie", "ann", reverse("lobby_create"), stale
    running = next(iter(world["games"].values()))["running"]
    yield "request too large", "ann", reverse("chat", args=[running.pk]), {
        "method": "post", "status": 413, "data": urlencode({"text": "x" * 100_000}),
        "content_type": "application/x-www-form-urlencoded"}
    yield "no such game", "ann", reverse("play", args=[999999]), {"status": 404}


def _render(world: dict[str, Any], clients: dict, who: str | None, method: str, path: str,
            extra: dict[str, Any], lang: str) -> str:
    """One page in ``lang``: a client per person and language, kept for the next page."""
    csrf, cookies = bool(extra.pop("csrf", False)), extra.pop("cookies", {})
    status = extra.pop("status", 200)
    client = clients.get((who, lang)) if not csrf else None
    if client is None:
        client = Client(enforce_csrf_checks=csrf)
        if who:
            client.force_login(world[who])
        client.cookies[COOKIE] = lang
        if not csrf:
            clients[(who, lang)] = client
    for name, value in cookies.items():
        client.cookies[name] = value
    response = getattr(client, method)(path, **extra)
    assert response.status_code == status, (path, response.status_code)  # the page meant
    return response.content.decode()


def leftovers(world: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Language -> page label -> the English texts left on the page in that language."""
    found: dict[str, dict[str, list[str]]] = {lang: {} for lang in LANGS}
    clients: dict = {}
    for label, who, path, extra in _pages(world):
        method = extra.pop("method", "get")
        english = _render(world, clients, who, method, path, dict(extra), "en")
        assert '<html lang="en"' in english or "<html" not in english, label
        for lang in LANGS:
            translated = _render(world, clients, who, method, path, dict(extra), lang)
            assert f'<html lang="{lang}"' in translated or "<html" not in translated, label
            allowed = set(ALLOWED["common"]) | set(ALLOWED.get(lang, {}))
            left = untranslated(translated, english, lang, world["names"] | allowed,
                                skip_ids=SKIPPED_IDS)
            if left:
                found[lang][f"{label} ({path})"] = left
    return found


def test_every_reachable_page_reads_in_the_language(world: dict[str, Any]) -> None:
    """No English left on any page in German, French or Italian; with ``-s`` it prints the
    count per language (``leftovers: de=0 fr=0 it=0``) and every leftover."""
    found = leftovers(world)
    for lang, pages in found.items():
        for page, left in pages.items():
            print(f"{lang} {page}: {left}")
    counts = {lang: sum(len(v) for v in pages.values()) for lang, pages in found.items()}
    print("leftovers: " + " ".join(f"{lang}={n}" for lang, n in counts.items()))
    assert not any(counts.values()), "English text on the translated pages:\n" + "\n".join(
        f"  {lang} {page}: {left}" for lang, pages in found.items()
        for page, left in pages.items())

