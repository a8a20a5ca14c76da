"""Table chat: services (length, rate limit, mutes, staff removal), views (escaping,
spectators, HTMX and plain posts) and the live push over the game's socket."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from games.chat import services
from games.chat.errors import (
    ChatClosed,
    ChatError,
    ChatInvalid,
    ChatNotAllowed,
    ChatRateLimited,
    ChatTooLong,
)
from games.chat.selectors import chat_messages
from games.live import broadcast
from games.models import ChatMessage, ChatMute, Game
from games.tables.services import create_game, join_game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("clear_cache")]

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def staff(make_user):
    user = make_user("mod")
    user.is_staff = True
    user.save()
    return user


def chat_url(game: Game) -> str:
    return reverse("chat", args=[game.pk])


# --- services ---------------------------------------------------------------------------------


def test_players_and_signed_in_spectators_post(table, ann, eve, on_commit):
    sent = []
    original = broadcast.chat_updated
    broadcast.chat_updated = lambda game_id: sent.append(game_id) or True
    try:
        with on_commit():
            services.post_message(game=table, user=ann, text="  hello  ")
        with on_commit():
            services.post_message(game=table, user=eve, text="hi from the rail")
    finally:
        broadcast.chat_updated = original
    texts = [(m.author_name, m.text) for m in chat_messages(table, ann)]
    assert texts == [("ann", "hello"), ("eve", "hi from the rail")]
    assert sent == [table.pk, table.pk]  # a hint after each commit


def test_anonymous_cannot_post(table):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(ChatNotAllowed):
        services.post_message(game=table, user=AnonymousUser(), text="hi")
    assert not ChatMessage.objects.exists()


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "\x01\x02", None, 42])
def test_empty_messages_are_refused(table, ann, text):
    with pytest.raises(ChatInvalid):
        services.post_message(game=table, user=ann, text=text)
    assert not ChatMessage.objects.exists()


@override_settings(CHAT_MAX_LENGTH=500)
def test_length_limit(table, ann):
    services.post_message(game=table, user=ann, text="x" * 500)
    with pytest.raises(ChatTooLong) as info:
        services.post_message(game=table, user=ann, text="y" * 501)
    assert "500" in str(info.value) and "501" in str(info.value)
    assert ChatMessage.objects.count() == 1


def test_control_characters_are_dropped(table, ann):
    message = services.post_message(game=table, user=ann, text="a\x00b\x1bc\r\nd\n\n\n\ne")
    assert message.text == "abc\nd\n\ne"


@override_settings(CHAT_RATE_LIMIT=3)
def test_rate_limit_per_person(table, ann, bob):
    for i in range(3):
        services.post_message(game=table, user=ann, text=f"m{i}")
    with pytest.raises(ChatRateLimited):
        services.post_message(game=table, user=ann, text="one too many")
    services.post_message(game=table, user=bob, text="bob is not limited by ann")
    assert ChatMessage.objects.count() == 4


@override_settings(CHAT_RATE_LIMIT=1)
def test_rate_limit_fails_open_without_cache(table, ann, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "add", broken)
    for i in range(3):
        services.post_message(game=table, user=ann, text=f"m{i}")
    assert ChatMessage.objects.count() == 3


def test_aborted_table_chat_is_closed(variant, ann):
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "human"}])
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)
    game.refresh_from_db()
    with pytest.raises(ChatClosed):
        services.post_message(game=game, user=ann, text="hello?")


def test_open_and_finished_tables_have_a_chat(variant, ann):
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}, {"type": "human"}])
    services.post_message(game=game, user=ann, text="anyone?")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    services.post_message(game=game, user=ann, text="gg")
    assert ChatMessage.objects.filter(game=game).count() == 2


def test_mute_is_per_viewer_and_persisted(table, ann, bob, eve):
    services.post_message(game=table, user=bob, text="from bob")
    services.post_message(game=table, user=eve, text="from eve")
    services.mute(user=ann, muted_id=eve.pk)
    services.mute(user=ann, muted_id=eve.pk)  # idempotent
    assert ChatMute.objects.filter(user=ann).count() == 1
    assert [m.text for m in chat_messages(table, ann)] == ["from bob"]
    assert [m.text for m in chat_messages(table, bob)] == ["from bob", "from eve"]
    # Also at other tables, and until unmuted.
    assert services.unmute(user=ann, muted_id=eve.pk) is True
    assert services.unmute(user=ann, muted_id=eve.pk) is False
    assert [m.text for m in chat_messages(table, ann)] == ["from bob", "from eve"]


def test_mute_refuses_oneself_and_strangers(table, ann):
    with pytest.raises(ChatInvalid):
        services.mute(user=ann, muted_id=ann.pk)
    with pytest.raises(ChatInvalid):
        services.mute(user=ann, muted_id=999_999)


def test_only_staff_remove(table, ann, bob, staff):
    message = services.post_message(game=table, user=bob, text="rude words")
    with pytest.raises(ChatError):
        services.remove_message(message=message, by=ann)
    message.refresh_from_db()
    assert message.removed_at is None
    services.remove_message(message=message, by=staff)
    message.refresh_from_db()
    assert message.removed and message.removed_by == staff


# --- views ------------------------------------------------------------------------------------


def test_play_page_shows_the_chat_escaped(client, table, ann, bob):
    services.post_message(game=table, user=bob, text='<script>alert("x")</script> & co')
    client.force_login(ann)
    html = client.get(reverse("play", args=[table.pk])).content.decode()
    assert 'id="chat-panel"' in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in html
    assert '<script>alert("x")' not in html
    assert 'id="chat-form"' in html


def test_anonymous_spectator_reads_but_gets_no_form(client, table, bob):
    services.post_message(game=table, user=bob, text="visible to all")
    html = client.get(reverse("play", args=[table.pk])).content.decode()
    assert "visible to all" in html
    assert 'name="text"' not in html
    assert reverse("accounts:login") in html
    response = client.post(chat_url(table), {"text": "anon here"})
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]
    response = client.post(chat_url(table), {"text": "anon here"}, **HX)
    assert response["X-Colonia-Error"] == "403"
    assert not ChatMessage.objects.filter(text="anon here").exists()


def test_plain_post_redirects_to_the_chat(client, table, eve):
    client.force_login(eve)
    response = client.post(chat_url(table), {"text": "spectator says hi"})
    assert response.status_code == 302
    assert response["Location"] == reverse("play", args=[table.pk]) + "#chat-panel"
    assert ChatMessage.objects.get().author == eve


def test_htmx_post_answers_the_log_and_an_empty_form(client, table, ann):
    client.force_login(ann)
    response = client.post(chat_url(table), {"text": "hello <b>bob</b>"}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert '<ol id="chat-log"' in html and 'hx-swap-oob="true"' in html
    assert "hello &lt;b&gt;bob&lt;/b&gt;" in html
    assert 'id="chat-form"' in html and 'value=""' in html
    assert "data-version" not in html  # never mixed with the board's versioned fragments


@override_settings(CHAT_MAX_LENGTH=10)
def test_htmx_post_too_long_keeps_the_text_and_says_why(client, table, ann):
    client.force_login(ann)
    response = client.post(chat_url(table), {"text": "0123456789ABC"}, **HX)
    html = response.content.decode()
    assert response["X-Colonia-Error"] == "400"
    assert 'id="chat-error"' in html and "at most 10 characters" in html
    assert 'value="0123456789ABC"' in html
    assert not ChatMessage.objects.exists()


@override_settings(CHAT_RATE_LIMIT=1)
def test_htmx_post_rate_limited(client, table, ann):
    client.force_login(ann)
    client.post(chat_url(table), {"text": "one"}, **HX)
    response = client.post(chat_url(table), {"text": "two"}, **HX)
    assert response["X-Colonia-Error"] == "429"
    assert ChatMessage.objects.count() == 1


def test_mute_view_hides_and_unmute_restores(client, table, ann, bob):
    services.post_message(game=table, user=bob, text="bob talks")
    client.force_login(ann)
    html = client.get(reverse("play", args=[table.pk])).content.decode()
    assert f'data-mute="{bob.pk}"' in html
    response = client.post(reverse("chat_mute", args=[table.pk, bob.pk]), **HX)
    html = response.content.decode()
    assert "bob talks" not in html and f'data-unmute="{bob.pk}"' in html
    # Persisted: a fresh page load hides it too.
    assert "bob talks" not in client.get(reverse("play", args=[table.pk])).content.decode()
    response = client.post(reverse("chat_unmute", args=[table.pk, bob.pk]))
    assert response.status_code == 302
    assert "bob talks" in client.get(reverse("play", args=[table.pk])).content.decode()


def test_no_mute_button_for_ones_own_messages(client, table, ann):
    services.post_message(game=table, user=ann, text="mine")
    client.force_login(ann)
    html = client.get(reverse("play", args=[table.pk])).content.decode()
    assert f'data-mute="{ann.pk}"' not in html


def test_staff_remove_view(client, table, ann, bob, staff):
    message = services.post_message(game=table, user=bob, text="spam spam")
    url = reverse("chat_remove", args=[table.pk, message.pk])
    client.force_login(ann)
    assert f'data-remove="{message.pk}"' not in client.get(
        reverse("play", args=[table.pk])).content.decode()
    assert client.post(url).status_code == 403
    message.refresh_from_db()
    assert not message.removed
    client.force_login(staff)
    assert f'data-remove="{message.pk}"' in client.get(
        reverse("play", args=[table.pk])).content.decode()
    response = client.post(url, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "spam spam" not in html and "removed by a moderator" in html
    client.force_login(bob)
    assert "spam spam" not in client.get(reverse("play", args=[table.pk])).content.decode()


def test_remove_of_another_tables_message_is_404(client, table, variant, ann, bob, staff):
    other = create_game(creator=ann, variant=variant,
                        seats=[{"type": "human"}, {"type": "human"}])
    message = services.post_message(game=table, user=bob, text="here")
    client.force_login(staff)
    assert client.post(reverse("chat_remove", args=[other.pk, message.pk])).status_code == 404


def test_chat_log_refetch(client, table, bob):
    services.post_message(game=table, user=bob, text="missed while offline")
    url = reverse("chat_log", args=[table.pk])
    assert "missed while offline" in client.get(url, **HX).content.decode()
    assert client.get(url).status_code == 302
    assert client.get(reverse("chat_log", args=[999_999]), **HX).status_code == 404


def test_chat_shows_the_newest_hundred(table, ann):
    ChatMessage.objects.bulk_create(
        [ChatMessage(game=table, author=ann, author_name="ann", text=f"m{i}") for i in range(120)]
    )
    texts = [m.text for m in chat_messages(table, ann)]
    assert len(texts) == 100 and texts[0] == "m20" and texts[-1] == "m119"


def test_replay_page_shows_the_chat_read_only(client, nh_variants, ann, bob):
    game = create_game(creator=ann, variant=nh_variants["standard"],
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=bob)
    services.post_message(game=game, user=bob, text="well played <3")
    client.force_login(ann)
    response = client.get(reverse("replay", args=[game.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="chat-panel"' in html and "well played &lt;3" in html
    assert 'id="chat-text"' not in html and "data-mute" not in html
    assert 'id="chat-readonly"' in html
