"""The live service on asyncio (``grpc.aio``): ``AsyncClient`` and ``AsyncSession``, the
same calls as ``theboss.client``'s ``Client`` and ``Session`` (same names, arguments,
requests, errors and retry policy), awaited, so that one process plays many games at once.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable, Optional, Sequence, Union

import grpc
import grpc.aio

from theboss.aio.feed import AsyncGameFeed
from theboss.client import _requests as requests
from theboss.client import _rpc
from theboss.client._rpc import Budget, CallStats, RetryPolicy
from theboss.client.feed import FeedItem
from theboss.client.play import GameResult, Player
from theboss.client.session import CHANNEL_OPTIONS, DEFAULT_TARGET, channel_target, deadline_as_unavailable
from theboss.credentials import Credentials, default_path
from theboss.errors import Aborted, RpcError
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import game_service_pb2_grpc as gs_grpc
from theboss.v1 import ladder_service_pb2 as ls
from theboss.v1 import ladder_service_pb2_grpc as ls_grpc
from theboss.v1 import model_pb2

__all__ = ["AsyncChoose", "AsyncClient", "AsyncSession"]

AsyncChoose = Callable[
    [model_pb2.GameView], Union[model_pb2.TurnAction, Awaitable[model_pb2.TurnAction]]
]
"""A strategy for asyncio: a function of a view returning the turn, or a coroutine function
(a strategy that thinks for long should ``await asyncio.to_thread(...)`` so that the other
games go on meanwhile)."""


class AsyncClient:
    """A connection to one server, for asyncio. Create it inside the event loop, and close
    it (``await client.close()``, or ``async with``)."""

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        credentials: Optional[grpc.ChannelCredentials] = None,
        policy: RetryPolicy = RetryPolicy(),
    ) -> None:
        address, tls = channel_target(target)
        if credentials is None and tls:
            credentials = grpc.ssl_channel_credentials()
        if credentials is None:
            self.channel = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        else:
            self.channel = grpc.aio.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
        self.target = target
        """The server, as given."""
        self.policy = policy
        """The retry policy of every session of this client."""
        self._game = gs_grpc.GameServiceStub(self.channel)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connection (and every stream of its sessions)."""
        await self.channel.close(None)

    async def register(self, display_name: str, is_bot: bool = True, description: str = "") -> "AsyncSession":
        """A new player (see ``theboss.client.Client.register``)."""
        request = requests.register(display_name, is_bot, description)

        async def attempt() -> gs.RegisterResponse:
            response: gs.RegisterResponse = await self._game.Register(
                request, wait_for_ready=True, timeout=self.policy.unavailable_for
            )
            return response

        try:
            response = await _rpc.acall("Register", attempt, self.policy, safe=True)
        except RpcError as error:
            raise deadline_as_unavailable(error, self.policy.unavailable_for) from None
        return AsyncSession(self, response.player_id, response.api_token)

    def session(self, player_id: str, token: str) -> "AsyncSession":
        """A session for a player registered before."""
        return AsyncSession(self, player_id, token)

    async def login(
        self,
        display_name: str,
        *,
        is_bot: bool = True,
        description: str = "",
        token_file: "Optional[os.PathLike[str] | str]" = None,
    ) -> "AsyncSession":
        """The player saved for this server in ``token_file``, or a new one registered and
        saved there (see ``theboss.client.Client.login``)."""
        path = default_path(is_bot) if token_file is None else token_file
        saved = Credentials.load(path, self.target)
        if saved is not None:
            return self.session(saved.player_id, saved.api_token)
        session = await self.register(display_name, is_bot=is_bot, description=description)
        Credentials(session.player_id, session.token, display_name).save(path, self.target)
        return session


