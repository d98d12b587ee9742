"""The Boss as an OpenSpiel game: registered with pyspiel (open_spiel installs from PyPI for
this interpreter; the test fails, not skips, without it), checked by pyspiel's own random
simulation test, and played by OpenSpiel's IS-MCTS, whose world sampling is
``resample_from_infostate``, that is ``engine.determinize``. The plain classes give the same
API without pyspiel; a small flat Monte Carlo search written against it beats random play."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from theboss import engine, openspiel
from theboss.features import OBSERVATION_SIZE


def test_registered_games_pass_pyspiels_own_checks() -> None:
    openspiel.register()
    assert openspiel.register() is openspiel.register(), "registered once"
    for players in (2, 3, 4):
        game = pyspiel.load_game(openspiel.GAME_NAME, {"players": players, "deals": 8})
        assert game.num_players() == players
        assert game.num_distinct_actions() == engine.ACTION_COUNT
        assert game.information_state_tensor_shape() == [OBSERVATION_SIZE]
        assert game.max_game_length() == engine.MAX_ROUNDS * engine.TURNS_PER_ROUND * players
        pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_a_state_is_the_engines_game() -> None:
    openspiel.register()
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 3, "deals": 4})
    state = game.new_initial_state()
    assert state.is_chance_node() and [o for o, _ in state.chance_outcomes()] == [0, 1, 2, 3]
    state.apply_action(2)
    dealt = engine.Game(3, 2)
    assert state.current_player() == dealt.to_move
    assert state.legal_actions() == dealt.legal_action_ids()
    action = state.legal_actions()[5]
    assert state.action_to_string(state.current_player(), action) == engine.turn_text(engine.action_of_id(action))
    player = state.current_player()
    tensor = np.array(state.information_state_tensor(player))
    assert tensor.shape == (OBSERVATION_SIZE,)
    # Resampling keeps what the player knows and changes what it does not.
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(5)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        assert world.game.view(player) == state.game.view(player)
    hidden = {tuple(c.SerializeToString() for c in w.game.hand((player + 1) % 3)) for w in worlds}
    assert len(hidden) > 1, "the other hands were drawn anew"
    # A clone is independent.
    twin = state.clone()
    twin.apply_action(action)
    assert state.legal_actions() == dealt.legal_action_ids()


def test_openspiels_ismcts_plays_whole_games_sampling_worlds_from_the_engine() -> None:
    openspiel.register()
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "deals": 1000})
    rng = np.random.RandomState(7)
    simulations = 20
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=simulations, random_state=rng)
    sampled: list[int] = []

    def resample(state: object, player: int) -> object:
        sampled.append(player)
        return state.resample_from_infostate(player, rng.uniform)  # type: ignore[attr-defined]

    bot.set_resampler(resample)
    for deal in range(2):
        state = game.new_initial_state()
        state.apply_action(deal)
        searcher = deal % 2  # each seat in turn
        decisions = 0
        while not state.is_terminal():
            if state.current_player() == searcher:
                policy = bot.get_policy(state)
                assert {a for a, _ in policy} <= set(state.legal_actions())
                assert abs(sum(p for _, p in policy) - 1.0) < 1e-9
                action = bot.step(state)
                decisions += 1
            else:
                action = rng.choice(state.legal_actions())
            assert action in state.legal_actions()
            state.apply_action(int(action))
        assert sum(state.returns()) == 0.0 and state.game.is_over and decisions > 5
    # Every simulation of every search started from a world drawn for the searching seat.
    assert len(sampled) >= simulations * 10 and set(sampled) == {0, 1}


def flat_monte_carlo(state: openspiel.PlainState, candidates: list[int], rng: random.Random) -> int:
    """A small determinized search written against the plain API: each candidate action
    is tried on worlds sampled from the player's information, played out at random; the
    best total kept."""
    player = state.current_player()
    scores = {}
    for action in candidates:
        total = 0.0
        for _ in range(3):
            world = state.resample_from_infostate(player, rng.random)
            world.apply_action(action)
            while not world.is_terminal():
                world.apply_action(rng.choice(world.legal_actions()))
            total += world.returns()[player]
        scores[action] = total
    return max(candidates, key=lambda a: scores[a])


def test_the_plain_classes_follow_pyspiels_api_without_pyspiel() -> None:
    game = openspiel.PlainGame({"players": 3, "deals": 50})
    assert game.num_players() == 3 and game.max_chance_outcomes() == 50
    assert game.information_state_tensor_shape() == [OBSERVATION_SIZE]
    rng = random.Random(3)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == openspiel.CHANCE
    assert state.legal_actions() == list(range(50))
    state.apply_action(9)
    assert state.legal_actions() == engine.Game(3, 9).legal_action_ids()
    while not state.is_terminal():
        if state.current_player() == 0:
            # A few candidate turns, to keep the test short: the search ranks them.
            legal = state.legal_actions()
            action = flat_monte_carlo(state.clone(), rng.sample(legal, min(4, len(legal))), rng)
        else:
            action = rng.choice(state.legal_actions())
        before = state.information_state_string(state.current_player())
        world = state.resample_from_infostate(state.current_player(), rng.random)
        assert world.information_state_string(state.current_player()) == before
        state.apply_action(action)
    assert state.current_player() == openspiel.TERMINAL
    assert state.history()[0] == 9 and len(state.history()) > 20
    assert sum(state.returns()) == 0.0 and max(state.returns()) > 0
    assert str(state).startswith("THE BOSS")
