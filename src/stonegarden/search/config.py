"""Search settings: the techniques (each switchable) and the budget of one search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import ParameterError

if TYPE_CHECKING:
    from ..core.protocol import Game


@dataclass(frozen=True)
class SearchConfig:
    """What the search does. Every technique can be switched off to measure its value.

    ``c``: UCT exploration constant (rewards are in [0, 1]; ``None``: the game's
    ``default_c``). ``split``: a multi-stone turn is
    several decisions in the tree (fast paths that support it). ``rave``/``rave_k``: RAVE
    statistics shared across siblings (see docs/ai.md for the blend; ``rave_k=None``: the
    game's ``default_rave_k``); ``grave``: a node with
    fewer visits than this borrows the RAVE statistics of its nearest ancestor with at least
    that many (GRAVE; 0 = off).
    ``solver``: MCTS-solver (proven wins and losses). ``chance``: chance nodes valued as the
    probability-weighted mean of their outcomes (else the plain sample mean; outcomes are
    visited in proportion to their probabilities either way). ``captures``:
    playouts prefer captures (that many candidate cells tried per turn; 0 = uniform) in the
    Blooms race engine and in games whose ``playout_policies`` include it (Free Go). ``safe``:
    playouts avoid moves that hand the opponent a win (that many candidate moves tried per
    move; 0 or 1 = uniform; Blobs), or in Free Go pass over points that hand the opponent
    stones (up to that many a move; 0 or 1 = uniform), in games whose ``playout_policies``
    include it; ``None``: the game's ``default_safe``.
    ``bridges``: playouts answer a move into two diagonal stones' shared point by playing the
    other one, which keeps them connected, in games whose ``playout_policies`` include it
    (Bridge Go).
    ``lgr``: playouts answer a move with the last good reply to it (LGRF-1: the reply that won
    the latest simulation it was played in, forgotten when it loses), learned over the whole
    search, in games whose ``playout_policies`` include it; ``None``: the game's
    ``default_lgr``.
    ``prior``: virtual RAVE samples of the game's ``prior_values`` given to each move of a
    node as it is expanded (generic tree with RAVE; 0: none; ``None``: the game's
    ``default_prior``).
    ``contempt``: a draw is worth 0.5 - contempt to the player searching (and 0.5 + contempt to
    the opponent), so the search prefers winning chances to a safe draw (generic tree; the
    Blooms race has no draws). ``reuse``: keep the tree between moves. ``tt``: one node per
    position however it was reached (a transposition table; generic tree): its subtree is
    shared, each parent keeps its own statistics of the move into it; ``None``: the game's
    ``default_tt``."""

    c: float | None = None  # the game's default_c (docs/ai.md)
    split: bool = True
    rave: bool = True
    rave_k: float | None = None  # the game's default_rave_k (docs/ai.md)
    grave: int = 0
    solver: bool = True
    chance: bool = False  # measured worse than the sample mean in Tumbling Dice (docs/ai.md)
    captures: int = 0
    safe: int | None = None  # the game's default_safe (docs/ai.md)
    bridges: bool = True  # measured better in Bridge Go (docs/ai.md); other games ignore it
    lgr: bool | None = None  # the game's default_lgr (docs/ai.md)
    prior: int | None = None  # the game's default_prior (docs/ai.md)
    contempt: float = 0.0
    reuse: bool = True
    tt: bool | None = None  # the game's default_tt (on in Blobs, docs/ai.md)
    fast: bool = True

    def c_for(self, game: Game) -> float:
        """The exploration constant in ``game``: this config's, else the game's default."""
        return float(game.default_c if self.c is None else self.c)

    def rave_k_for(self, game: Game) -> float:
        """The RAVE equivalence ``rave_k`` in ``game``: this config's, else the game's default."""
        return float(game.default_rave_k if self.rave_k is None else self.rave_k)

    def lgr_for(self, game: Game) -> bool:
        """Whether the playouts in ``game`` use last good replies: this config's choice, else
        the game's default, and only where the game has the policy."""
        on = game.default_lgr if self.lgr is None else self.lgr
        return bool(on) and "lgr" in game.playout_policies

    def safe_for(self, game: Game) -> int:
        """The playouts' ``safe`` tries in ``game``: this config's, else the game's default
        (0 where the game has no such policy)."""
        if "safe" not in game.playout_policies:
            return 0
        return int(game.default_safe if self.safe is None else self.safe)

    def prior_for(self, game: Game) -> int:
        """Virtual samples of the game's move priors in ``game``: this config's, else the
        game's default."""
        return int(game.default_prior if self.prior is None else self.prior)

    def describe(self) -> dict[str, object]:
        return dict(self.__dict__)


#: the plain baseline: UCT over whole turns, uniform playouts, nothing else
FLAT = SearchConfig(c=0.7, split=False, rave=False, grave=0, solver=False, chance=False,
                    captures=0, safe=0, bridges=False, lgr=False, prior=0, reuse=False, tt=False,
                    fast=False)


@dataclass(frozen=True)
class Budget:
    """Stop after ``sims`` simulations or ``seconds`` of wall time, whichever comes first, or
    as soon as ``stop()`` says so (checked every few simulations: the web server stops a
    search whose move nobody wants any more).

    Raises:
        ParameterError: neither given, or a non-positive value.
    """

    sims: int | None = None
    seconds: float | None = None
    stop: Callable[[], bool] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.sims is None and self.seconds is None:
            raise ParameterError("a search budget needs sims or seconds")
        if self.sims is not None and self.sims < 1:
            raise ParameterError(f"sims must be at least 1, not {self.sims!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise ParameterError(f"seconds must be positive, not {self.seconds!r}")
