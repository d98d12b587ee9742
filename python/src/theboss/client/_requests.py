"""The requests of every call, built once for the sync and the asyncio sessions.

A value protobuf cannot take (a negative player count, a string for a number) is the kit's
``InvalidArgument`` or ``WrongType`` naming the request, never protobuf's own ``ValueError``
or ``TypeError``; nothing is sent.
"""

from __future__ import annotations

import functools
import uuid
from typing import Callable, Iterable, Optional, Sequence, TypeVar

from theboss.errors import InvalidArgument, TheBossError, WrongType
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import ladder_service_pb2 as ls
from theboss.v1 import model_pb2

R = TypeVar("R")


def _checked(build: Callable[..., R]) -> Callable[..., R]:
    """Turns protobuf's refusals of a value into the kit's exceptions."""

    @functools.wraps(build)
    def checked(*args: object, **kwargs: object) -> R:
        try:
            return build(*args, **kwargs)
        except TheBossError:
            raise
        except TypeError as error:
            raise WrongType(f"{build.__name__}: {error}") from None
        except ValueError as error:
            raise InvalidArgument(f"{build.__name__}: {error}") from None

    return checked


@_checked
def register(display_name: str, is_bot: bool, description: str) -> gs.RegisterRequest:
    return gs.RegisterRequest(display_name=display_name, is_bot=is_bot, description=description)


@_checked
def create_game(
    players: int,
    cities: Sequence["model_pb2.City"],
    turn_time_limit_seconds: int,
    visibility: "model_pb2.Visibility",
    rules_version: int,
    seed: Optional[int],
    house_bots: Sequence["model_pb2.BotStrategy"],
) -> gs.CreateGameRequest:
    settings = model_pb2.GameSettings(
        players=players,
        cities=list(cities),
        turn_time_limit_seconds=turn_time_limit_seconds,
        visibility=visibility,
        rules_version=rules_version,
    )
    request = gs.CreateGameRequest(settings=settings, house_bots=list(house_bots))
    if seed is not None:
        request.seed = seed
    return request


@_checked
def join(game_id: str, seat: Optional[int]) -> gs.JoinGameRequest:
    request = gs.JoinGameRequest(game_id=game_id)
    if seat is not None:
        request.seat = seat
    return request


@_checked
def leave(game_id: str) -> gs.LeaveGameRequest:
    return gs.LeaveGameRequest(game_id=game_id)


@_checked
def list_games(
    statuses: Iterable["model_pb2.GameStatus"], mine: bool, page_size: int, page_token: str
) -> gs.ListGamesRequest:
    return gs.ListGamesRequest(
        statuses=list(statuses), mine=mine, page_size=page_size, page_token=page_token
    )


@_checked
def view(game_id: str) -> gs.GetViewRequest:
    return gs.GetViewRequest(game_id=game_id)


@_checked
def odds(game_id: str) -> gs.GetOddsRequest:
    return gs.GetOddsRequest(game_id=game_id)


@_checked
def catalogue(game_id: str) -> gs.GetCatalogueRequest:
    return gs.GetCatalogueRequest(game_id=game_id)


@_checked
def history(game_id: str) -> gs.GetHistoryRequest:
    return gs.GetHistoryRequest(game_id=game_id)


@_checked
def submit(
    game_id: str,
    expected_seq: int,
    action: model_pb2.TurnAction,
    idempotency_key: Optional[str],
    update_views: "gs.UpdateViews",
) -> gs.SubmitActionRequest:
    if not isinstance(action, model_pb2.TurnAction):
        raise WrongType(
            f"submit: expected a theboss.v1.TurnAction, not {type(action).__name__}", field="action"
        )
    return gs.SubmitActionRequest(
        game_id=game_id,
        expected_seq=expected_seq,
        idempotency_key=idempotency_key or str(uuid.uuid4()),
        action=action,
        update_views=update_views,
    )


@_checked
def update_profile(description: str) -> gs.UpdateProfileRequest:
    return gs.UpdateProfileRequest(description=description)


@_checked
def export_games(
    finished_after: Optional[float], finished_before: Optional[float], page_size: int, page_token: str
) -> gs.ExportGamesRequest:
    request = gs.ExportGamesRequest(page_size=page_size, page_token=page_token)
    if finished_after is not None:
        request.finished_after.FromNanoseconds(int(finished_after * 1e9))
    if finished_before is not None:
        request.finished_before.FromNanoseconds(int(finished_before * 1e9))
    return request


@_checked
def enqueue(players: int, duplicate: bool, parallel: int) -> ls.EnqueueRequest:
    return ls.EnqueueRequest(players=players, duplicate=duplicate, parallel=parallel)


@_checked
def leaderboard(
    players: int, kind: "model_pb2.PlayerKind", page_size: int, page_token: str
) -> ls.LeaderboardRequest:
    return ls.LeaderboardRequest(players=players, kind=kind, page_size=page_size, page_token=page_token)


@_checked
def player(player_id: str) -> ls.GetPlayerRequest:
    return ls.GetPlayerRequest(player_id=player_id)


@_checked
def challenge(
    opponents: Sequence[str], players: int, duplicate: bool, rated: bool, expires_in_secs: int
) -> ls.ChallengeRequest:
    return ls.ChallengeRequest(
        opponents=list(opponents),
        players=players,
        duplicate=duplicate,
        rated=rated,
        expires_in_secs=expires_in_secs,
    )


@_checked
def answer_challenge(challenge_id: str, accept: bool) -> ls.AnswerChallengeRequest:
    return ls.AnswerChallengeRequest(challenge_id=challenge_id, accept=accept)


@_checked
def set_challenge_policy(policy: "ls.ChallengePolicy") -> ls.SetChallengePolicyRequest:
    return ls.SetChallengePolicyRequest(policy=policy)


@_checked
def create_tournament(
    name: str,
    format: "ls.TournamentFormat",
    players: int,
    sets_per_pair: int,
    hero_id: str,
    max_entrants: int,
    rated: bool,
    enter: bool,
) -> ls.CreateTournamentRequest:
    return ls.CreateTournamentRequest(
        name=name,
        format=format,
        players=players,
        sets_per_pair=sets_per_pair,
        hero_id=hero_id,
        max_entrants=max_entrants,
        rated=rated,
        enter=enter,
    )


@_checked
def enter_tournament(tournament_id: str, leave: bool) -> ls.EnterTournamentRequest:
    return ls.EnterTournamentRequest(tournament_id=tournament_id, leave=leave)


@_checked
def start_tournament(tournament_id: str) -> ls.StartTournamentRequest:
    return ls.StartTournamentRequest(tournament_id=tournament_id)


@_checked
def tournament(tournament_id: str) -> ls.GetTournamentRequest:
    return ls.GetTournamentRequest(tournament_id=tournament_id)


@_checked
def tournaments(status: "ls.TournamentStatus", page_size: int) -> ls.ListTournamentsRequest:
    return ls.ListTournamentsRequest(status=status, page_size=page_size)
