"""Sign-up (with its rate limit), log-in with the axes lockout message, password change,
and the profile page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from accounts.views import lockout
from games.models import Variant
from games.results.services import record_game_results
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

PASSWORD = "Colonia-test-pass-81!"


@pytest.fixture(autouse=True)
def clear_cache():
    cache.clear()
    yield
    cache.clear()


def make_user(username="ann", password=PASSWORD):
    return get_user_model().objects.create_user(username=username, password=password)


def test_signup_creates_account_and_logs_in(client):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "ann", "email": "ann@example.org", "password1": PASSWORD,
         "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("lobby")
    user = get_user_model().objects.get(username="ann")
    assert user.email == "ann@example.org"
    assert client.get(reverse("lobby")).context["user"] == user


def test_signup_email_is_optional(client):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "bob", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="bob").exists()


def test_signup_applies_password_validation(client):
    response = client.post(
        reverse("accounts:signup"), {"username": "ann", "password1": "123", "password2": "123"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "too short" in html
    assert not get_user_model().objects.filter(username="ann").exists()


def test_signup_page_renders(client):
    html = client.get(reverse("accounts:signup")).content.decode()
    assert 'name="username"' in html and 'name="password1"' in html and 'name="email"' in html


def test_signup_is_rate_limited_per_address(client, settings):
    settings.SIGNUP_RATE_LIMIT = 2
    for i in range(2):
        client.logout()
        response = client.post(
            reverse("accounts:signup"),
            {"username": f"u{i}", "password1": PASSWORD, "password2": PASSWORD},
        )
        assert response.status_code == 302
    client.logout()
    response = client.post(
        reverse("accounts:signup"),
        {"username": "u3", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 429
    assert "Too many sign-ups" in response.content.decode()
    assert not get_user_model().objects.filter(username="u3").exists()
    # Another address is not affected.
    response = client.post(
        reverse("accounts:signup"),
        {"username": "u4", "password1": PASSWORD, "password2": PASSWORD},
        REMOTE_ADDR="10.1.2.3",
    )
    assert response.status_code == 302


def test_login_and_logout(client):
    make_user()
    response = client.post(reverse("accounts:login"), {"username": "ann", "password": PASSWORD})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    response = client.post(reverse("accounts:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_wrong_password_shows_form_error(client):
    make_user()
    response = client.post(reverse("accounts:login"), {"username": "ann", "password": "nope"})
    assert response.status_code == 200
    assert "lockout-message" not in response.content.decode()


def test_lockout_shows_a_clear_message(client, settings):
    settings.AXES_FAILURE_LIMIT = 3
    make_user()
    for _ in range(2):
        response = client.post(reverse("accounts:login"), {"username": "ann", "password": "x"})
        assert response.status_code == 200
    # The attempt that reaches the limit, and every one after it (even the right password).
    for password in ("x", PASSWORD):
        response = client.post(reverse("accounts:login"),
                               {"username": "ann", "password": password})
        assert response.status_code == 429
        html = response.content.decode()
        assert 'id="lockout-message"' in html
        assert "Too many failed log-in attempts" in html
        assert "15 minutes" in html
        assert "_auth_user_id" not in client.session
    # Another username from the same address is not locked.
    make_user("bob")
    response = client.post(reverse("accounts:login"), {"username": "bob", "password": PASSWORD})
    assert response.status_code == 302


def test_lockout_callable_renders_the_login_page(rf):
    response = lockout(rf.get("/accounts/login/"))
    assert response.status_code == 429
    assert b"lockout-message" in response.content


def test_change_password(client):
    user = make_user()
    client.force_login(user)
    url = reverse("accounts:password_change")
    assert client.get(url).status_code == 200
    new = "Another-pass-9431!"
    response = client.post(
        url, {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_change_done")
    user.refresh_from_db()
    assert user.check_password(new)


def test_change_password_needs_login(client):
    response = client.get(reverse("accounts:password_change"))
    assert response.status_code == 302
    assert reverse("accounts:login") in response["Location"]


def test_profile_lists_games_with_results(client):
    ann, bob = make_user("ann"), make_user("bob")
    load_default_variants(games=["newhaven"])
    variant = Variant.objects.get(game="newhaven", name="standard")
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "human"}])

    join_game(game=game, user=bob)
    finished = create_game(creator=ann, variant=variant,
                           seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=finished, user=bob)
    type(finished).objects.filter(pk=finished.pk).update(
        status="finished", result={"scores": [12, 7], "winners": [0]}
    )
    # The pages read results from their one record, written when a game ends.
    finished.refresh_from_db()
    record_game_results(game=finished)
    response = client.get(reverse("accounts:profile", args=["ann"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-game-id="{game.pk}"' in html
    assert f'data-game-id="{finished.pk}"' in html
    assert "won" in html and "(12)" in html
    assert "Change password" not in html  # not her own page when anonymous
    client.force_login(ann)
    own = client.get(reverse("accounts:profile", args=["ann"])).content.decode()
    assert "Change password" in own


def test_profile_of_unknown_user_is_404(client):
    assert client.get(reverse("accounts:profile", args=["nobody"])).status_code == 404


# --- security review ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["login", "Logout", "signup", "PASSWORD"])
def test_usernames_of_account_pages_are_reserved(client, name):
    """``/accounts/<name>/`` is the profile URL: a player called "password" had the password
    page as profile, and "login" a redirect loop."""
    response = client.post(
        reverse("accounts:signup"),
        {"username": name, "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 400
    assert "reserved" in response.content.decode()
    from rest_framework.test import APIClient

    r = APIClient().post("/api/auth/register/", {"username": name, "password": PASSWORD})
    assert r.status_code == 400 and "username" in r.json()["errors"]
    assert not get_user_model().objects.filter(username__iexact=name).exists()


@pytest.mark.parametrize(
    "target",
    ["https://evil.example/", "//evil.example/", "http:evil.example", "/\\evil.example",
     "javascript:alert(1)"],
)
def test_login_never_redirects_off_site(client, target):
    make_user()
    response = client.post(
        reverse("accounts:login") + f"?next={target}",
        {"username": "ann", "password": PASSWORD, "next": target},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")


def test_login_keeps_a_local_next(client):
    make_user()
    response = client.post(reverse("accounts:login"),
                           {"username": "ann", "password": PASSWORD, "next": "/lobby/"})
    assert response["Location"] == "/lobby/"


def test_login_page_escapes_next(client):
    html = client.get(reverse("accounts:login"), {"next": '/"><script>x</script>'}).content
    assert b"<script>x</script>" not in html


def test_password_change_needs_the_old_password(client):
    user = make_user()
    client.force_login(user)
    new = "Another-pass-9431!"
    response = client.post(reverse("accounts:password_change"),
                           {"old_password": "wrong", "new_password1": new, "new_password2": new})
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.check_password(PASSWORD) and not user.check_password(new)


def test_logout_needs_a_post(client):
    client.force_login(make_user())
    assert client.get(reverse("accounts:logout")).status_code == 405
    assert "_auth_user_id" in client.session


def test_profile_never_shows_the_email_address(client):
    ann = make_user()
    ann.email = "ann-private@example.org"
    ann.save()
    for viewer in (None, make_user("bob"), ann):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        html = client.get(reverse("accounts:profile", args=["ann"])).content.decode()
        assert "ann-private" not in html


def test_signup_limit_ignores_a_spoofed_forwarded_for(client, settings):
    """The limit is keyed by REMOTE_ADDR: a made-up X-Forwarded-For does not reset it."""
    settings.SIGNUP_RATE_LIMIT = 1
    codes = []
    for i in range(3):
        client.logout()
        codes.append(client.post(
            reverse("accounts:signup"),
            {"username": f"x{i}", "password1": PASSWORD, "password2": PASSWORD},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}", HTTP_X_REAL_IP=f"198.51.100.{i}",
        ).status_code)
    assert codes == [302, 429, 429]


def test_signed_in_visitor_with_next_to_the_login_page_is_not_a_500(client):
    """``/accounts/login/?next=/accounts/login/`` while signed in: Django raises a
    redirect-loop ValueError (500); now it is the usual redirect home."""
    client.force_login(make_user())
    login = reverse("accounts:login")
    for target in (login, login + "?x=1"):
        response = client.get(login, {"next": target})
        assert response.status_code == 302 and response["Location"] == reverse("home")
