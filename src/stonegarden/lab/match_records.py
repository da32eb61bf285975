"""A match's folder of records (``match --save-dir``): one ``game-NNNN.json`` per finished
game, written as the game ends, and read back by ``--resume`` so a stopped match goes on
where it stopped instead of playing (or overwriting) its finished games again."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from ..core.protocol import Game
from ..core.record import Record, load_record, make_record, replay_record, save_record
from ..errors import ParameterError, RecordError
from .selfplay import agent_identity, changed_input, first_changed

_NAME = re.compile(r"game-(\d{4,})\.json")


def save_result(game: Game, result: dict[str, Any], folder: Path) -> None:
    """Write one finished game's record, with what ``--resume`` needs to know it again."""
    state = game.replay(result["moves"])[-1]
    meta = {"match_game": result["index"], "match_seed": result["match_seed"],
            "match_resign": result["resign"],
            # only with model files: the records of other matches are as they were
            **({"match_models": result["models"]} if result.get("models") else {})}
    record = make_record(game, result["moves"], state, players=result["seats"], meta=meta)
    save_record(record, folder / f"game-{result['index']:04d}.json")


def saved_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("game-*.json") if _NAME.fullmatch(p.name))


def prepare_folder(folder: Path, resume: bool) -> list[Path]:
    """Create the folder; return the records already in it. Without ``resume`` an existing
    record is an error, so a second match never overwrites the first one's games.

    Raises:
        ParameterError: the folder cannot be made or written to, or holds records and
        ``resume`` is off.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # a folder that takes no file (a read-only disk) is refused now, not after a game
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ParameterError(f"--save-dir {str(folder)!r}: {exc.strerror}") from None
    found = saved_files(folder)
    if found and not resume:
        raise ParameterError(
            f"--save-dir {str(folder)!r} already holds {len(found)} game record(s) "
            f"({found[0].name}, ...); --resume goes on with that match, or choose another folder")
    return found


def load_results(paths: list[Path], game: Game, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The finished games of this very match, read back from their records: each record is
    replayed (its moves and result checked) and must carry this match's game, parameters,
    players (the agents with their per-game seeds), match seed and resignation rule.

    Raises:
        RecordError: a record that is malformed or does not replay.
        ParameterError: a record of another match, or of a game past ``--games``.
    """
    out = []
    for path in paths:
        index = int(_NAME.fullmatch(path.name).group(1))  # type: ignore[union-attr]
        try:
            record = load_record(path)
            replayed_game, states = replay_record(record)
        except RecordError as exc:
            raise RecordError(f"cannot resume from {str(path)!r}: {exc}") from None
        if index >= len(jobs):
            raise ParameterError(
                f"cannot resume from {str(path)!r}: it is game {index} and the match asks for "
                f"{len(jobs)} game{'s' if len(jobs) != 1 else ''}; ask for at least "
                f"{index + 1}")
        job = jobs[index]
        why = _mismatch(record, game, job)
        if why:
            raise ParameterError(f"cannot resume from {str(path)!r}: {why}")
        out.append({"index": index, "a_seat": job["a_seat"], "moves": list(record.moves),
                    "winner": replayed_game.winner(states[-1]),
                    "adjudicated": bool(states[-1].resigned)})
    return out


def _mismatch(record: Record, game: Game, job: dict[str, Any]) -> str | None:
    """Why ``record`` is not game ``job['index']`` of this match, or ``None``."""
    meta = dict(record.meta or {})
    if record.game != game.id or dict(record.params) != game.non_default_params():
        return (f"it is a game of {record.game} {dict(record.params)}, "
                f"not {game.id} {game.non_default_params()}")
    if meta.get("match_game") != job["index"]:
        return f"its meta names game {meta.get('match_game')!r}, not {job['index']}"
    players = dict(record.players or {})
    if _identities(players, game) != _identities(job["seats"], game):  # however spelt
        return f"its players {players} are not this match's {job['seats']}"
    if meta.get("match_seed") != job["match_seed"]:
        return f"it was played with --seed {meta.get('match_seed')!r}, not {job['match_seed']}"
    if meta.get("match_resign") != job["resign"]:
        return f"its resignation rule {meta.get('match_resign')!r} is not this match's {job['resign']!r}"
    # a record made before the model files were kept in it is taken on its players alone
    recorded, models = meta.get("match_models"), job.get("models", {})
    if isinstance(recorded, dict) and (name := first_changed(recorded, models)) is not None:
        return (f"{changed_input(name, recorded.get(name), models.get(name))} is not the one "
                "it was played with: restore it to go on with the match, or use another "
                "--save-dir")
    return None


def _identities(seats: dict[str, Any], game: Game) -> dict[str, Any]:
    """Each seat's agent as ``agent_identity`` knows it in ``game``: a match resumed with an
    agent's options in another order (``mcts:c=0.2,sims=10``), or a default written out, is
    the same match."""
    return {seat: agent_identity(spec, game) if isinstance(spec, str) else spec
            for seat, spec in seats.items()}
