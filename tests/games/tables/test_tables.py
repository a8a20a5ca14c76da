"""Around the board: rematches, invite links and sign-up, profiles, the log as appended."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.urls import reverse

from games.core.errors import GameFull, GameNotOpen, GameNotRunning, NotSeated
from games.core.selectors import get_game, legal_actions_json
from games.core.services import submit_action
from games.data_texts import data_gettext
from games.models import Game, Move, Variant
from games.play.page import render_fragments
from games.tables.services import (
    create_game,
    decline_rematch,
    join_game,
    rematch_game,
    resign_game,
)

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
PASSWORD = "Colonia-tables-pw-93!"


@pytest.fixture
def finished(variant, ann, bob, eve):
    """A finished 3-seat toy game: ann, an AI (easy), bob."""
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "easy"},
                              {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    return _play_with_ai(game, ann, bob)


def _play_with_ai(game, ann, bob):
    """Random legal moves to the end; seat 1 is the AI's (submitted as the AI task does)."""
    rng = random.Random(5)
    users = {0: ann, 2: bob}
    n = 0
    while game.status == Game.Status.RUNNING:
        seat = game.to_move[0]
        action = rng.choice(legal_actions_json(game, seat))
        if seat in users:
            game = submit_action(game=game, user=users[seat], seat=seat, action=action,
                                 version=game.version, key=f"f{n}")
        else:
            game = submit_action(game=game, seat=seat, action=action, version=game.version,
                                 key=f"ai-{n}", ai=True)
        n += 1
    return game


# --- rematch -------------------------------------------------------------------------------


def test_rematch_rotates_the_seats_and_waits_for_the_others(finished, ann, bob, eve):
    rematch = rematch_game(game=finished, user=bob)
    seats = list(rematch.seats.order_by("index"))
    assert rematch.rematch_of == finished and rematch.status == Game.Status.OPEN
    assert rematch.variant_version == finished.variant_version  # the same rules
    assert rematch.variant_data == finished.variant_data
    assert rematch.created_by == bob
    # The seats move on by one: (ann, AI, bob) -> (AI, bob, ann), so the next one starts.
    assert [s.user for s in seats] == [None, bob, None]
    assert seats[0].ai_level == "easy"  # the AI keeps its level
    assert seats[2].reserved_for == ann and not seats[2].ai_level  # kept for ann
    # Nobody else may take ann's seat.
    with pytest.raises(GameFull):
        join_game(game=rematch, user=eve)
    # Ann accepts: she takes her seat and the game starts.
    again = rematch_game(game=finished, user=ann)
    assert again.pk == rematch.pk and again.status == Game.Status.RUNNING
    assert rematch.seats.get(index=2).user == ann
    # Asking once more leads to the same table.
    assert rematch_game(game=finished, user=ann).pk == rematch.pk


