"""A PettingZoo environment (AEC API) of The Boss, on the server's own engine.

Install with ``pip install "theboss[pettingzoo]"``. Agents are ``seat_0`` … ``seat_{n-1}``;
the agent to act is the seat the rules say moves next (not a fixed cycle). Each agent
observes a dict:

- ``observation``: ``encode_view(view)`` of its own ``theboss.v1.GameView`` (``OBSERVATION_SIZE`` = 214
  floats, laid out in ``FEATURES``), exactly what that seat may know;
- ``action_mask``: 1 for the legal action ids of the fixed action space
  (``theboss.engine.ACTION_COUNT``), all 0 when it is not the agent's turn.

Rewards come at the end: the winners share +1 and the others share −1 (a zero-sum game);
every other step rewards 0. An illegal action raises ``theboss.errors.RuleViolation``.
``reset(seed=s)`` deals the game the server would deal for seed ``s``.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from theboss import engine
from theboss.v1 import model_pb2

__all__ = ["TheBossEnv", "encode_view", "env", "FEATURES", "OBSERVATION_SIZE"]

_MAX_SEATS = 4
_LOCATIONS = 8  # the seven cities and Chicago (Location numbers 1..8)
_DECK = engine.deck()
_CARD_INDEX = {card.SerializeToString(deterministic=True): i for i, card in enumerate(_DECK)}

FEATURES: list[tuple[str, int]] = [
    ("round, turn, last_turn, last_round", 4),
    ("police: silver, gold, remaining", 3),
    ("chicago_value", 1),
    ("per location 1..8: in play, face down, 4×(experts, occasionals), leader one-hot (none + 4 seats), cards played, their money", _LOCATIONS * 17),
    ("per seat 0..3: present, is the viewer, money, money last round, hand size, experts free, occasionals, experts killed, banished cities", _MAX_SEATS * 9),
    ("the viewer's hand: count per card of the deck", len(_DECK)),
    ("expected money of each city's face-down card, cities 1..7", 7),
]
OBSERVATION_SIZE = sum(n for _, n in FEATURES)


def _card_money(card: model_pb2.Card) -> int:
    return card.money if card.WhichOneof("face") == "money" else 0


def encode_view(view: model_pb2.GameView) -> np.ndarray:
    """A view as the flat float32 vector ``FEATURES`` describes (same result offline and
    online, since both give the same ``GameView``)."""
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    out[0:4] = (view.round, view.turn, view.last_turn, view.last_round)
    out[4:7] = (view.police.silver, view.police.gold, view.police.remaining)
    out[7] = view.chicago_value
    at = 8
    for location in view.locations:
        base = at + (location.location - 1) * 17
        out[base] = 1
        out[base + 1] = location.face_down
        for i, g in enumerate(location.gangsters[:_MAX_SEATS]):
            out[base + 2 + 2 * i] = g.experts
            out[base + 3 + 2 * i] = g.occasionals
        leader = location.leader + 1 if location.HasField("leader") else 0
        out[base + 10 + leader] = 1
        out[base + 15] = len(location.played)
        out[base + 16] = sum(_card_money(c) for c in location.played)
    at += _LOCATIONS * 17
    for seat in view.seats[:_MAX_SEATS]:
        base = at + seat.seat * 9
        supply = seat.supply
        out[base : base + 9] = (
            1,
            view.HasField("viewer_seat") and view.viewer_seat == seat.seat,
            seat.money,
            seat.money_last_round,
            seat.hand_size,
            supply.experts_free,
            supply.occasionals,
            supply.experts_killed,
            len(seat.banished),
        )
    at += _MAX_SEATS * 9
    for card in view.hand:
        out[at + _CARD_INDEX[card.SerializeToString(deterministic=True)]] += 1
    at += len(_DECK)
    for odds in engine.face_down_odds(view):
        out[at + odds.city - 1] = odds.expected_money()
    return out


class TheBossEnv(AECEnv):
    """The Boss for 2 to 4 agents (see the module's documentation)."""

    metadata = {"name": "theboss_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        players: int = 4,
        cities: Optional[list[int]] = None,
        rules_version: Optional[int] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__()
        engine.Game(players, 0, cities, rules_version)  # checks the configuration now
        self.players = players
        self.cities = cities
        self.rules_version = rules_version
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, np.inf, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (engine.ACTION_COUNT,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(engine.ACTION_COUNT)
        self.game: Optional[engine.Game] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is None:
            seed = int(np.random.default_rng().integers(0, 2**63))
        self.game = engine.Game(self.players, seed, self.cities, self.rules_version)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_move()

    def observe(self, agent: str) -> dict[str, Any]:
        assert self.game is not None, "reset() first"
        seat = self._seat[agent]
        mask = np.zeros(engine.ACTION_COUNT, dtype=np.int8)
        if self.game.to_move == seat:
            mask[self.game.legal_action_ids()] = 1
        return {"observation": encode_view(self.game.view(seat)), "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        assert self.game is not None, "reset() first"
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game.apply_action_id(int(action))  # type: ignore[arg-type]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        outcome = self.game.outcome()
        if outcome is not None:
            winners = set(outcome.winners)
            losers = self.players - len(winners)
            for a in self.agents:
                won = self._seat[a] in winners
                self.rewards[a] = 1.0 / len(winners) if won else -1.0 / max(losers, 1)
                self.terminations[a] = True
            self.infos = {a: {"money": self.game.money()[self._seat[a]]} for a in self.agents}
        else:
            self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()

    def _agent_to_move(self) -> str:
        assert self.game is not None and self.game.to_move is not None, "a game in play"
        return self.possible_agents[self.game.to_move]

    def render(self) -> Optional[str]:
        if self.game is None:
            return None
        money = " ".join(f"{a}:{m}M$" for a, m in zip(self.possible_agents, self.game.money()))
        state = "over" if self.game.is_over else f"seat {self.game.to_move} to move"
        return f"round {self.game.round} turn {self.game.turn}, {state}; {money}"

    def close(self) -> None:
        self.game = None


def env(**kwargs: Any) -> TheBossEnv:
    """PettingZoo's conventional constructor."""
    return TheBossEnv(**kwargs)
