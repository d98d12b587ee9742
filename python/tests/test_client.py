"""The live service through `theboss.client`: playing, following, and every error path
with its code and reason."""

from __future__ import annotations

import threading
import uuid

import grpc
import pytest

from conftest import seat_players
from theboss import engine
from theboss.client import Client, Session
from theboss.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    RpcError,
    RuleViolation,
    Unauthenticated,
)
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import ladder_service_pb2 as ls
from theboss.v1 import model_pb2


def first_turn(view: model_pb2.GameView) -> model_pb2.TurnAction:
    return engine.view_turns(view)[0]


def play_all(game_id: str, sessions: list[Session], choose=first_turn) -> list[model_pb2.GameView]:
    """Every seat plays its own feed in its own thread; the final views."""
    finals: list = [None] * len(sessions)
    errors: list = []

    def run(i: int) -> None:
        try:
            finals[i] = sessions[i].play(game_id, choose).view
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    return finals


def test_two_players_play_a_game_to_its_end(client: Client) -> None:
    game_id, sessions = seat_players(client, 2)
    finals = play_all(game_id, sessions)
    for seat, view in enumerate(finals):
        assert view.status == model_pb2.GAME_STATUS_FINISHED
        assert view.viewer_seat == seat and view.HasField("outcome")
    assert finals[0].outcome == finals[1].outcome
    listed = [g.game_id for g in sessions[0].list_games([model_pb2.GAME_STATUS_FINISHED], mine=True)]
    assert listed == [game_id]
    history = sessions[1].history(game_id)
    replayed = engine.replay_history(history)
    assert replayed.outcome() == finals[0].outcome
    assert engine.shuffle_verified(finals[0].seed_commitment, history.seed, history.seed_salt)
    assert [c.city for c in sessions[0].catalogue(game_id)] == list(finals[0].cities)


def test_one_session_plays_against_house_bots(client: Client) -> None:
    me = client.register(f"solo-{uuid.uuid4().hex[:8]}")
    game_id = me.create_game(
        3, house_bots=[model_pb2.BOT_STRATEGY_HEURISTIC, model_pb2.BOT_STRATEGY_RANDOM]
    )
    assert me.join(game_id).seat == 0
    result = me.play(game_id, first_turn)
    final = result.view
    assert final.status == model_pb2.GAME_STATUS_FINISHED
    assert result.seat == 0 and result.turns_played > 10
    assert not result.timeouts and not result.forfeited and result.stale == 0
    bots = [s.player.house_bot for s in final.seats]
    assert bots == [
        model_pb2.BOT_STRATEGY_UNSPECIFIED,
        model_pb2.BOT_STRATEGY_HEURISTIC,
        model_pb2.BOT_STRATEGY_RANDOM,
    ]
    with pytest.raises(InvalidArgument) as refused:
        me.create_game(2, house_bots=[model_pb2.BOT_STRATEGY_RANDOM] * 2)
    assert "house_bots" in str(refused.value)


def test_a_feed_delivers_every_update_once_in_order(client: Client) -> None:
    game_id, sessions = seat_players(client, 3)
    seen: list[int] = []

    def note(item) -> None:
        if isinstance(item, gs.GameUpdate):
            seen.append(item.seq)

    threads = [threading.Thread(target=s.play, args=(game_id, first_turn)) for s in sessions[1:]]
    for t in threads:
        t.start()
    final = sessions[0].play(game_id, first_turn, on_item=note).view
    for t in threads:
        t.join(timeout=300)
    assert final.status == model_pb2.GAME_STATUS_FINISHED
    assert seen == sorted(set(seen)) and seen[-1] <= final.seq
    # From the start, the same player's feed replays the same updates.
    again = [i.seq for i in sessions[0].feed(game_id, after_seq=0) if isinstance(i, gs.GameUpdate)]
    assert again[-len(seen):] == seen