def test_a_rematch_after_a_resignation_offers_the_resigner_their_seat(placegame, ann, bob,
                                                                      on_commit):
    game = create_game(creator=ann, variant=_place_variant(), seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    resign_game(game=game, user=ann)
    with on_commit():
        rematch = rematch_game(game=game, user=bob)
    seats = list(rematch.seats.order_by("index"))
    # Never the AI in ann's place: her seat waits for her, and the game with it.
    assert [(s.user, s.reserved_for, s.ai_level) for s in seats] == [
        (bob, None, ""), (None, ann, "")]
    assert rematch.status == Game.Status.OPEN
    html = render_fragments(get_game(game.pk), ann)
    assert 'id="rematch-offer"' in html and "bob offers a rematch" in html
    assert 'id="rematch-decline"' in html
    assert 'id="spectating"' not in html  # she played it
    rematch_game(game=game, user=ann)
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.RUNNING
    assert [s.user for s in rematch.seats.order_by("index")] == [bob, ann]


def test_a_declined_rematch_is_closed_and_says_so(placegame, ann, bob, eve, client):
    game = create_game(creator=ann, variant=_place_variant(), seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    resign_game(game=game, user=bob)
    rematch = rematch_game(game=game, user=ann)
    with pytest.raises(NotSeated):
        decline_rematch(game=game, user=eve)
    client.force_login(bob)
    response = client.post(reverse("rematch_decline", args=[game.pk]))
    assert response.status_code == 302 and response.url == reverse("play", args=[game.pk])
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.ABORTED
    assert rematch.result == {"ended_by": "declined", "declined_by": "bob"}
    assert "bob declined the rematch." in render_fragments(get_game(game.pk), ann)
    with pytest.raises(GameNotOpen):  # nothing left to decline
        decline_rematch(game=game, user=bob)
    # A new offer may follow; it is a new table.
    assert rematch_game(game=game, user=ann).pk != rematch.pk


def test_the_rematch_table_page_offers_the_decline(variant, ann, bob, client):
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    resign_game(game=game, user=bob)
    rematch = rematch_game(game=game, user=ann)
    client.force_login(bob)
    html = client.get(reverse("play", args=[rematch.pk])).content.decode()
    assert f'action="{reverse("rematch_decline", args=[game.pk])}"' in html
    decline_rematch(game=game, user=bob)
    html = client.get(reverse("play", args=[rematch.pk])).content.decode()
    assert "bob declined the rematch." in html


def test_rematch_is_for_the_players_of_a_finished_game(finished, variant, ann, eve):
    with pytest.raises(NotSeated):
        rematch_game(game=finished, user=eve)
    running = create_game(creator=ann, variant=variant,
                          seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    with pytest.raises(GameNotRunning):
        rematch_game(game=running, user=ann)
    assert not Game.objects.filter(rematch_of__isnull=False).exists()


def test_rematch_against_ai_only_starts_at_once(variant, ann):
    game = create_game(creator=ann, variant=variant,
                       seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    game = _play_with_ai(game, ann, None)
    rematch = rematch_game(game=game, user=ann)
    assert rematch.status == Game.Status.RUNNING


def test_the_end_of_a_game_offers_a_rematch_and_the_lobby(client, placegame, ann, on_commit):
    client.force_login(ann)
    with on_commit():
        client.post(reverse("lobby_create"), {
            "variant": _place_variant().pk,
            "num_players": 2, "seat_2": "ai-random",
            "seats_as_listed": "on",  # ann plays seat 0 below
        })
    game = Game.objects.get(game_name="placegame")
    n = 0
    while game.status == Game.Status.RUNNING:
        action = legal_actions_json(game, 0)[0]
        with on_commit():
            client.post(reverse("act", args=[game.pk]), {
                "action": json.dumps(action), "version": game.version, "key": f"e{n}"})
        game.refresh_from_db()
        n += 1
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert 'id="rematch"' in html and 'id="back-to-lobby"' in html
    with on_commit():
        response = client.post(reverse("rematch", args=[game.pk]))
    rematch = Game.objects.get(rematch_of=game)
    assert response["Location"] == reverse("play", args=[rematch.pk])
    assert rematch.status == Game.Status.RUNNING  # the other seat is an AI
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    assert f'href="/games/{rematch.pk}/" id="go-rematch"' in html


def _place_variant():
    return Variant.objects.get(game="placegame")


# --- invites -------------------------------------------------------------------------------


def test_the_invite_link_is_absolute_with_a_copy_button(client, nh_variants, ann):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    client.force_login(ann)
    html = client.get(reverse("play", args=[game.pk])).content.decode()
    url = "http://testserver" + reverse("invite", args=[game.invite_token])
    assert f'id="invite-url" class="invite" readonly value="{url}"' in html
    assert 'data-copy-from="#invite-url"' in html


def test_a_friend_who_signs_up_from_the_invite_returns_to_the_table(client, nh_variants, ann):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    invite = reverse("invite", args=[game.invite_token])
    html = client.get(invite).content.decode()
    signup = reverse("accounts:signup") + "?next=" + invite
    assert f'href="{signup}"' in html
    page = client.get(signup).content.decode()
    assert f'name="next" value="{invite}"' in page
    response = client.post(reverse("accounts:signup"), {
        "username": "newcomer", "email": "n@example.org", "password1": PASSWORD,
        "password2": PASSWORD, "next": invite,
    })
    assert response.status_code == 302 and response["Location"] == invite
    html = client.get(invite).content.decode()
    assert f'data-join="{game.pk}"' in html


def test_sign_up_ignores_a_next_url_elsewhere(client, db):
    response = client.post(reverse("accounts:signup"), {
        "username": "wanderer", "email": "w@example.org", "password1": PASSWORD,
        "password2": PASSWORD, "next": "https://evil.example/",
    })
    assert response["Location"] == reverse("lobby")


# --- profiles --------------------------------------------------------------------------------


def test_another_players_profile_never_says_your_turn(client, variant, ann, bob):
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    mover = ann if game.to_move == [0] else bob
    other = bob if mover is ann else ann
    client.force_login(other)
    html = client.get(reverse("accounts:profile", args=[mover.username])).content.decode()
    assert "your turn" not in html
    assert f"{mover.username} to move" in html
    client.force_login(mover)
    html = client.get(reverse("accounts:profile", args=[mover.username])).content.decode()
    assert "your turn" in html


def test_peoples_names_in_the_lists_are_not_text_to_translate(client, variant, ann, bob):
    """A username is a name (translate="no": page translators and the language checks
    leave it alone); the AI's label is our translated text and stays open to them."""
    create_game(creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "human"}])
    create_game(creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "ai"}])
    client.force_login(bob)
    lobby = client.get(reverse("lobby")).content.decode()
    assert '<td><bdi translate="no">ann</bdi></td>' in lobby  # the creator column
    assert re.search(r'<span class="player-chip"><bdi translate="no">ann</bdi>', lobby)
    client.force_login(ann)
    for html in (client.get(reverse("lobby")).content.decode(),
                 client.get(reverse("accounts:profile", args=["ann"])).content.decode()):
        assert '<bdi translate="no">ann</bdi>' in html and "AI (" in html
        assert not re.search(r'translate="no">[^<]*\bAI\b', html)


