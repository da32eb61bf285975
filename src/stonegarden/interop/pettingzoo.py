"""Every registered stonegarden game as a PettingZoo AEC environment.

>>> from stonegarden.interop.pettingzoo import env
>>> e = env("blooms", size=3)
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> int(obs["action_mask"].sum())       # 2 colours x 19 empty cells on the first turn
38

Agents are ``player_1`` and ``player_2``; actions are the game's dense actions; observations
are ``{"observation": float32 planes, "action_mask": int8}``. Chance events (Blobs' Tumbling
Dice) are resolved inside the environment from the generator seeded by ``reset(seed=...)``
(later resets without a seed go on with it).
Needs ``pip install stonegarden[pettingzoo]``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from ..core.protocol import CHANCE, Game, State
from ..core.registry import make
from ..errors import NotationError, ParameterError, quote

AGENTS = ["player_1", "player_2"]


class StonegardenEnv(AECEnv):
    """AEC environment over one stonegarden game (fixed parameters)."""

    def __init__(self, game: Game, render_mode: str | None = None) -> None:
        """``render_mode``: ``"ansi"`` (``render()`` returns the diagram), ``"human"`` (the
        diagram printed at every reset and step) or ``None``.

        Raises: ParameterError for another render mode."""
        super().__init__()
        self.game = game
        modes = ["human", "ansi"]
        self.metadata = {"render_modes": modes, "name": f"stonegarden_{game.id}",
                         "is_parallelizable": False}
        if render_mode is not None and render_mode not in modes:
            raise ParameterError(f"render_mode {render_mode!r}: this environment renders "
                                 "'human' (printed), 'ansi' (text) or nothing (None)")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        n = game.num_distinct_actions
        # a space each (one shared by both agents was seeded and sampled as one)
        self.observation_spaces = {a: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, 1.0, game.observation_shape, np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), np.int8),
        }) for a in AGENTS}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n) for a in AGENTS}
        #: the game's position (not ``state``: that is AECEnv's global-state method)
        self.game_state: State = game.initial_state()
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[_agent(agent)]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[_agent(agent)]

    def _resolve_chance(self) -> None:
        game = self.game
        while not game.is_terminal(self.game_state) and game.current_player(self.game_state) == CHANCE:
            outcomes = self.game.chance_outcomes(self.game_state)
            probs = np.array([p for _, p in outcomes])
            pick = outcomes[int(self._rng.choice(len(outcomes), p=probs / probs.sum()))][0]
            self.game_state = self.game.play_unchecked(self.game_state, pick)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` seeds the dice of this and the following episodes (a reset
        without one goes on with the same generator, so a seeded run is reproducible).

        Raises:
            ParameterError: ``seed`` is not an integer, 0 or more.
        """
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
                    or seed < 0:
                raise ParameterError(f"reset: seed must be an integer, 0 or more, not {quote(seed)}")
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.initial_state()
        self._resolve_chance()
        self.agents = list(AGENTS)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        if self.game.is_terminal(self.game_state):  # e.g. Blobs with one die: a draw at once
            self._end(AGENTS[0])
            self._accumulate_rewards()
        else:
            self.agent_selection = AGENTS[self.game.current_player(self.game_state) - 1]
            self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.render_mode == "human":
            self.render()

    def _end(self, next_agent: str) -> None:
        """The game is over: every agent is terminated with its return, ``next_agent`` first."""
        r = self.game.returns(self.game_state)
        self.rewards = {a: float(r[i]) for i, a in enumerate(AGENTS)}
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = next_agent

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation.

        Raises:
            ParameterError: ``agent`` is not ``player_1`` or ``player_2``, or no game was
            started (``reset``).
        """
        player = AGENTS.index(_agent(agent)) + 1
        self._started("observe()")
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        if (not self.game.is_terminal(self.game_state) and agent == self.agent_selection):
            mask[self.game.legal_actions(self.game_state)] = 1
        obs = self.game.observation_tensor(self.game_state, player).astype(np.float32)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int) -> None:
        """Play ``action`` for the selected agent (``None`` once it is terminated).

        Raises:
            ParameterError: ``step`` before ``reset``, or once every agent has left the game
            (each stepped with ``None`` after the end).
            NotationError: an action that is not an integer, or one other than ``None`` for a
            terminated agent; IllegalMoveError: one that is not legal here (both are the game's
            own errors, ValueErrors).
        """
        agent = self._selected("step()")
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # PettingZoo's own check raises a bare ValueError
                raise NotationError(f"{agent}'s game is over: its only action is None, not "
                                    f"{quote(action)}")
            self._was_dead_step(action)
            return
        self.game_state = self.game.play(self.game_state, action)
        self._resolve_chance()
        self._cumulative_rewards[agent] = 0.0
        if self.game.is_terminal(self.game_state):
            # the agent to act next: the other player, so both observe the end
            self._end(AGENTS[AGENTS.index(agent) ^ 1])
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = AGENTS[self.game.current_player(self.game_state) - 1]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward, termination, truncation and info.

        Raises:
            ParameterError: before ``reset``, or once every agent has left the game."""
        self._selected("last()")
        return super().last(observe)

    def _selected(self, call: str) -> str:
        """The selected agent, who is still in the game.

        Raises:
            ParameterError: no game was started, or every agent has left the one that ended
            (PettingZoo's own methods failed with ``KeyError`` there)."""
        self._started(call)
        if not self.agents:
            raise ParameterError(f"the game is over and every agent has left it: reset() the "
                                 f"environment before {call}")
        return self.agent_selection

    def _started(self, call: str) -> None:
        """Refuse ``call`` before the first ``reset`` (it failed with ``AttributeError``).

        Raises:
            ParameterError: no game was started."""
        if not hasattr(self, "agent_selection"):
            raise ParameterError(f"reset() the environment before the first {call}")

    def render(self) -> str | None:
        """The diagram: returned in ``"ansi"`` mode, printed in ``"human"`` mode."""
        if self.render_mode == "ansi":
            return self.game.diagram(self.game_state)
        if self.render_mode == "human":
            print(self.game.diagram(self.game_state), flush=True)
        return None

    def close(self) -> None:
        pass


def _agent(agent: object) -> str:
    """``agent``, checked to be one of ``AGENTS``.

    Raises:
        ParameterError: it is not.
    """
    if not isinstance(agent, str) or agent not in AGENTS:
        raise ParameterError(f"unknown agent {quote(agent)} (the agents are {', '.join(AGENTS)})")
    return agent


def env(game_id: str, render_mode: str | None = None, **params: Any) -> StonegardenEnv:
    """The AEC environment for ``make(game_id, **params)``.

    Raises:
        ParameterError: unknown game or parameter.
    """
    return StonegardenEnv(make(game_id, **params), render_mode=render_mode)
