"""The PettingZoo environment: PettingZoo's own API test, whole episodes, and the same
observation offline as online. Needs the `pettingzoo` extra (CI installs it; without it these
tests fail, they do not skip)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from conftest import seat_players
from theboss import engine
from theboss.client import Client
from theboss.env import OBSERVATION_SIZE, TheBossEnv, encode_view, env
from theboss.errors import RuleViolation
from theboss.v1 import model_pb2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoos_api_test_passes(players: int) -> None:
    api_test(env(players=players), num_cycles=2000, verbose_progress=False)


def play_episode(environment: TheBossEnv, seed: int) -> dict[str, float]:
    environment.reset(seed=seed)
    rng = random.Random(seed)
    totals = {agent: 0.0 for agent in environment.possible_agents}
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _ = environment.last()
        totals[agent] += reward
        if termination or truncation:
            environment.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) == environment.game.legal_count()
        environment.step(int(rng.choice(legal)))
    return totals


def test_an_episode_ends_with_zero_sum_rewards_for_the_winners() -> None:
    environment = TheBossEnv(players=3)
    totals = play_episode(environment, 5)
    assert sum(totals.values()) == pytest.approx(0.0)
    winners = {f"seat_{s}" for s in environment.game.outcome().winners}
    assert {a for a, r in totals.items() if r > 0} == winners
    assert environment.agents == []


def test_reset_with_a_seed_deals_the_servers_game() -> None:
    environment = TheBossEnv(players=4)
    environment.reset(seed=77)
    dealt = engine.Game(4, 77)
    for seat in range(4):
        expected = encode_view(dealt.view(seat))
        assert np.array_equal(environment.observe(f"seat_{seat}")["observation"], expected)
    assert environment.agent_selection == f"seat_{dealt.to_move}"


def test_an_illegal_action_is_refused() -> None:
    environment = TheBossEnv(players=2)
    environment.reset(seed=3)
    mask = environment.observe(environment.agent_selection)["action_mask"]
    with pytest.raises(RuleViolation):
        environment.step(int(np.flatnonzero(mask == 0)[0]))


def test_observations_are_the_same_offline_and_online(server) -> None:
    with Client(server.target) as client:
        game_id, sessions = seat_players(
            client, 3, seed=4242, visibility=model_pb2.VISIBILITY_UNLISTED
        )
        offline = engine.Game(3, 4242)
        for seat, session in enumerate(sessions):
            online = encode_view(session.view(game_id))
            assert online.shape == (OBSERVATION_SIZE,)
            assert np.array_equal(online, encode_view(offline.view(seat)))