def test_a_description_an_admin_typed_is_marked_as_of_unknown_language(client, ann):
    """A shipped variant's description is our text, translated; one an admin typed is shown
    as typed in every language, so it is marked lang="" (not claimed as the page's)."""
    from games.engines import get_engine
    from games.variants.services import load_default_variants, save_variant

    load_default_variants(games=["newhaven"])
    data = get_engine("newhaven").default_variants()["standard"]
    shipped = data_gettext(data["description"])
    data.update(description="Drei Felder weniger: eine kurze Partie.")
    save_variant(game="newhaven", name="typed-words", data=data)
    client.force_login(ann)
    for name in ("home", "lobby"):
        html = client.get(reverse(name)).content.decode()
        assert re.search(r'<span[^>]* lang="">Drei Felder weniger: eine kurze Partie\.</span>',
                         html), name
        assert re.search(rf'<span[^>]*>{re.escape(shipped)}</span>', html), name
        assert not re.search(rf'lang="">{re.escape(shipped)}', html), name


# --- the log: appended, never re-sent ------------------------------------------------------------


def test_the_log_is_appended_from_the_version_the_page_shows(client, placegame, ann, bob):
    game = create_game(creator=ann, variant=_place_variant(),
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    users = {0: ann, 1: bob}
    for n in range(4):
        seat = game.to_move[0]
        game = submit_action(game=game, user=users[seat], seat=seat,
                             action=legal_actions_json(game, seat)[0], version=game.version,
                             key=f"l{n}")
    client.force_login(ann)
    url = reverse("play", args=[game.pk])
    full = client.get(url, **HX).content.decode()
    assert re.findall(r'data-seq="(\d+)"', full) == ["4", "3", "2", "1"]  # newest first
    shown = client.get(url + "?version=2", **HX).content.decode()
    assert 'hx-swap-oob="afterbegin:#game-log"' in shown and 'data-since="2"' in shown
    assert re.findall(r'data-seq="(\d+)"', shown) == ["4", "3"]
    same = client.get(url + "?version=4", **HX).content.decode()
    assert re.findall(r'data-seq="(\d+)"', same) == []
    # A version the page cannot show gets the whole log.
    assert re.findall(r'data-seq="(\d+)"', client.get(url + "?version=99", **HX)
                      .content.decode()) == ["4", "3", "2", "1"]


def test_log_numbers_keep_all_their_digits(placegame, ann, bob):
    game = create_game(creator=ann, variant=_place_variant(),
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    game.refresh_from_db()
    Move.objects.create(game=game, seq=123, seat=0, action={"type": "mark", "row": 0, "col": 0},
                        key="x", event={"type": "mark", "seat": 0, "cell": [0, 0]})
    html = render_fragments(get_game(game.pk), ann)
    assert '<span class="seq">123</span>' in html
    assert "ann marked A1." in html  # the event's text, with the seat's name
