"""Simulation checks played in chunks: the same report as one run, stored once."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.db import transaction

from games.editor import presenters, runner, services
from games.editor.simulation import merge_reports, next_chunk, plan, player_counts, run_chunk
from games.models import Simulation, Variant
from games.variants import services as variants
from tools.simulate import run


def test_games_spread_over_player_counts_and_chunks():
    assert plan(10, [2, 3, 4]) == [(2, 4, 0), (3, 3, 4), (4, 3, 7)]
    assert next_chunk(10, [2, 3, 4], 0, None) == (2, 1, 0)  # the first chunk measures
    assert next_chunk(10, [2, 3, 4], 1, 0.5, budget=2.0) == (2, 3, 1)
    assert next_chunk(10, [2, 3, 4], 4, 0.01, budget=2.0) == (3, 3, 4)  # never across counts
    assert next_chunk(10, [2, 3, 4], 10, 0.01) is None


def test_merged_chunks_give_the_report_of_one_run(toy):
    data = toy.default_variants()["basic"]
    whole = run("toygame", variant=data, players=3, games=12, bots=["random"], seed=40)
    merged = None
    for first, count in ((0, 1), (1, 5), (6, 6)):
        merged = merge_reports(merged, run_chunk("toygame", data, 3, count, first,
                                                 bots=["random"], seed=40))
    for key in ("games", "completed", "ties", "errors", "score_values"):
        assert merged[key] == whole[key]
    for key in ("actions", "turns", "scores"):
        assert merged[key] == pytest.approx(whole[key])
    for a, b in zip(merged["seats"], whole["seats"], strict=True):
        assert a["wins"] == b["wins"] and a["low"] == pytest.approx(b["low"])
        assert a["score"] == pytest.approx(b["score"])
    assert merged["figures"]["overshoot"] == pytest.approx(whole["figures"]["overshoot"])


def test_player_counts_come_from_rule_data_or_from_new_game(toy, monkeypatch):
    data = toy.default_variants()["basic"]
    assert player_counts(toy, data) == [2, 3]
    monkeypatch.delattr(type(toy), "rule_data")  # an engine from before wave 2
    assert player_counts(toy, data) == [2, 3]


@pytest.mark.django_db
def test_a_chunk_is_stored_once_and_progress_is_broadcast(toy, boss, monkeypatch):
    variants.load_default_variants(games=["toygame"])
    variant = Variant.objects.get(game="toygame")
    services.start_draft(variant=variant, user=boss)
    sent = []
    monkeypatch.setattr(runner.broadcast, "simulation_progress",
                        lambda *args, role: sent.append((*args, role)))
    monkeypatch.setattr(transaction, "on_commit", lambda fn, using=None, robust=False: None)
    sim = services.request_simulation(variant=variant, user=boss, games=5, bots=["random"])
    assert runner.run_simulation_chunk(simulation_id=sim.pk, budget=0.0)
    sim.refresh_from_db()
    assert (sim.status, sim.done, sim.step) == ("running", 1, 1)
    # A redelivered task whose chunk another delivery stored meanwhile stores nothing.
    real = runner.play_chunk

    def raced(*args, **kwargs):
        report = real(*args, **kwargs)
        Simulation.objects.filter(pk=sim.pk).update(step=9)
        return report

    monkeypatch.setattr(runner, "play_chunk", raced)
    assert runner.run_simulation_chunk(simulation_id=sim.pk, budget=0.0) is False
    sim.refresh_from_db()
    assert sim.step == 9 and sum(r["games"] for r in sim.partial["by_players"].values()) == 1
    Simulation.objects.filter(pk=sim.pk).update(step=1, done=1)
    monkeypatch.setattr(runner, "play_chunk", real)
    while runner.run_simulation_chunk(simulation_id=sim.pk, budget=0.0):
        pass
    sim.refresh_from_db()
    assert sim.status == "done" and sim.done == 5 and sim.report["completed"] == 5
    assert sum(r["games"] for r in sim.report["by_players"].values()) == 5
    assert sent[0][4] == "running" and sent[-1][2:] == (5, 5, "done", "draft")
    assert all(args[0] == variant.pk and args[1] == sim.pk for args in sent)


@pytest.mark.django_db
def test_a_check_that_cannot_run_fails_with_its_reason(toy, boss, monkeypatch):
    variants.load_default_variants(games=["toygame"])
    variant = Variant.objects.get(game="toygame")
    services.start_draft(variant=variant, user=boss)
    monkeypatch.setattr(transaction, "on_commit", lambda fn, using=None, robust=False: None)
    sim = services.request_simulation(variant=variant, user=boss, games=3, bots=["random"])
    Simulation.objects.filter(pk=sim.pk).update(bots=["no-such-bot"])
    assert runner.run_simulation_chunk(simulation_id=sim.pk) is False
    sim.refresh_from_db()
    assert sim.status == "failed" and "no-such-bot" in sim.error and not sim.passed


def test_the_histogram_is_well_formed_svg():
    low, width, count = presenters.bins_for([3, 4, 4, 9, 40])
    svg = presenters.histogram_svg([3, 4, 4, 9, 40], low, width, count, label="a <b> & c")
    root = ET.fromstring(str(svg))
    assert root.tag.endswith("svg") and root.get("aria-label") == "a <b> & c"
    bars = root.findall("{http://www.w3.org/2000/svg}rect")
    assert len(bars) == count and count <= 20


def test_reports_side_by_side_flag_a_first_seat_advantage(toy):
    data = toy.default_variants()["basic"]
    report = run("toygame", variant=data, players=2, games=30, bots=["random"], seed=1)
    lopsided = {**report, "seats": [{**report["seats"][0], "share": 0.9, "low": 0.75,
                                     "high": 0.96}, *report["seats"][1:]]}
    sections = presenters.report_sections({"by_players": {"2": lopsided}},
                                          {"by_players": {"2": report}})
    rows = {row.label: row for row in sections[0].rows}
    assert rows["first-seat wins (95% interval)"].flag
    assert "overshoot" in rows and sections[0].left_svg and sections[0].right_svg
