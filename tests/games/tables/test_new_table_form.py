"""The "New table" form shows only what applies (issue 25): the seats of the chosen player
count, a clock's own fields once it is chosen; field ids that match their labels; readable
departure rules.  Without JavaScript the server renders that state (the "Update the form"
button asks it again) and ignores what does not apply when the form is sent."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Game, Variant
from games.tables import forms
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db


@pytest.fixture
def variants(db):
    load_default_variants(games=["newhaven", "nouvellefrance"])
    return {(v.game, v.name): v for v in Variant.objects.all()}


def row(html: str, attr: str) -> str:
    """The opening tag of the element with ``attr`` (e.g. 'data-seat-row="3"')."""
    found = re.search(r"<[^>]*" + re.escape(attr) + r"[^>]*>", html)
    assert found, f"no element with {attr}"
    return found.group(0)


def control(html: str, field_id: str) -> str:
    found = re.search(r'<(?:select|input)[^>]*id="' + re.escape(field_id) + r'"[^>]*>', html)
    assert found, f"no control {field_id}"
    return found.group(0)


def update(client, **data) -> str:
    response = client.post(reverse("lobby_create"), {"update": "1", **data})
    assert response.status_code == 200
    return response.content.decode()


def test_each_seat_field_has_the_id_of_its_label(client, variants, ann):
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    for n in (2, 3, 4):
        assert f'<label for="id_seat_{n}">Seat {n}</label>' in html
        assert f'name="seat_{n}"' in control(html, f"id_seat_{n}")
    assert "id_seat_1" not in html  # seat 1 is the creator's: no field


def test_two_players_show_one_other_seat(client, variants, ann):
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    assert " hidden" not in row(html, 'data-seat-row="2"')
    for n in (3, 4):
        assert " hidden" in row(html, f'data-seat-row="{n}"')
        assert "disabled" in control(html, f"id_seat_{n}")
    html = update(client, variant=variants["newhaven", "standard"].pk, num_players="4")
    for n in (2, 3, 4):
        assert " hidden" not in row(html, f'data-seat-row="{n}"')
        assert "disabled" not in control(html, f"id_seat_{n}")


def test_the_clock_fields_follow_the_clock(client, variants, ann):
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    for name in ("reserve_minutes", "increment", "days"):
        assert " hidden" in row(html, f'data-field="{name}"')
        assert "disabled" in control(html, f"id_{name}")
    html = update(client, variant=variants["newhaven", "standard"].pk, num_players="2",
                  clock="live")
    assert " hidden" not in row(html, 'data-field="reserve_minutes"')
    assert " hidden" not in row(html, 'data-field="increment"')
    assert " hidden" in row(html, 'data-field="days"')
    html = update(client, variant=variants["newhaven", "standard"].pk, num_players="2",
                  clock="correspondence", departure_rule="lose")
    assert " hidden" in row(html, 'data-field="reserve_minutes"')
    assert " hidden" not in row(html, 'data-field="days"')
    # The takeover level applies under either rule (a seat handed over, or left by one
    # of three people).
    assert " hidden" not in row(html, 'data-field="takeover_level"')


def test_the_departure_rules_are_whole_sentences(client, variants, ann):
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    assert '<select name="departure_rule"' not in html
    for value, text in Game.DepartureRule.choices:
        radio = control(html, f"id_departure_rule_{0 if value == 'ai' else 1}")
        assert 'type="radio"' in radio and f'value="{value}"' in radio
        assert f"<span>{text}</span>" in html


def test_the_player_counts_are_the_chosen_variants(client, variants, ann, monkeypatch):
    """Only the chosen variant's player counts are offered (each variant radio says its
    own for the script); a count it has not falls back to its smallest."""
    real = forms.browser_games

    def side_b_for_two() -> list[dict]:
        games = real()
        for game in games:
            for variant in game["variants"]:
                if variant["name"] == "side-b":
                    variant["player_counts"] = [2]
        return games

    monkeypatch.setattr(forms, "browser_games", side_b_for_two)
    client.force_login(ann)
    side_b, standard = variants["newhaven", "side-b"], variants["newhaven", "standard"]
    html = update(client, variant=side_b.pk, num_players="4")
    select = re.search(r'<select name="num_players".*?</select>', html, re.S).group(0)
    assert '<option value="2" selected>' in select
    assert '<option value="3" disabled>' in select and '<option value="4" disabled>' in select
    assert " hidden" in row(html, 'data-seat-row="3"')
    assert 'data-counts="2"' in row(html, f'id="id_variant_{side_b.pk}"')
    assert 'data-counts="2 3 4"' in row(html, f'id="id_variant_{standard.pk}"')
    html = update(client, variant=standard.pk, num_players="4")
    select = re.search(r'<select name="num_players".*?</select>', html, re.S).group(0)
    assert '<option value="4" selected>' in select and "disabled" not in select
    # Sent anyway: the server says which counts the variant has.
    response = client.post(reverse("lobby_create"), {
        "variant": side_b.pk, "num_players": "3", "seat_2": "ai-random", "seat_3": "ai-random"})
    assert response.status_code == 400 and not Game.objects.exists()
    assert "is played by 2 players" in response.content.decode()


def test_what_does_not_apply_is_ignored(client, variants, ann):
    """Seats beyond the count and the other clocks' fields are ignored, their errors too."""
    client.force_login(ann)
    response = client.post(reverse("lobby_create"), {
        "variant": variants["newhaven", "standard"].pk, "num_players": "2",
        "seat_2": "ai-random", "seat_3": "ai-godlike", "seat_4": "nonsense",
        "clock": "none", "reserve_minutes": "-5", "increment": "x", "days": "999",
        "departure_rule": "lose", "takeover_level": "hard",
    })
    assert response.status_code == 302, response.content.decode()[:3000]
    game = Game.objects.get()
    assert game.num_players == 2 and game.clock == Game.Clock.NONE
    assert (game.departure_rule, game.takeover_level) == (Game.DepartureRule.LOSE, "hard")
    # The seat order is drawn at the start (fair seating): the seats, in any order.
    assert sorted(s.ai_level for s in game.seats.all()) == ["", "random"]


