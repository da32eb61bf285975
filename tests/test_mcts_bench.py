"""``stonegarden bench search``: output shape and bad input (no speed is asserted)."""

from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_bench_search_prints_one_json_line(cli):
    r = cli("bench", "search", "blooms", "--param", "size=3", "--seconds", "0.2", "--json")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert out["game"] == "blooms" and out["params"] == {"size": 3}
    assert out["sims"] > 0 and out["sims_per_s"] > 0
    assert 0.0 <= out["value"] <= 1.0


@pytest.mark.slow
def test_bench_search_takes_any_search_agent(cli):
    r = cli("bench", "search", "blooms-territory", "--param", "size=3", "--seconds", "0.2",
            "--agent", "uct-flat")
    assert r.returncode == 0, r.stderr
    assert "simulations/s" in r.stdout


@pytest.mark.slow
def test_bench_search_rejects_agents_that_do_not_search(cli):
    r = cli("bench", "search", "blooms", "--agent", "random")
    assert r.returncode == 2
    assert "not a search agent" in r.stderr


@pytest.mark.slow
def test_bench_search_rejects_unknown_games(cli):
    r = cli("bench", "search", "nosuchgame")
    assert r.returncode == 2
    assert "error:" in r.stderr


def test_bench_search_of_a_game_that_starts_with_a_roll_measures_a_search(cli):
    # Tumbling Dice starts at a roll, where a search makes no simulation: 0 per second
    r = cli("bench", "search", "blobs", "--param", "tumbling=true", "--seconds", "0.2",
            "--threads", "1", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["sims"] > 0 and out["sims_per_s"] > 0


def test_bench_search_of_a_game_over_at_its_start_says_so(cli):
    r = cli("bench", "search", "blobs", "--param", "dice=1", "--seconds", "0.1")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("error: make('blobs', dice=1) is over at its start: there is no search "
                        "to measure\n")


@pytest.mark.parametrize("kind", ["playouts", "search"])
def test_bench_says_why_nothing_shows_where_the_kernels_were_never_warmed_up(cli, tmp_path,
                                                                             kind):
    # a fresh install: an empty cache (the kernels as plain Python, so nothing compiles here)
    fresh = {"XDG_CACHE_HOME": str(tmp_path), "NUMBA_CACHE_DIR": "", "NUMBA_DISABLE_JIT": "1"}
    r = cli("bench", kind, "blooms", "--param", "size=2", "--seconds", "0.01", "--json",
            **fresh)
    assert r.returncode == 0, r.stderr
    assert "compiling those not compiled yet" in r.stderr
    assert "stonegarden warm-up" in r.stderr
    json.loads(r.stdout)  # stdout keeps its one JSON line
