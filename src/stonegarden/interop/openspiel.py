"""Every registered stonegarden game as an OpenSpiel Python game.

Importing this module registers ``stonegarden_<game id with _ for ->`` (``stonegarden_blooms``,
``stonegarden_blooms_territory``, ...), so ``pyspiel.load_game("stonegarden_blooms(size=5)")``
works and OpenSpiel's own tools (``random_sim_test``, ``MCTSBot``, ``evaluate_bots``) run on it.

OpenSpiel parameters must have concrete typed defaults, so a few sentinels stand for
stonegarden's "derived" or "none" defaults: an integer parameter whose default is derived
(Blooms' ``target``) or absent (``max_turns``) defaults to 0, meaning "the stonegarden default";
list parameters (``holes``, ``start_scores``) are strings separated by ``;`` (OpenSpiel's game
strings reserve the comma): ``stonegarden_blooms(size=4,holes=d4;a1)``.

Needs ``pip install stonegarden[openspiel]``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from ..core.params import Param
from ..core.protocol import CHANCE, Game, State
from ..core.registry import available_games, game_class, make
from ..errors import IllegalMoveError, ParameterError, quote

PREFIX = "stonegarden_"


def openspiel_name(game_id: str) -> str:
    return PREFIX + game_id.replace("-", "_")


def _default(p: Param) -> Any:
    if p.kind in ("int", "opt_int"):
        return 0 if p.default is None else int(p.default)
    if p.kind == "bool":
        return bool(p.default)
    if p.kind == "str_list":
        return ";".join(p.default or ())
    if p.kind == "int_pair":
        return ";".join(str(v) for v in p.default)
    return str(p.default)


def to_stonegarden_params(cls: type[Game], params: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameter values to stonegarden keyword arguments (sentinels dropped)."""
    out: dict[str, Any] = {}
    specs = {p.name: p for p in cls.param_specs}
    for key, value in params.items():
        p = specs.get(key)
        if p is None:
            out[key] = value  # let make() name the unknown parameter
        elif p.kind in ("int", "opt_int") and p.default is None and value == 0:
            continue
        elif p.kind in ("str_list", "int_pair"):
            out[key] = str(value)  # parsed like CLI text
        else:
            out[key] = value
    return out


def _game_type(game_id: str, chance: bool | None = None) -> pyspiel.GameType:
    """The game's type: registered as stochastic when some parameters give chance nodes;
    a loaded game (``chance``: its parameters give them) says whether it has them, so that
    tools for deterministic games take Blobs without Tumbling Dice."""
    cls = game_class(game_id)
    stochastic = cls.may_have_chance if chance is None else chance
    return pyspiel.GameType(
        short_name=openspiel_name(game_id),
        long_name=f"stonegarden {cls.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if stochastic
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={p.name: _default(p) for p in cls.param_specs},
    )


