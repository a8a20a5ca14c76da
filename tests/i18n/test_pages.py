"""Every main page, in every language, has no English left; the switcher remembers the choice.

The walk renders each page in English and in the language (Django's test client, the
language cookie that the switcher sets) and fails on any visible text the two share, names,
numbers and the reviewed allow-list of ``textnodes.ALLOWED`` aside. Pages: home, lobby,
sign-up, log-in, the play page of a running game as a player and as a spectator, a finished
game, a profile, the rules pages, the rules editor as staff, a 404. The browser walk is
``tests/e2e/test_i18n_e2e.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse
from textnodes import texts, untranslated

from accounts.models import Preferences, language_of, set_language
from games.boards import board_names, get_board
from games.boards.lessons import get_lesson
from games.core.selectors import legal_actions_json
from games.core.services import submit_action
from games.editor.services import start_draft
from games.engines import get_engine
from games.lessons.page import NAMES as LESSON_NAMES
from games.models import Game, Variant
from games.tables.services import create_game, join_game
from games.turns.mails import turn_mail
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

LANGS = [code for code, _ in settings.LANGUAGES if code != "en"]
COOKIE = settings.LANGUAGE_COOKIE_NAME


def _play(game: Game, users: dict[int, Any], moves: int | None, seed: int = 3) -> Game:
    """Play random legal moves (all of them when ``moves`` is None)."""
    rng = random.Random(seed)
    n = 0
    while game.status == Game.Status.RUNNING and (moves is None or n < moves):
        seat = game.to_move[0]
        legal = legal_actions_json(game, seat)
        game = submit_action(game=game, user=users[seat], seat=seat, action=rng.choice(legal),
                             version=game.version, key=f"walk-{game.pk}-{n}")
        n += 1
    return game


def _build_world() -> dict[str, Any]:
    """Users (one staff), the default variants, a running and a finished game per game with
    a board, an open table."""
    model = get_user_model()
    ann = model.objects.create_user("ann", password="pw-Unused-91", is_staff=True)
    bob = model.objects.create_user("bob", password="pw-Unused-91")
    carl = model.objects.create_user("carl", password="pw-Unused-91")
    load_default_variants()
    pages: dict[str, str] = {}
    for name in board_names():
        variant = Variant.objects.filter(game=name).order_by("pk").first()
        if variant is None:
            continue
        for label, moves in (("running", 12), ("finished", None)):
            game = create_game(creator=ann, variant=variant, rated=True,
                               seats=[{"type": "human"}, {"type": "human"}])
            join_game(game=game, user=bob)
            game.refresh_from_db()
            # A rated table draws who sits where.
            game = _play(game, {s.index: s.user for s in game.seats.all()}, moves)
            pages[f"{name}-{label}"] = reverse("play", args=[game.pk])
            pages[f"{name}-{label}-replay"] = reverse("replay", args=[game.pk]) + "?step=3"
        pages[f"{name}-rules"] = reverse("rules", args=[name])
        lesson = get_lesson(name)
        for number in range(1, len(lesson.steps) + 1 if lesson else 0):
            pages[f"{name}-lesson-{number}"] = reverse("lesson_step", args=[name, number])
    open_table = create_game(creator=bob, variant=Variant.objects.order_by("pk").first(),
                             seats=[{"type": "human"}, {"type": "human"}])
    pages["open-table"] = reverse("play", args=[open_table.pk])
    pages["invite"] = reverse("invite", args=[open_table.invite_token])
    # A draft of every game's first variant: the rules editor's form.

    for name in sorted(set(Variant.objects.values_list("game", flat=True))):
        variant = Variant.objects.filter(game=name).order_by("pk").first()
        start_draft(variant=variant, user=ann)
        pages[f"{name}-draft"] = reverse("editor:draft", args=[variant.pk])
    names = {u.username for u in model.objects.all()}
    names |= {v.name for v in Variant.objects.all()}
    names |= {get_engine(g).title for g in Variant.objects.values_list("game", flat=True)}
    names |= set(LESSON_NAMES)  # the seats of a lesson: proper names
    return {"ann": ann, "bob": bob, "carl": carl, "games": pages, "names": names}


@pytest.fixture(scope="module")
def shared_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The world, built once for the module (two whole games per game: seconds each) in a
    transaction rolled back after the module's last test.  Each test's own transaction
    (``db``) nests in it as a savepoint, so what a test changes is undone before the next
    one, as when every test built its own world."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield _build_world()
        transaction.set_rollback(True)


@pytest.fixture
def world(shared_world: dict[str, Any], db: None) -> dict[str, Any]:
    """The module's world with its people read again: a test that changed one (an e-mail
    address) leaves the next test the stored one, not its changed copy."""
    model = get_user_model()
    people = {key: model.objects.get(pk=shared_world[key].pk) for key in ("ann", "bob", "carl")}
    return {**shared_world, **people}


def _get(client: Client, path: str, lang: str) -> str:
    client.cookies[COOKIE] = lang
    response = client.get(path)
    assert response.status_code == (404 if path.startswith("/no/") else 200), (
        path, response.status_code)
    return response.content.decode()


def _pages(world: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    """(label, who is logged in, path)."""
    games = world["games"]
    variant = Variant.objects.order_by("pk").first()
    pages = [
        ("home", None, reverse("home")),
        ("lobby", None, reverse("lobby")),
        ("lobby signed in", "bob", reverse("lobby")),
        ("sign-up", None, reverse("accounts:signup")),
        ("log-in", None, reverse("accounts:login")),
        ("password reset", None, reverse("accounts:password_reset")),
        ("password reset sent", None, reverse("accounts:password_reset_done")),
        ("password reset bad link", None, reverse("accounts:password_reset_confirm",
                                                  args=["MQ", "bad-token"])),
        ("profile", "ann", reverse("accounts:profile", args=["ann"])),
        ("password", "ann", reverse("accounts:password_change")),
        ("open table", "ann", games["open-table"]),
        ("invite, signed out", None, games["invite"]),
        ("notification settings", "ann", reverse("accounts:notifications")),
        ("editor", "ann", reverse("editor:index")),
        ("editor variant", "ann", reverse("editor:variant", args=[variant.pk])),
        ("leaderboard", None, reverse("leaderboard")),
        ("not found", None, "/no/such/page/"),
    ]
    for key, path in games.items():
        if key.endswith("-running"):
            pages += [(f"{key} player", "ann", path), (f"{key} spectator", "carl", path),
                      (f"{key} anonymous", None, path)]
        elif key.endswith(("-finished", "-rules", "-replay")) or "-lesson-" in key:
            pages.append((key, "bob", path))
        elif key.endswith("-draft"):
            pages.append((key, "ann", path))
    return pages


@pytest.mark.parametrize("lang", LANGS)
def test_main_pages_have_no_english_left(lang: str, world: dict[str, Any]) -> None:
    problems: dict[str, list[str]] = {}
    for label, who, path in _pages(world):
        client = Client()
        if who:
            client.force_login(world[who])
        english = _get(client, path, "en")
        translated = _get(client, path, lang)
        assert f'<html lang="{lang}"' in translated, label
        assert '<html lang="en"' in english, label
        left = untranslated(translated, english, lang, world["names"])
        if left:
            problems[f"{label} ({path})"] = left
    assert not problems, f"English text on the {lang} pages:\n" + "\n".join(
        f"  {page}: {left}" for page, left in problems.items()
    )


def test_the_walk_can_fail() -> None:
    """A page that forgot one string is caught; names, numbers and allowed words are not."""
    english = ('<html><body><h1>Lobby</h1><p>Open tables</p><p title="Seat 2">ann</p>'
               '<p translate="no">Colonia</p><p>#12 · 3</p><script>var x = "Hello";</script>'
               "</body></html>")
    german = ('<html><body><h1>Lobby</h1><p>Open tables</p><p title="Platz 2">ann</p>'
              '<p translate="no">Colonia</p><p>#12 · 3</p><script>var x = "Hello";</script>'
              "</body></html>")
    assert untranslated(german, english, "de", names={"ann"}) == ["Open tables"]
    assert "Hello" not in texts(english) and "Seat 2" in texts(english)


def test_the_switcher_sets_the_language_and_remembers_it(world: dict[str, Any]) -> None:
    client = Client()
    page = client.get(reverse("lobby")).content.decode()
    assert '<html lang="en"' in page and 'action="/i18n/setlang/"' in page
    assert 'name="language"' in page and 'value="de"' in page
    response = client.post("/i18n/setlang/", {"language": "fr", "next": reverse("lobby")})
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    assert client.cookies[COOKIE].value == "fr"
    page = client.get(reverse("home")).content.decode()
    assert '<html lang="fr"' in page and "Aller au salon" in page
    # The choice outlives the session: a new log-in in the same browser keeps it.
    client.force_login(world["bob"])
    client.post(reverse("accounts:logout"))
    assert "_auth_user_id" not in client.session
    assert '<html lang="fr"' in client.get(reverse("home")).content.decode()


def test_an_unknown_language_is_refused_and_english_stays(world: dict[str, Any]) -> None:
    client = Client()
    client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert COOKIE not in client.cookies or client.cookies[COOKIE].value != "xx"
    assert '<html lang="en"' in client.get("/").content.decode()


def test_the_browser_language_is_the_default(world: dict[str, Any]) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9,en;q=0.5").get("/").content.decode()
    assert '<html lang="it"' in page


@pytest.mark.parametrize("lang", LANGS)
def test_the_password_reset_mail_is_in_the_readers_language(lang: str, world, mailoutbox
                                                            ) -> None:
    world["bob"].email = "bob@example.com"
    world["bob"].save()
    client = Client()
    client.cookies[COOKIE] = lang
    client.post(reverse("accounts:password_reset"), {"email": "bob@example.com"})
    assert len(mailoutbox) == 1
    english = "someone (we hope you) asked to reset the password"
    assert english not in mailoutbox[0].body and "Colonia" in mailoutbox[0].subject
    assert "reset your password" not in mailoutbox[0].subject


def test_every_game_with_a_board_has_its_rules_in_every_language() -> None:
    """The rules summary of each board package exists in English, German, French and
    Italian, with the same sections."""
    import re

    from django.template.loader import get_template


    for name in board_names():
        if not type(get_board(name)).__module__.startswith("games.boards."):
            continue  # a test game
        sections = {}
        for lang in ["en", *LANGS]:
            source = get_template(f"boards/{name}/rules/{lang}.html").template.source
            sections[lang] = len(re.findall(r"<h2>", source))
        assert len(set(sections.values())) == 1, (name, sections)


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_rules_page_is_linked_and_in_the_language(lang: str, world) -> None:
    client = Client()
    client.cookies[COOKIE] = lang
    home = client.get(reverse("home")).content.decode()
    for name in board_names():
        url = reverse("rules", args=[name])
        assert f'href="{url}"' in home
        page = client.get(url).content.decode()
        assert f'<html lang="{lang}"' in page and 'class="card rules"' in page
    assert client.get(reverse("rules", args=["no-such-game"])).status_code == 404


def test_a_signed_in_choice_is_remembered_and_applied_at_the_next_login(world) -> None:
    """The switcher stores a signed-in person's choice; logging in anywhere (a new browser,
    no cookie) brings it back."""
    bob = world["bob"]
    client = Client()
    client.force_login(bob)
    client.post("/i18n/setlang/", {"language": "it", "next": "/"})
    assert Preferences.objects.get(user=bob).language == "it" and language_of(bob) == "it"
    fresh = Client()  # another browser: English until bob logs in
    assert '<html lang="en"' in fresh.get("/").content.decode()
    response = fresh.post(reverse("accounts:login"),
                          {"username": "bob", "password": "pw-Unused-91"})
    assert response.status_code == 302
    assert fresh.cookies[COOKIE].value == "it"
    assert '<html lang="it"' in fresh.get("/").content.decode()
    # An unknown code changes nothing.
    client.post("/i18n/setlang/", {"language": "xx", "next": "/"})
    assert Preferences.objects.get(user=bob).language == "it"


def test_a_new_account_keeps_the_language_it_signed_up_in(world) -> None:
    client = Client()
    client.cookies[COOKIE] = "fr"
    response = client.post(reverse("accounts:signup"), {
        "username": "zoe", "email": "", "password1": "Colonia-pass-81!",
        "password2": "Colonia-pass-81!"})
    assert response.status_code == 302
    assert language_of(get_user_model().objects.get(username="zoe")) == "fr"
    assert language_of(world["carl"]) == "en"  # never chose: the default


def test_the_turn_mail_speaks_the_recipients_language(world) -> None:
    game = Game.objects.filter(status=Game.Status.RUNNING).first()
    english = turn_mail(game, world["bob"])
    set_language(user=world["bob"], language="de")
    german = turn_mail(game, world["bob"])
    assert german.subject != english.subject and german.body != english.body


@pytest.mark.parametrize(("lang", "text"), [("de", "Diese Partie gibt es nicht."),
                                            ("fr", "Cette partie n’existe pas."),
                                            ("it", "Questa partita non esiste.")])
def test_api_error_details_follow_accept_language(lang: str, text: str, db: None) -> None:
    """The API's user-facing ``detail`` speaks the client's language; ``code`` stays."""
    response = Client(HTTP_ACCEPT_LANGUAGE=lang).get("/api/games/999999/")
    assert response.status_code == 404
    english = Client().get("/api/games/999999/").json()
    assert response.json()["detail"] == text and english["detail"] == "No such game."
    assert response.json().get("code") == english.get("code")
