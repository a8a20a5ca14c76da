"""Render once per hint and viewer kind, share it, send only what changed."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from socket_support import TIMEOUT, connect, play_first_legal, setup_game

from games.boards import get_board
from games.live import broadcast
from games.live.fragment_cache import FragmentCache, SharedRenders, changed_only, split_fragments
from games.live.fragment_cache import cache as fragment_cache

HTML = ('<section id="a" data-version="3" hx-swap-oob="true"><p>x<br>y</p>'
        '<svg><rect x="1"/></svg></section>\n<div id="b" data-version="3">'
        '<input type="hidden" id="v" value="3"></div><ul id="c"><li>1</li></ul>')


def test_split_fragments_finds_top_level_elements() -> None:
    parts = split_fragments(HTML)
    assert [p.id for p in parts] == ["a", "b", "c"]
    assert "".join(p.html for p in parts) == HTML.replace("\n", "")
    # Same content at another version: same digest; other content: another digest.
    again = split_fragments(HTML.replace('data-version="3"', 'data-version="4"'))
    assert [p.digest for p in again] == [p.digest for p in parts]
    assert split_fragments(HTML.replace("<li>1", "<li>2"))[2].digest != parts[2].digest


def test_unsplittable_html_is_sent_whole() -> None:
    for html in ("plain text", '<p id="x">a</p><p>no id</p>', '<p id="x">a</p><p id="x">b</p>'):
        parts = split_fragments(html)
        assert len(parts) == 1 and parts[0].id == "" and parts[0].html == html


def test_changed_only_sends_what_changed() -> None:
    sent: dict[str, str] = {}
    assert changed_only(split_fragments(HTML), sent) == HTML.replace("\n", "")
    assert changed_only(split_fragments(HTML), sent) == ""
    html = changed_only(split_fragments(HTML.replace("<li>1", "<li>2")), sent)
    assert html == '<ul id="c"><li>2</li></ul>'


@pytest.mark.asyncio
async def test_one_render_per_key_however_many_ask() -> None:
    import asyncio

    cache = FragmentCache()
    calls = 0

    async def render() -> str:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return HTML

    results = await asyncio.gather(*(cache.get(("g", 1, "anon", "en"), render)
                                     for _ in range(50)))
    assert calls == 1 and all(r == results[0] for r in results)
    await cache.get(("g", 2, "anon", "en"), render)
    assert calls == 2


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_spectators_share_one_render_per_move(monkeypatch) -> None:
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    game, (ann, bob, _eve) = await setup_game()
    path = f"/ws/games/{game.pk}/"
    spectators = [await connect(path, AnonymousUser()) for _ in range(12)]
    seats = [await connect(path, ann), await connect(path, bob)]
    before = fragment_cache.renders
    await play_first_legal(game, ann, 0, "m1")
    messages = [await s.receive_from(timeout=TIMEOUT) for s in spectators + seats]
    assert all('data-version="1"' in m for m in messages)
    assert len(set(messages[:12])) == 1  # every spectator got the same text
    # One render for all spectators, one per seat: not one per socket.
    assert fragment_cache.renders - before == 3
    for s in spectators + seats:
        await s.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_hint_that_changes_nothing_sends_nothing(monkeypatch) -> None:
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    game, (ann, _bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", AnonymousUser())
    await play_first_legal(game, ann, 0, "m1")
    first = await socket.receive_from(timeout=TIMEOUT)
    # The status and the board's fragments (the log part is appended, not swapped).

    assert first.count('hx-swap-oob="true"') == len(get_board("newhaven").fragments) + 1
    await database_sync_to_async(broadcast.game_updated)(game.pk, 1)  # same state again
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


def test_split_skips_comments_scripts_and_same_name_nesting() -> None:
    html = ('<div id="a" title="a > b"><!-- </div> --><div><div/></div>'
            '<script>let s = "</div>";</script><br></div>'
            '<svg id="b"><g><g><circle r="1"/></g></g><svg/></svg>')
    parts = split_fragments(html)
    assert [p.id for p in parts] == ["a", "b"]
    assert "".join(p.html for p in parts) == html


def test_split_refuses_what_it_cannot_place() -> None:
    for html in ('<div id="a"><div></div>', '</div><div id="a"></div>',
                 '<script id="s">x</script><div id="a"></div>'):
        parts = split_fragments(html)
        assert len(parts) == 1 and parts[0].html == html


class FakeRedis:
    """The two commands ``SharedRenders`` uses (and a pipeline of them), in memory, with a
    count of reads."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.reads = 0

    async def set(self, name, value, nx=False, ex=None):
        if nx and name in self.data:
            return None
        self.data[name] = value
        return True

    async def get(self, name):
        self.reads += 1
        return self.data.get(name)

    def pipeline(self, transaction=True):
        return FakePipeline(self)


class FakePipeline:
    """``redis.asyncio``'s pipeline: chained commands, one ``execute``."""

    def __init__(self, redis: FakeRedis) -> None:
        self.redis, self.calls = redis, []

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    def set(self, *args, **kwargs):
        self.calls.append(("set", args, kwargs))
        return self

    def get(self, *args):
        self.calls.append(("get", args, {}))
        return self

    async def execute(self):
        return [await getattr(self.redis, name)(*args, **kwargs)
                for name, args, kwargs in self.calls]


@pytest.mark.asyncio
async def test_processes_share_a_render_through_redis(monkeypatch) -> None:
    """One "process" renders, the other waits for its HTML (few reads, no render)."""
    import asyncio


    redis = FakeRedis()
    first, second = SharedRenders(), SharedRenders()
    for shared in (first, second):
        monkeypatch.setattr(shared, "_client", lambda: redis)
    renders = []

    async def render(who: str) -> str:
        renders.append(who)
        await asyncio.sleep(0.03)
        return "<p id='x'>html</p>"

    for move in range(20):
        key = ("g", move, "anon", "en")
        one = asyncio.create_task(first.get(key, lambda: render("first")))
        await asyncio.sleep(0)  # the first process wins the lock
        reads = redis.reads
        assert await second.get(key, lambda: render("second")) == "<p id='x'>html</p>"
        assert await one == "<p id='x'>html</p>"
    assert renders == ["first"] * 20
    # The waits are learnt: it sleeps most of a render, then reads once or twice (a
    # read every POLL_SECONDS would have made six).
    assert 0.02 < second.recent_waits["board"] < 0.2 and "chat" not in second.recent_waits
    assert redis.reads - reads <= 4
    # A process that sees the hint after the HTML was stored takes it at once: no sleep,
    # no render, one round trip.
    key = ("g", "late", "anon", "en")
    await first.get(key, lambda: render("first"))
    reads, started = redis.reads, asyncio.get_running_loop().time()
    assert await second.get(key, lambda: render("second")) == "<p id='x'>html</p>"
    assert asyncio.get_running_loop().time() - started < 0.01
    assert redis.reads - reads == 1 and renders == ["first"] * 21