class OpenSpielGame(pyspiel.Game):
    """A stonegarden game behind OpenSpiel's ``Game`` interface."""

    game_id: str = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.sg: Game = make(self.game_id, **to_stonegarden_params(game_class(self.game_id), params))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.sg.num_distinct_actions,
            max_chance_outcomes=self.sg.max_chance_outcomes,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.sg.max_game_length,
        )
        super().__init__(_game_type(self.game_id, self.sg.has_chance), info, params)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its OpenSpiel game string, loaded again (workers of multiprocessing or
        Ray receive the game itself) by this module, which registers the games first."""
        return load_game, (str(self),)

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self, self.sg.initial_state())

    def deserialize_state(self, text: str) -> OpenSpielState:
        """The state ``text`` describes, replayed through the rules from the initial state:
        the actions of its history one a line, as ``OpenSpielState.serialize`` writes them
        (OpenSpiel's format for its C++ games; chance outcomes numbered from 0), or the
        ``[State]`` text OpenSpiel's own serialization of a Python game writes
        (``pyspiel.serialize_game_and_state``), alone or in the whole file (whose ``[Game]``
        must be this game), whose ``history=`` line is read and whose pickled ``__dict__`` is
        not: unpickling a file runs whatever code it holds.

        Raises:
            ParameterError: ``text`` is neither (a line that is not an action number), or a
            file of another game.
            IllegalMoveError: an action the rules refuse where it stands, named with its
            place in the history.
        """
        if not isinstance(text, str):
            raise ParameterError(f"deserialize_state: a serialized state is text, not "
                                 f"{type(text).__name__}")
        state = self.new_initial_state()
        for place, action in enumerate(_history_actions(self._state_section(text)), 1):
            try:
                state.apply_action(action)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"action {action} (entry {place} of the history)",
                                       exc.reason, exc.position) from None
        return state

    def _state_section(self, text: str) -> str:
        """The ``[State]`` section of a whole ``pyspiel.serialize_game_and_state`` file, its
        ``[Game]`` checked to be this game; any other ``text`` as it is. (The whole file, which
        the docs say to load with this method, was read as a history whose first entry was
        its comment line.)"""
        head, sep, section = text.partition("\n[State]\n")
        if not sep or "[Game]\n" not in head:
            return text
        named = head.split("[Game]\n", 1)[1].split("\n", 1)[0].strip()
        if named != str(self):
            raise ParameterError(f"deserialize_state: the file's [Game] is {quote(named)}, not "
                                 f"this game {str(self)!r}: load its game with "
                                 "pyspiel.load_game, and the state with that game's "
                                 "deserialize_state")
        return section

    def make_py_observer(self, iig_obs_type=None, params=None):  # type: ignore[no-untyped-def]
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return BoardObserver(self.sg, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


#: an action's number in a serialized history (ASCII digits: ``int`` also reads "1_0" and
#: other scripts' digits)
_ACTION = re.compile(r"[0-9]{1,18}")
#: the first line of OpenSpiel's serialization of a Python game's state
_HISTORY_TAG = "history="


def _history_actions(text: str) -> list[int]:
    """The actions of a serialized state's history (``OpenSpielGame.deserialize_state``).

    Raises:
        ParameterError: a line or entry that is not an action number, named.
    """
    if text.startswith(_HISTORY_TAG):
        line = text.split("\n", 1)[0][len(_HISTORY_TAG):].strip()
        # "player:action" pairs, the chance player's -1
        entries = [entry.split(":", 1)[-1] for entry in line.split(",")] if line else []
    else:
        entries = [entry.strip() for entry in text.splitlines()]
        while entries and not entries[-1]:
            entries.pop()
    actions = []
    for place, entry in enumerate(entries, 1):
        if not _ACTION.fullmatch(entry):
            raise ParameterError(f"deserialize_state: entry {place} of the history, "
                                 f"{quote(entry)}, is not an action number (a serialized "
                                 "state is its actions, one a line)")
        actions.append(int(entry))
    return actions


def load_game(game_string: str) -> pyspiel.Game:
    """``pyspiel.load_game`` for a pickled game: unpickling imports this module, so a process
    that never imported it (a spawned worker, a Ray task) has the games registered."""
    return pyspiel.load_game(game_string)


class OpenSpielState(pyspiel.State):
    """Wraps an immutable stonegarden state; applying an action swaps in the next one."""

    def __init__(self, game: OpenSpielGame, state: State) -> None:
        super().__init__(game)
        self.sg = game.sg
        self.state = state

    def current_player(self) -> int:
        if self.sg.is_terminal(self.state):
            return int(pyspiel.PlayerId.TERMINAL)
        p = self.sg.current_player(self.state)
        return int(pyspiel.PlayerId.CHANCE) if p == CHANCE else p - 1

    # OpenSpiel numbers chance outcomes from 0; stonegarden's chance actions start at an offset
    def _at_chance(self) -> bool:
        return (not self.sg.is_terminal(self.state)
                and self.sg.current_player(self.state) == CHANCE)

    def _legal_actions(self, player: int) -> list[int]:
        if self._at_chance():
            return [a for a, _ in self.chance_outcomes()]
        return [int(a) for a in self.sg.legal_actions(self.state)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        off = self.sg.chance_action_offset
        return [(int(a) - off, float(p)) for a, p in self.sg.chance_outcomes(self.state)]

    def _chance_action(self, outcome: int) -> int:
        """stonegarden's action for OpenSpiel's chance ``outcome`` (numbered from 0).

        Raises:
            IllegalMoveError: ``outcome`` is not one of this chance node's, named as given.
        """
        off = self.sg.chance_action_offset
        outcomes = [a for a, _ in self.chance_outcomes()]
        if outcome not in outcomes:
            known = ", ".join(f"{a} ({self.sg.action_to_text(self.state, a + off)})"
                              for a in outcomes)
            raise IllegalMoveError(f"chance outcome {outcome}", f"the outcomes here are {known}",
                                   self.sg.position_text(self.state))
        return outcome + off

    def _apply_action(self, action: int) -> None:
        if self._at_chance():
            action = self._chance_action(int(action))
        self.state = self.sg.play(self.state, int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        """The text of ``action`` for ``player`` (0 or 1; the chance player's id reads it as a
        chance outcome, numbered from 0; another id below 0, the terminal's, as a move whose
        text is the same whoever made it).

        Raises:
            ParameterError: ``player`` is 2 or more (Blooms' texts read the mover's colours
            from it: a player 5 failed with ``IndexError``), or the terminal's id for a move
            whose text names its player (Blooms' colours: it was read as the move of the
            player the finished state names, so player 2's moves came out in player 1's).
        """
        state = self.state
        if player > 1:
            raise ParameterError(f"action_to_string: player {quote(player)} is not one of this "
                                 "game's players, 0 and 1")
        if player == int(pyspiel.PlayerId.CHANCE):
            if self._at_chance():
                return self.sg.action_to_text(state, self._chance_action(int(action)))
            return self.sg.action_to_text(state, int(action) + self.sg.chance_action_offset)
        if player < 0:  # the terminal's: a finished Blobs game read 509 as the roll 1409
            texts = {self._move_text(int(action), mover) for mover in (0, 1)}
            if len(texts) > 1:
                raise ParameterError(
                    f"action_to_string: the game is over, and the text of action "
                    f"{quote(action)} names the player who made it: give that player (0 or "
                    f"1), as state.full_history() pairs each action with its player")
            return texts.pop()
        return self._move_text(int(action), player)

    def _move_text(self, action: int, player: int) -> str:
        """The text of ``action`` as ``player``'s (0 or 1) move."""
        state = self.state
        if state.player != player + 1:
            state = dataclasses.replace(state, player=player + 1)  # texts name the mover's colours
        return self.sg.action_to_text(state, action)

    def serialize(self) -> str:
        """The actions of the history, one a line (OpenSpiel's format for its C++ games), which
        ``game.deserialize_state`` replays: plain text, where OpenSpiel's default for a
        Python game is a pickle, which runs code when loaded from an untrusted file."""
        return "".join(f"{action}\n" for action in self.history())

    def is_terminal(self) -> bool:
        return self.sg.is_terminal(self.state)

    def returns(self) -> list[float]:
        return list(self.sg.returns(self.state))

    def __str__(self) -> str:
        return self.sg.diagram(self.state)


class BoardObserver:
    """OpenSpiel PyObserver: the game's observation planes and its position text."""

    def __init__(self, game: Game, params: dict[str, Any] | None) -> None:
        if params:
            raise ParameterError(f"observation parameters are not supported: {quote(params)}")
        self.game = game
        shape = game.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: OpenSpielState, player: int) -> None:
        self.dict["observation"][...] = self.game.observation_tensor(state.state, player + 1)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return self.game.position_text(state.state)


def register_all() -> list[str]:
    """Register every stonegarden game with OpenSpiel (once); returns their OpenSpiel names."""
    names = []
    registered = set(pyspiel.registered_names())
    for gid in available_games():
        name = openspiel_name(gid)
        names.append(name)
        if name in registered:
            continue
        cls = type(f"OpenSpiel_{gid.replace('-', '_')}", (OpenSpielGame,), {"game_id": gid})
        globals()[cls.__name__] = cls  # found by name, as pickle looks classes up
        pyspiel.register_game(_game_type(gid), cls)
    return names


GAMES = register_all()