def test_a_turn_is_played_once_whatever_the_retries(client: Client) -> None:
    game_id, sessions = seat_players(client, 2)
    view = sessions[0].view(game_id)
    mover = sessions[view.to_move]
    view = mover.view(game_id)
    key = str(uuid.uuid4())
    first = mover.submit(game_id, view.seq, first_turn(view), idempotency_key=key)
    again = mover.submit(game_id, view.seq, first_turn(view), idempotency_key=key)
    assert again.seq == first.seq
    assert mover.view(game_id).seq == first.seq
    with pytest.raises(InvalidArgument):  # the same key for another turn
        mover.submit(game_id, view.seq, engine.view_turns(view)[1], idempotency_key=key)


def test_errors_carry_their_code_and_reason(client: Client, server) -> None:
    game_id, (a, b) = seat_players(client, 2)
    view = a.view(game_id)
    mover, waiter = (a, b) if view.to_move == 0 else (b, a)
    view = mover.view(game_id)
    turn = first_turn(view)

    with pytest.raises(Unauthenticated) as e:
        client.session(a.player_id, "not-a-token").view(game_id)
    assert e.value.code == grpc.StatusCode.UNAUTHENTICATED

    with pytest.raises(InvalidArgument) as e:
        a.create_game(5)
    assert e.value.field and "players" in e.value.field

    with pytest.raises(InvalidArgument) as e:
        a.create_game(2, seed=7)  # a chosen seed is for unlisted games only
    assert e.value.field == "seed"

    with pytest.raises(NotFound):
        a.view(str(uuid.uuid4()))

    with pytest.raises(RuleViolation) as rule:
        waiter.submit(game_id, view.seq, turn)
    assert rule.value.reason == "TURN_ORDER" and isinstance(rule.value, FailedPrecondition)

    foreign = model_pb2.TurnAction(card=waiter.view(game_id).hand[0])
    if foreign not in engine.view_turns(view):
        with pytest.raises(FailedPrecondition) as e:
            mover.submit(game_id, view.seq, foreign)
        assert e.value.reason == "CARD_IN_HAND"

    with pytest.raises(Aborted) as e:
        mover.submit(game_id, view.seq + 5, turn)
    assert e.value.reason == "STALE_SEQ"

    outsider = client.register("outsider")
    with pytest.raises(PermissionDenied) as e:
        outsider.submit(game_id, view.seq, turn)
    assert e.value.reason == "NOT_SEATED"

    with pytest.raises(FailedPrecondition) as e:
        outsider.join(game_id)
    assert e.value.reason in ("GAME_NOT_OPEN", "TABLE_FULL")

    # Every refusal above changed nothing.
    assert mover.view(game_id) == view

    # A limit (no RetryInfo): open games a player may create.
    creator = client.register("creator")
    with pytest.raises(ResourceExhausted) as e:
        for _ in range(50):
            creator.create_game(2)
    assert e.value.reason == "TOO_MANY_OPEN_GAMES" and e.value.retry_after is None
    assert isinstance(e.value, RpcError) and "CreateGame" in str(e.value)


