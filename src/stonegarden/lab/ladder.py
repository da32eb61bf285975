"""Skill ladders (AiAi's "levels of play"): an agent at time t, 2t, 4t, ... each against the
rung below, to show how deep a game's skill goes at a size."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from ..agents.registry import parse_agent_spec
from ..core.registry import make
from ..errors import ParameterError
from . import plots
from .adjudication import ResignRule
from .runner import check_backend
from .statistics import seat_text, summarise, wld
from .study import (
    StudySpec,
    check_games,
    check_spec,
    clear_other_runs,
    full_params,
    resign_text,
    run_studies,
    seat_note,
    write_report,
)
from .study_store import StudyStore


def with_option(spec: str, key: str, value: Any) -> str:
    """``spec`` with ``key=value`` set (replacing an existing value)."""
    name, options = parse_agent_spec(spec)
    options.pop(key, None)
    bare = options.pop("_", None)
    parts = ([bare] if bare else []) + [f"{k}={v}" for k, v in options.items()] + [f"{key}={value}"]
    return f"{name}:{','.join(parts)}"


def run_ladder(game_id: str, params: dict[str, Any], agent: str, key: str, base: float,
               steps: int, games: int, out: Path, *, workers: int = 1, backend: str = "local",
               address: str | None = None, seed: int = 0, command: str = "",
               console: Console | None = None, progress: bool = True,
               resign: ResignRule | None = None) -> list[dict[str, Any]]:
    """Rungs ``base * 2**k`` for k = 0..steps; each rung k >= 1 plays rung k-1.

    Raises:
        ParameterError: bad game, parameter or agent; an agent that sets ``key`` itself;
            steps < 1.
    """
    if steps < 1:
        raise ParameterError(f"a ladder needs at least one step, not {steps!r}")
    if key in parse_agent_spec(agent)[1]:  # each rung would silently replace it
        raise ParameterError(f"agent {agent!r} sets {key!r}, which the ladder doubles from "
                             f"--base: leave it out of the spec (--base gives the lowest rung)")
    budgets = [base * 2**k for k in range(steps + 1)]
    specs = []
    for k, (lo, hi) in enumerate(itertools.pairwise(budgets)):
        strong = with_option(agent, key, _num(hi))
        weak = with_option(agent, key, _num(lo))
        try:
            canonical = check_spec(game_id, params, (strong, weak))
        except ParameterError as exc:
            if k == 0:  # the agent, the game or --base itself
                raise
            # the lower rungs were fine: the doubling went past what the option takes
            raise ParameterError(f"{exc} (at the ladder's step {k + 1}: {key}={_num(hi)} is "
                                 f"--base {_num(base)} doubled {k + 1} times; ask for at most "
                                 f"{k} --steps, or a smaller --base)") from None
        specs.append(StudySpec(game_id, canonical, (strong, weak), seed,
                               resign=None if resign is None else resign.as_list()))
    check_games(games, len(specs))
    check_backend(backend, address)
    with StudyStore(out / "lab.sqlite") as store:  # the folder is this run's till the end
        played = run_studies(specs, games, store, workers=workers, backend=backend, address=address,
                             console=console, description=f"ladder {game_id} ({steps} steps)",
                             progress=progress)
        steps_out = []
        game_params = full_params(game_id, specs[0].params)
        for spec, results in zip(specs, played):
            s = summarise(results, list(spec.agents), make(game_id, **spec.params))
            # each step says what it measured: the game and every parameter as played
            steps_out.append({"game": game_id, "game_params": game_params,
                              "strong": spec.agents[0], "weak": spec.agents[1],
                              "label": f"{_num(float(spec.agents[0].rsplit('=', 1)[1]))} vs "
                                       f"{_num(float(spec.agents[1].rsplit('=', 1)[1]))}",
                              "score": s["a_score"], "elo": s["elo_a_minus_b"], "games": s["games"],
                              "by_seat": s["a_by_seat"], "seat_adjusted": s["a_seat_adjusted"]})
        clear_other_runs(out, "ladder")
        (out / "ladder.json").write_text(json.dumps(steps_out, indent=1))
        rows = [(f"{st['strong']}'s score against {st['weak']}", f"{st['score']['value']:.3f}",
                 f"[{st['score']['low']:.3f}, {st['score']['high']:.3f}]  "
                 f"Elo {st['elo']['value'] + 0.0:+.0f}"  # + 0.0: an even score is +0, not -0
                 f"; moving first {wld(st['by_seat']['first'])}, second {wld(st['by_seat']['second'])}"
                 f"{seat_text(st['seat_adjusted'])}")
                for st in steps_out]
        image = plots.ladder_plot(steps_out, out / "plots", key)
        intro = [f"Game `{game_id}` with parameters `{json.dumps(game_params)}`; "
                 f"{agent} with {key} doubling from "
                 f"{_num(base)}; {games} games per step, seats alternating"
                 + resign_text(specs[0].resign), seat_note(game_id, specs[0].params),
                 f"Reproduce: `{command}`"]
        write_report(f"Skill ladder: {game_id}", intro, rows, [("stronger side's score", image)], out)
        return steps_out


def _num(x: float) -> str:
    """An option's value as text: whole numbers in full (``1048576``, not ``1.04858e+06``),
    others as short as they read back exactly."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))
