"""The Boss as an OpenSpiel game, so that OpenSpiel's algorithms (IS-MCTS, MCTS, Monte Carlo
CFR...) and code written against its ``pyspiel`` conventions run on the server's own rules.

The game follows pyspiel's API: a ``GameType`` (sequential, imperfect information, explicit
chance, zero-sum, terminal rewards), a ``GameInfo`` (the fixed action space of
``engine.ACTION_COUNT`` ids, 2 to 4 players), and states with ``current_player``,
``legal_actions`` (ascending action ids), ``apply_action``, ``chance_outcomes``,
``is_terminal``, ``returns`` (the winners share +1, the others -1), information-state and
observation strings and tensors (``theboss.features.encode_view`` of the player's view:
the views carry the whole public state and the player's hand, and a round plays every card
dealt, so the current view is a perfect-recall information state), and
``resample_from_infostate`` (a whole game consistent with the player's view:
``engine.determinize``). The one chance node deals: it picks one of ``deals`` seeds.

With ``open_spiel`` installed (``pip install "theboss[openspiel]"``, Python 3.11 or later),
``register()`` registers it as the Python game ``"python_theboss"``::

    import pyspiel
    from theboss import openspiel

    openspiel.register()
    game = pyspiel.load_game("python_theboss", {"players": 2})

Without it, ``PlainGame`` and ``PlainState`` offer the same API as plain Python objects, for
code that follows pyspiel's conventions without pyspiel itself.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable, Optional

import numpy as np

from theboss import engine
from theboss.features import OBSERVATION_SIZE, encode_view, zero_sum_returns
from theboss.v1 import model_pb2

try:  # open_spiel is optional: the plain classes below need none of it
    import pyspiel
except ImportError:  # pragma: no cover - depends on what is installed
    pyspiel = None

__all__ = [
    "CHANCE",
    "DEFAULT_PARAMS",
    "GAME_NAME",
    "PlainGame",
    "PlainState",
    "TERMINAL",
    "register",
]

GAME_NAME = "python_theboss"
"""The name the game is registered under with pyspiel."""

DEFAULT_PARAMS: dict[str, int] = {"players": 2, "deals": 1 << 16}
"""The game's parameters: ``players`` (2 to 4) and ``deals``, the seeds the chance node
picks the deal among (a small number keeps the chance node small for algorithms that
enumerate it)."""

CHANCE = -1
"""``current_player()`` at the chance node (pyspiel's ``PlayerId.CHANCE``)."""
TERMINAL = -4
"""``current_player()`` once the game is over (pyspiel's ``PlayerId.TERMINAL``)."""


def _params(params: Optional[dict[str, Any]]) -> dict[str, int]:
    merged = dict(DEFAULT_PARAMS)
    for key, value in (params or {}).items():
        if key not in DEFAULT_PARAMS:
            raise engine.InvalidArgument(f"the game has no parameter {key!r}", field=key)
        merged[key] = int(value)
    engine.Game(merged["players"], 0)  # a player count the rules do not have raises now
    if merged["deals"] < 1:
        raise engine.InvalidArgument("deals must be at least 1", field="deals")
    return merged


class _Core:
    """The game's logic, shared by the pyspiel and the plain states: over ``engine.Game``."""

    players: int
    deals: int
    game: Optional[engine.Game]
    actions: list[int]

    def _start(self, players: int, deals: int) -> None:
        self.players = players
        self.deals = deals
        self.game = None  # dealt by the chance node
        self.actions = []

    def current_player(self) -> int:
        """The seat to move, ``CHANCE`` before the deal, ``TERMINAL`` once over."""
        if self.game is None:
            return CHANCE
        if self.game.is_over:
            return TERMINAL
        to_move = self.game.to_move
        return TERMINAL if to_move is None else to_move

    def _legal_actions(self, player: int) -> list[int]:
        if self.game is None or self.game.to_move != player:
            return []
        return self.game.legal_action_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deals, equally likely, before the game starts."""
        if self.game is not None:
            return []
        return [(deal, 1.0 / self.deals) for deal in range(self.deals)]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            if not 0 <= action < self.deals:
                raise engine.InvalidArgument(f"no deal {action} (0 to {self.deals - 1})", field="action")
            self.game = engine.Game(self.players, int(action))
        else:
            self.game.apply_action_id(int(action))
        self.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"deal {action}"
        return engine.turn_text(engine.action_of_id(action))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.game is not None and self.game.is_over

    def returns(self) -> list[float]:
        """Each seat's return: 0 until the end, then the winners share +1, the others -1."""
        if self.game is None:
            return [0.0] * self.players
        outcome = self.game.outcome()
        if outcome is None:
            return [0.0] * self.players
        return zero_sum_returns(outcome, self.players)

    def view(self, player: Optional[int] = None) -> model_pb2.GameView:
        """What ``player`` (None: a spectator) may know now, as the server would show it."""
        if self.game is None:
            return model_pb2.GameView()
        return self.game.view(player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> Any:
        """A state ``player_id`` cannot tell from this one: the same view, what it hides
        (other hands, face-down cards, the police order, future deals) drawn anew by
        ``engine.determinize``, seeded from ``probability_sampler`` (a callable giving
        numbers in [0, 1), as pyspiel's samplers are; None: Python's ``random``)."""
        twin = self._twin()
        if self.game is not None and not self.game.is_over:
            draw = probability_sampler() if callable(probability_sampler) else random.random()
            twin.game = engine.determinize(self.game.view(player_id), int(float(draw) * (1 << 63)))
        return twin

    def _twin(self) -> Any:
        raise NotImplementedError

    def __str__(self) -> str:
        from theboss import board  # printing only: kept out of the hot path's imports

        if self.game is None:
            return f"The Boss, {self.players} players: before the deal"
        return board.render(self.game.view())


class Observer:
    """An observation of a state by a player (pyspiel's ``PyObserver`` interface): ``tensor``
    is ``encode_view`` of the player's view, ``string_from`` the view itself, encoded."""

    def __init__(self, iig_obs_type: Any = None, params: Optional[dict[str, Any]] = None) -> None:
        if params:
            raise engine.InvalidArgument(f"observation parameters are not supported: {params}", field="params")
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: _Core, player: int) -> None:
        """Fills ``tensor`` with ``player``'s view of ``state`` (zeros before the deal)."""
        if state.game is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = encode_view(state.view(player))

    def string_from(self, state: _Core, player: int) -> str:
        """``player``'s view of ``state`` as a string (equal views, equal strings)."""
        if state.game is None:
            return "before the deal"
        return state.view(player).SerializeToString(deterministic=True).hex()


def _max_game_length(players: int) -> int:
    return engine.MAX_ROUNDS * engine.TURNS_PER_ROUND * players


class PlainState(_Core):
    """A state of the game as a plain Python object, with pyspiel's ``State`` API."""

    def __init__(self, game: "PlainGame") -> None:
        self._game = game
        self._start(game.params["players"], game.params["deals"])

    def get_game(self) -> "PlainGame":
        """The game this state belongs to."""
        return self._game

    def num_players(self) -> int:
        """How many players the game has."""
        return self.players

    def is_chance_node(self) -> bool:
        """Whether the state waits for the deal."""
        return self.game is None

    def legal_actions(self, player: Optional[int] = None) -> list[int]:
        """The legal actions of ``player`` (by default the one to move), ascending; at the
        chance node, the deals."""
        if self.game is None:
            return [deal for deal, _ in self.chance_outcomes()]
        return self._legal_actions(self.current_player() if player is None else player)

    def apply_action(self, action: int) -> None:
        """Plays an action id (or, at the chance node, deals)."""
        self._apply_action(action)

    def history(self) -> list[int]:
        """Every action applied since the initial state, the deal first."""
        return list(self.actions)

    def action_to_string(self, player: int, action: int) -> str:
        """An action in the turn notation (``place boston 2e 1o; play detroit 3``)."""
        return self._action_to_string(player, action)

    def information_state_string(self, player: Optional[int] = None) -> str:
        """What ``player`` (by default the one to move) knows, as a string: its view."""
        return Observer().string_from(self, self._player(player))

    def information_state_tensor(self, player: Optional[int] = None) -> list[float]:
        """What ``player`` (by default the one to move) knows, as ``encode_view`` numbers."""
        observer = Observer()
        observer.set_from(self, self._player(player))
        return [float(x) for x in observer.tensor]

    observation_string = information_state_string
    observation_tensor = information_state_tensor

    def _player(self, player: Optional[int]) -> int:
        return self.current_player() if player is None else player

    def clone(self) -> "PlainState":
        """An independent copy."""
        return self._twin()

    def _twin(self) -> "PlainState":
        twin = copy.copy(self)
        twin.game = self.game.copy() if self.game is not None else None
        twin.actions = list(self.actions)
        return twin

    def child(self, action: int) -> "PlainState":
        """A copy with ``action`` applied."""
        child = self.clone()
        child.apply_action(action)
        return child


class PlainGame:
    """The game as a plain Python object, with pyspiel's ``Game`` API."""

    def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
        self.params = _params(params)

    def new_initial_state(self) -> PlainState:
        """The state before the deal (a chance node)."""
        return PlainState(self)

    def num_players(self) -> int:
        """How many players (the ``players`` parameter)."""
        return self.params["players"]

    def num_distinct_actions(self) -> int:
        """The size of the action space, ``engine.ACTION_COUNT``."""
        return engine.ACTION_COUNT

    def max_chance_outcomes(self) -> int:
        """The deals the chance node picks among (the ``deals`` parameter)."""
        return self.params["deals"]

    def max_game_length(self) -> int:
        """The most actions a game can take after the deal."""
        return _max_game_length(self.params["players"])

    def information_state_tensor_shape(self) -> list[int]:
        """The shape of an information state's tensor: ``[OBSERVATION_SIZE]``."""
        return [OBSERVATION_SIZE]

    observation_tensor_shape = information_state_tensor_shape

    def min_utility(self) -> float:
        """The lowest return: -1 (every other seat won)."""
        return -1.0

    def max_utility(self) -> float:
        """The highest return: +1 (a win alone)."""
        return 1.0

    def make_py_observer(self, iig_obs_type: Any = None, params: Optional[dict[str, Any]] = None) -> Observer:
        """An ``Observer`` of the game's states."""
        return Observer(iig_obs_type, params)




def register() -> Callable[..., Any]:
    """Registers the game with pyspiel as ``"python_theboss"`` (once) and returns the game
    class. Raises ``ModuleNotFoundError`` if open_spiel is not installed."""
    if pyspiel is None:
        raise ModuleNotFoundError(
            "open_spiel is not installed: pip install \"theboss[openspiel]\" (Python 3.11 or later)"
        )
    global _spiel_game
    if _spiel_game is not None:
        return _spiel_game

    game_type = pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="The Boss",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULT_PARAMS),
    )

    class SpielState(_Core, pyspiel.State):
        """A state of the game for pyspiel (see the module)."""

        def __init__(self, game: Any) -> None:
            pyspiel.State.__init__(self, game)
            params = game.get_parameters()
            self._start(int(params["players"]), int(params["deals"]))

        def _twin(self) -> Any:
            return self.clone()

        def __deepcopy__(self, memo: Any) -> Any:
            twin = self.__class__(self.get_game())
            twin.game = self.game.copy() if self.game is not None else None
            twin.actions = list(self.actions)
            return twin

        def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> Any:
            twin = copy.deepcopy(self)
            if self.game is not None and not self.game.is_over:
                draw = probability_sampler() if callable(probability_sampler) else random.random()
                twin.game = engine.determinize(self.game.view(player_id), int(float(draw) * (1 << 63)))
            return twin

    class SpielGame(pyspiel.Game):
        """The game for pyspiel (see the module)."""

        def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
            checked = _params(params)
            info = pyspiel.GameInfo(
                num_distinct_actions=engine.ACTION_COUNT,
                max_chance_outcomes=checked["deals"],
                num_players=checked["players"],
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=_max_game_length(checked["players"]),
            )
            super().__init__(game_type, info, checked)

        def new_initial_state(self) -> Any:
            return SpielState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: Optional[dict[str, Any]] = None) -> Observer:
            return Observer(iig_obs_type, params)

    pyspiel.register_game(game_type, SpielGame)
    _spiel_game = SpielGame
    return SpielGame


_spiel_game: Optional[Callable[..., Any]] = None