def test_the_ladder_through_the_client(client: Client) -> None:
    a, b = client.register("ladder-a"), client.register("ladder-b")
    results: dict = {}
    t = threading.Thread(target=lambda: results.setdefault("b", b.find_match(2)))
    t.start()
    matches_a = a.find_match(2)
    t.join(timeout=60)
    [match_a], [match_b] = matches_a, results["b"]
    assert match_a.game_id == match_b.game_id and {match_a.seat, match_b.seat} == {0, 1}
    # Seated already: the stream sends that game and ends.
    [again] = a.find_match(2)
    assert again.already_seated and again.game_id == match_a.game_id
    with pytest.raises(InvalidArgument) as e:
        for _ in a.enqueue(2, parallel=9):
            pass
    assert e.value.field == "parallel"
    # One waiting request per player: a second is refused while the first waits.
    c = client.register("ladder-c")
    waiting = c.enqueue(3)
    assert next(waiting).WhichOneof("message") == "queued"
    with pytest.raises(FailedPrecondition) as e:
        c.find_match(3)
    assert e.value.reason == "ALREADY_QUEUED"
    assert c.cancel() is True
    waiting.close()
    assert a.cancel() is False
    play_all(match_a.game_id, [a, b] if match_a.seat == 0 else [b, a])
    board = a.leaderboard(2)
    assert all(entry.rating.games >= 10 for entry in board.entries)  # provisional: off it
    assert not a.leaderboard(2, kind=model_pb2.PLAYER_KIND_PERSON).entries
    assert a.update_profile(" one-ply, v1 ") == "one-ply, v1"
    me = a.player()
    assert me.player_id == a.player_id and me.description == "one-ply, v1"
    with pytest.raises(InvalidArgument) as e:
        a.update_profile("x" * 201)
    assert e.value.field == "description"
    assert any(r.players == 2 and r.games == 1 for r in me.ratings)


def test_a_challenge_through_the_client(client: Client) -> None:
    a, b = client.register("challenger"), client.register("challenged")
    offers = b.offers()
    made = a.challenge([b.player_id])
    assert made.status == ls.CHALLENGE_STATUS_PENDING and made.players == 2
    first = next(m for m in offers if m.WhichOneof("message") == "challenge")
    assert first.challenge.challenge_id == made.challenge_id
    assert first.challenge.challenger_is_bot
    accepted = b.answer_challenge(made.challenge_id, True)
    assert accepted.status in (ls.CHALLENGE_STATUS_SEATING, ls.CHALLENGE_STATUS_STARTED)
    matched = next(m for m in offers if m.WhichOneof("message") == "matched").matched
    offers.close()
    assert b.view(matched.game_id).viewer_seat == matched.seat
    # Refusals: to oneself, unknown players, players who refuse challenges, strangers.
    with pytest.raises(InvalidArgument) as e:
        a.challenge([a.player_id])
    assert e.value.field == "opponents"
    with pytest.raises(NotFound):
        a.challenge([str(uuid.uuid4())])
    assert b.set_challenge_policy(ls.CHALLENGE_POLICY_CLOSED) == ls.CHALLENGE_POLICY_CLOSED
    with pytest.raises(FailedPrecondition) as e:
        a.challenge([b.player_id])
    assert e.value.reason == "CHALLENGES_REFUSED"
    c = client.register("stranger")
    with pytest.raises(PermissionDenied) as e:
        c.answer_challenge(made.challenge_id, True)
    assert e.value.reason == "NOT_CHALLENGED"


def test_tournaments_through_the_client(client: Client) -> None:
    creator = client.register("organiser")
    cup = creator.create_tournament("Python cup", players=2, sets_per_pair=1)
    assert cup.status == ls.TOURNAMENT_STATUS_OPEN and len(cup.entrants) == 1
    with pytest.raises(FailedPrecondition) as e:
        creator.start_tournament(cup.tournament_id)
    assert e.value.reason == "TOO_FEW_ENTRANTS"
    others = [client.register(f"entrant-{i}") for i in range(3)]
    for other in others:
        other.enter_tournament(cup.tournament_id)
    with pytest.raises(PermissionDenied) as e:
        others[0].start_tournament(cup.tournament_id)
    assert e.value.reason == "NOT_CREATOR"
    started = creator.start_tournament(cup.tournament_id)
    assert started.status == ls.TOURNAMENT_STATUS_RUNNING
    assert any(t.tournament_id == cup.tournament_id for t in creator.tournaments())
    report = creator.tournament(cup.tournament_id)
    assert len(report.tournament.entrants) == 4 and not report.standings
    with pytest.raises(InvalidArgument) as e:
        creator.create_tournament("", players=2)
    assert e.value.field == "name"
