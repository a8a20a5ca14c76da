"""Usernames that only look like someone else's are refused, on the page and the API.

``аdmin`` with a Cyrillic а used to be accepted next to ``admin``.  The check compares
UTS #39 skeletons (accounts/validators.py), kept per user in an indexed table.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import UsernameSkeleton
from accounts.validators import skeleton, username_keys

pytestmark = pytest.mark.django_db

PASSWORD = "Colonia-test-pass-81!"
LOOK_ALIKES = [
    ("admin", "аdmin"),      # Cyrillic а
    ("admin", "АDMIN"),      # Cyrillic А, upper case
    ("paypal", "раураl"),    # four Cyrillic letters
    ("modern", "rnodern"),   # r + n reads as m
    ("login2", "IOgin2"),    # capital I reads as l, case aside
    ("bob", "bοb"),          # Greek omicron
]


@pytest.fixture(autouse=True)
def clear_cache():
    cache.clear()
    yield
    cache.clear()


def _users() -> set[str]:
    return set(get_user_model().objects.values_list("username", flat=True))


def test_skeletons_follow_uts39():
    assert skeleton("аdmin") == skeleton("admin") == "adrnin"
    assert skeleton("Admin") != skeleton("admin")  # case is ours to fold, not UTS #39's
    assert username_keys("Admin") == username_keys("admin")
    assert username_keys("alice") != username_keys("alicia")


def test_every_user_saved_keeps_its_skeletons():
    user = get_user_model().objects.create_user(username="аdmin", password=PASSWORD)
    assert set(UsernameSkeleton.objects.filter(user=user).values_list("key", flat=True)) == {
        "adrnin"}
    user.username = "zed"
    user.save()
    assert set(UsernameSkeleton.objects.filter(user=user).values_list("key", flat=True)) == {
        "zed"}
    user.save(update_fields=["last_login"])  # a log-in: nothing to redo
    assert UsernameSkeleton.objects.filter(user=user).count() == 1


@pytest.mark.parametrize(("existing", "look_alike"), LOOK_ALIKES)
def test_the_sign_up_page_refuses_a_look_alike(client, existing, look_alike):
    get_user_model().objects.create_user(username=existing, password=PASSWORD)
    response = client.post(reverse("accounts:signup"), {
        "username": look_alike, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 400
    assert "looks too much like one that is already taken" in response.content.decode()
    assert _users() == {existing}


@pytest.mark.parametrize(("existing", "look_alike"), LOOK_ALIKES)
def test_the_api_refuses_a_look_alike(existing, look_alike):
    get_user_model().objects.create_user(username=existing, password=PASSWORD)
    response = APIClient().post("/api/auth/register/",
                                {"username": look_alike, "password": PASSWORD}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["username"] == [
        "This username looks too much like one that is already taken: please choose another."]
    assert _users() == {existing}


def test_the_message_is_translated(client):
    get_user_model().objects.create_user(username="admin", password=PASSWORD)
    response = client.post(reverse("accounts:signup"), {
        "username": "аdmin", "password1": PASSWORD, "password2": PASSWORD},
        HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 400
    assert "ähnelt zu sehr einem bereits vergebenen" in response.content.decode()


def test_different_names_and_a_case_variant_get_their_usual_answers(client):
    get_user_model().objects.create_user(username="admin", password=PASSWORD)
    taken = client.post(reverse("accounts:signup"), {
        "username": "Admin", "password1": PASSWORD, "password2": PASSWORD})
    html = taken.content.decode()
    assert taken.status_code == 400 and "looks too much like" not in html  # "already exists"
    response = APIClient().post("/api/auth/register/",
                                {"username": "adminia", "password": PASSWORD}, format="json")
    assert response.status_code == 201
    assert client.post(reverse("accounts:signup"), {
        "username": "Zoë", "password1": PASSWORD, "password2": PASSWORD}).status_code == 302
    assert _users() == {"admin", "adminia", "Zoë"}
