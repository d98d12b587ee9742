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
from theboss.errors import InvalidArgument
from theboss.features import FEATURES, OBSERVATION_SIZE, encode_view, zero_sum_returns

__all__ = ["TheBossEnv", "encode_view", "env", "FEATURES", "OBSERVATION_SIZE"]


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
        if action is None:
            raise InvalidArgument("a live agent must act: step(None) is for agents whose game ended", field="action")
        self.game.apply_action_id(int(action))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        outcome = self.game.outcome()
        if outcome is not None:
            returns = zero_sum_returns(outcome, self.players)
            for a in self.agents:
                self.rewards[a] = returns[self._seat[a]]
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