class AsyncSession:
    """One player's calls, for asyncio: every method of ``theboss.client.Session``,
    awaited (streams and pages are async iterators)."""

    def __init__(self, client: AsyncClient, player_id: str, token: str) -> None:
        self.client = client
        self.player_id = player_id
        """The player's id."""
        self.token = token
        """The player's secret API token."""
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._policy = client.policy
        self.stats = CallStats()
        """What this session's retries did."""
        self._game = gs_grpc.GameServiceStub(client.channel)
        self._ladder = ls_grpc.LadderServiceStub(client.channel)

    async def _call(self, name: str, method: Any, request: Any, *, safe: bool) -> Any:
        async def attempt() -> Any:
            if safe:
                call = method(request, metadata=self._metadata)
            else:
                call = method(
                    request,
                    metadata=self._metadata,
                    wait_for_ready=True,
                    timeout=self._policy.unavailable_for,
                )
            response = await call
            budget = Budget.from_metadata(await call.initial_metadata())
            if budget is not None:
                self.stats.budget = budget
            return response

        try:
            return await _rpc.acall(name, attempt, self._policy, safe=safe, stats=self.stats)
        except RpcError as error:
            raise deadline_as_unavailable(error, self._policy.unavailable_for) from None

    @property
    def budget(self) -> Optional[Budget]:
        """What this player has left of its call quota, as the last answer said."""
        return self.stats.budget

    async def create_game(
        self,
        players: int = 2,
        *,
        cities: Sequence["model_pb2.City"] = (),
        turn_time_limit_seconds: int = 0,
        visibility: "model_pb2.Visibility" = model_pb2.VISIBILITY_PUBLIC,
        rules_version: int = 0,
        seed: Optional[int] = None,
        house_bots: Sequence["model_pb2.BotStrategy"] = (),
    ) -> str:
        """Creates a table; returns its id (see ``Session.create_game``)."""
        request = requests.create_game(
            players, cities, turn_time_limit_seconds, visibility, rules_version, seed, house_bots
        )
        response: gs.CreateGameResponse = await self._call(
            "CreateGame", self._game.CreateGame, request, safe=False
        )
        return response.game_id

    async def join(self, game_id: str, seat: Optional[int] = None) -> gs.JoinGameResponse:
        """Takes a seat in an open game (see ``Session.join``)."""
        response: gs.JoinGameResponse = await self._call(
            "JoinGame", self._game.JoinGame, requests.join(game_id, seat), safe=False
        )
        return response

    async def leave(self, game_id: str) -> None:
        """Gives the seat back, or resigns it (see ``Session.leave``)."""
        await self._call("LeaveGame", self._game.LeaveGame, requests.leave(game_id), safe=False)

    async def list_games(
        self,
        statuses: Iterable["model_pb2.GameStatus"] = (),
        *,
        mine: bool = False,
        page_size: int = 0,
    ) -> AsyncIterator[model_pb2.GameSummary]:
        """Every game matching, page after page (see ``Session.list_games``)."""
        statuses = list(statuses)
        token = ""
        while True:
            request = requests.list_games(statuses, mine, page_size, token)
            page: gs.ListGamesResponse = await self._call("ListGames", self._game.ListGames, request, safe=True)
            for game in page.games:
                yield game
            token = page.next_page_token
            if not token:
                return

    async def view(self, game_id: str) -> model_pb2.GameView:
        """The player's current view of a game."""
        response: gs.GetViewResponse = await self._call(
            "GetView", self._game.GetView, requests.view(game_id), safe=True
        )
        return response.view

    async def odds(self, game_id: str) -> gs.GetOddsResponse:
        """The server's deduction of the face-down cards for this player."""
        response: gs.GetOddsResponse = await self._call(
            "GetOdds", self._game.GetOdds, requests.odds(game_id), safe=True
        )
        return response

    async def catalogue(self, game_id: str) -> list[model_pb2.CityCards]:
        """Every card of the game's city set, by city."""
        response: gs.GetCatalogueResponse = await self._call(
            "GetCatalogue", self._game.GetCatalogue, requests.catalogue(game_id), safe=True
        )
        return list(response.cities)

    async def history(self, game_id: str) -> gs.GetHistoryResponse:
        """Every event the caller may see (see ``Session.history``)."""
        response: gs.GetHistoryResponse = await self._call(
            "GetHistory", self._game.GetHistory, requests.history(game_id), safe=True
        )
        return response

    def feed(
        self,
        game_id: str,
        *,
        after_seq: Optional[int] = None,
        update_views: "gs.UpdateViews" = gs.UPDATE_VIEWS_ACTION_COMPLETE,
        silence: float = 45.0,
    ) -> AsyncGameFeed:
        """Follows a game (see ``Session.feed``): ``async for item in session.feed(id)``."""
        return AsyncGameFeed(
            lambda request: self._game.WatchGame(request, metadata=self._metadata),
            game_id,
            after_seq,
            update_views,
            silence,
            self._policy,
            self.stats,
        )

    async def submit(
        self,
        game_id: str,
        expected_seq: int,
        action: model_pb2.TurnAction,
        *,
        idempotency_key: Optional[str] = None,
        update_views: "gs.UpdateViews" = gs.UPDATE_VIEWS_ACTION_COMPLETE,
    ) -> gs.SubmitActionResponse:
        """Plays a turn (see ``Session.submit``), at most once whatever the retries."""
        request = requests.submit(game_id, expected_seq, action, idempotency_key, update_views)
        response: gs.SubmitActionResponse = await self._call(
            "SubmitAction", self._game.SubmitAction, request, safe=True
        )
        return response

    async def play(
        self,
        game_id: str,
        choose: AsyncChoose,
        *,
        on_item: Optional[Callable[[FeedItem], None]] = None,
    ) -> GameResult:
        """Plays a seated game to its end (see ``Session.play``); ``choose`` may be a
        coroutine function."""
        feed = self.feed(game_id)
        player = Player(game_id)
        try:
            async for item in feed:
                if on_item is not None:
                    on_item(item)
                view = feed.view
                player.observe(item, view)
                if view is None or not player.should_act(item, view, feed.pending()):
                    continue
                chosen = choose(view)
                turn = await chosen if inspect.isawaitable(chosen) else chosen
                try:
                    await self.submit(game_id, view.seq, turn)
                except Aborted:
                    player.refused_as_stale(view.seq)
                else:
                    player.acted(view.seq)
        finally:
            # An async generator left by an exception is closed only when collected: the
            # stream and its reader go now.
            feed.close()
        return player.result(feed.view if feed.view is not None else await self.view(game_id))

    async def update_profile(self, description: str) -> str:
        """Sets what others read of this player; returns it as the server keeps it."""
        response: gs.UpdateProfileResponse = await self._call(
            "UpdateProfile", self._game.UpdateProfile, requests.update_profile(description), safe=True
        )
        return response.description

    async def export_games(
        self,
        *,
        finished_after: Optional[float] = None,
        finished_before: Optional[float] = None,
        page_size: int = 0,
    ) -> AsyncIterator[str]:
        """This player's finished games as game records (see ``Session.export_games``)."""
        token = ""
        while True:
            request = requests.export_games(finished_after, finished_before, page_size, token)

            async def page(request: gs.ExportGamesRequest = request) -> tuple[list[str], str]:
                records: list[str] = []
                next_token = ""
                async for message in self._game.ExportGames(request, metadata=self._metadata):
                    if message.WhichOneof("message") == "record":
                        records.append(message.record)
                    else:
                        next_token = message.next_page_token
                return records, next_token

            records, token = await _rpc.acall("ExportGames", page, self._policy, safe=True, stats=self.stats)
            for record in records:
                yield record
            if not token:
                return

    async def enqueue(
        self, players: int = 0, *, duplicate: bool = False, parallel: int = 0
    ) -> AsyncIterator[ls.EnqueueResponse]:
        """The raw ``Enqueue`` stream (see ``Session.enqueue``)."""
        call = self._ladder.Enqueue(requests.enqueue(players, duplicate, parallel), metadata=self._metadata)
        try:
            async for message in call:
                yield message
        except grpc.RpcError as error:
            raise _rpc.to_error("Enqueue", error) from None
        finally:
            call.cancel()

    async def find_match(
        self, players: int = 0, *, duplicate: bool = False, parallel: int = 0
    ) -> list[ls.LadderMatch]:
        """Waits in the ladder's queue and returns the games to play (see
        ``Session.find_match``)."""
        request = requests.enqueue(players, duplicate, parallel)

        async def attempt() -> list[ls.LadderMatch]:
            matches: list[ls.LadderMatch] = []
            call = self._ladder.Enqueue(request, metadata=self._metadata)
            try:
                async for message in call:
                    if message.WhichOneof("message") == "matched":
                        matches.append(message.matched)
                        if not message.matched.already_seated:
                            break
            except grpc.RpcError:
                if not matches:
                    raise
            finally:
                call.cancel()
            return matches

        return await _rpc.acall("Enqueue", attempt, self._policy, safe=True, stats=self.stats)

    async def cancel(self) -> bool:
        """Leaves the ladder's queue; whether the player was waiting."""
        response: ls.CancelResponse = await self._call("Cancel", self._ladder.Cancel, ls.CancelRequest(), safe=True)
        return response.was_queued

    async def leaderboard(
        self,
        players: int = 0,
        *,
        kind: "model_pb2.PlayerKind" = model_pb2.PLAYER_KIND_UNSPECIFIED,
        page_size: int = 0,
        page_token: str = "",
    ) -> ls.LeaderboardResponse:
        """Established players by rating, one page (see ``Session.leaderboard``)."""
        request = requests.leaderboard(players, kind, page_size, page_token)
        response: ls.LeaderboardResponse = await self._call(
            "Leaderboard", self._ladder.Leaderboard, request, safe=True
        )
        return response

    async def player(self, player_id: Optional[str] = None) -> ls.GetPlayerResponse:
        """A player's ratings and rating history (by default, this session's player)."""
        request = requests.player(player_id or self.player_id)
        response: ls.GetPlayerResponse = await self._call("GetPlayer", self._ladder.GetPlayer, request, safe=True)
        return response

    async def challenge(
        self,
        opponents: list[str],
        *,
        players: int = 0,
        duplicate: bool = False,
        rated: bool = False,
        expires_in_secs: int = 0,
    ) -> ls.Challenge:
        """Challenges players to a game or a duplicate set (see ``Session.challenge``)."""
        request = requests.challenge(opponents, players, duplicate, rated, expires_in_secs)
        response: ls.ChallengeResponse = await self._call(
            "Challenge", self._ladder.Challenge, request, safe=False
        )
        return response.challenge

    async def answer_challenge(self, challenge_id: str, accept: bool) -> ls.Challenge:
        """Accepts or declines a challenge."""
        request = requests.answer_challenge(challenge_id, accept)
        response: ls.AnswerChallengeResponse = await self._call(
            "AnswerChallenge", self._ladder.AnswerChallenge, request, safe=True
        )
        return response.challenge

    async def set_challenge_policy(self, policy: "ls.ChallengePolicy") -> "ls.ChallengePolicy":
        """Who may challenge this player; returns the policy in force."""
        request = requests.set_challenge_policy(policy)
        response: ls.SetChallengePolicyResponse = await self._call(
            "SetChallengePolicy", self._ladder.SetChallengePolicy, request, safe=True
        )
        return response.policy

    async def offers(self) -> AsyncIterator[ls.OffersResponse]:
        """The raw ``Offers`` stream (see ``Session.offers``)."""
        call = self._ladder.Offers(ls.OffersRequest(), metadata=self._metadata)
        try:
            async for message in call:
                yield message
        except grpc.RpcError as error:
            raise _rpc.to_error("Offers", error) from None
        finally:
            call.cancel()

    async def create_tournament(
        self,
        name: str,
        *,
        format: "ls.TournamentFormat" = ls.TOURNAMENT_FORMAT_ROUND_ROBIN,
        players: int = 2,
        sets_per_pair: int = 0,
        hero_id: str = "",
        max_entrants: int = 0,
        rated: bool = False,
        enter: bool = True,
    ) -> ls.Tournament:
        """A tournament of duplicate sets (see ``Session.create_tournament``)."""
        request = requests.create_tournament(
            name, format, players, sets_per_pair, hero_id, max_entrants, rated, enter
        )
        response: ls.CreateTournamentResponse = await self._call(
            "CreateTournament", self._ladder.CreateTournament, request, safe=False
        )
        return response.tournament

    async def enter_tournament(self, tournament_id: str, *, leave: bool = False) -> ls.Tournament:
        """Enters (or, with ``leave``, withdraws from) an open tournament."""
        request = requests.enter_tournament(tournament_id, leave)
        response: ls.EnterTournamentResponse = await self._call(
            "EnterTournament", self._ladder.EnterTournament, request, safe=True
        )
        return response.tournament

    async def start_tournament(self, tournament_id: str) -> ls.Tournament:
        """Starts a tournament this player created."""
        request = requests.start_tournament(tournament_id)
        response: ls.StartTournamentResponse = await self._call(
            "StartTournament", self._ladder.StartTournament, request, safe=False
        )
        return response.tournament

    async def tournament(self, tournament_id: str) -> ls.GetTournamentResponse:
        """A tournament with its standings, crosstable and games being played."""
        request = requests.tournament(tournament_id)
        response: ls.GetTournamentResponse = await self._call(
            "GetTournament", self._ladder.GetTournament, request, safe=True
        )
        return response

    async def tournaments(
        self, status: "ls.TournamentStatus" = ls.TOURNAMENT_STATUS_UNSPECIFIED, page_size: int = 0
    ) -> list[ls.Tournament]:
        """Tournaments, newest first (of one status, or all)."""
        request = requests.tournaments(status, page_size)
        response: ls.ListTournamentsResponse = await self._call(
            "ListTournaments", self._ladder.ListTournaments, request, safe=True
        )
        return list(response.tournaments)