def test_what_applies_is_still_checked(client, variants, ann):
    client.force_login(ann)
    response = client.post(reverse("lobby_create"), {
        "variant": variants["newhaven", "standard"].pk, "num_players": "3",
        "seat_2": "ai-random", "seat_3": "ai-godlike", "clock": "live",
        "reserve_minutes": "-5", "increment": "5",
    })
    assert response.status_code == 400 and not Game.objects.exists()
    html = response.content.decode()
    assert html.count('class="field-error"') == 2  # seat 3 and the reserve


def test_update_makes_no_table(client, variants, ann):
    client.force_login(ann)
    update(client, variant=variants["newhaven", "standard"].pk, num_players="2",
           seat_2="ai-random")
    assert not Game.objects.exists()


def test_a_clock_sent_without_its_fields_has_the_fields_shown_defaults(client, variants, ann):
    """Without JavaScript a clock chosen and sent before "Update the form" comes without its
    fields (hidden, disabled): the table gets what the form would have shown."""
    client.force_login(ann)
    base = {"variant": variants["newhaven", "standard"].pk, "num_players": "2",
            "seat_2": "ai-random"}
    assert client.post(reverse("lobby_create"), {**base, "clock": "live"}).status_code == 302
    assert client.post(reverse("lobby_create"),
                       {**base, "clock": "correspondence"}).status_code == 302
    live, correspondence = Game.objects.order_by("pk")
    assert (live.clock_reserve, live.clock_increment) == (600, 5)
    assert correspondence.clock_days == 3


def test_a_double_click_opens_one_table(client, variants, ann):
    """The form's request key: sent twice, one table (the first), also one still waiting
    for people (it would otherwise count twice against the open-table limit)."""
    client.force_login(ann)
    html = client.get(reverse("lobby")).content.decode()
    key = re.search(r'id="create-table".*?name="key" value="([0-9a-f]{32})"', html,
                    re.S).group(1)
    data = {"variant": variants["newhaven", "standard"].pk, "num_players": "2",
            "seat_2": "open", "clock": "none", "departure_rule": "ai",
            "takeover_level": "normal", "key": key}
    first = client.post(reverse("lobby_create"), data)
    second = client.post(reverse("lobby_create"), data)
    game = Game.objects.get()
    assert game.status == Game.Status.OPEN
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == reverse("play", args=[game.pk])
