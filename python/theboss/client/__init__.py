"""The live service: connect, register, play, watch and climb the ladder.

::

    from theboss.client import Client

    with Client("127.0.0.1:50051") as client:
        me = client.register("my-bot", is_bot=True)
        game_id = me.create_game(players=2)
        ...
        final = me.play(game_id, lambda view: view_turns(view)[0])

A ``Session`` carries the player's token on every call, retries what is safe to retry
(``theboss.client._rpc``: throttling as ``RetryInfo`` says, UNAVAILABLE with back-off for
reads and for turns, which carry an idempotency key), and raises ``theboss.errors.RpcError``
subclasses carrying the gRPC code and the ``ErrorInfo`` reason for the rest.
"""

from __future__ import annotations

import uuid
from typing import Callable, Iterable, Iterator, Optional, Sequence

import grpc

from theboss.client import _rpc
from theboss.client._rpc import Budget, CallStats, RetryPolicy
from theboss.client.feed import FeedItem, GameFeed, StreamLost
from theboss.engine import view_turns
from theboss.errors import Aborted
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import game_service_pb2_grpc as gs_grpc
from theboss.v1 import ladder_service_pb2 as ls
from theboss.v1 import ladder_service_pb2_grpc as ls_grpc
from theboss.v1 import model_pb2

__all__ = [
    "Budget",
    "CallStats",
    "Client",
    "FeedItem",
    "GameFeed",
    "RetryPolicy",
    "Session",
    "StreamLost",
    "view_turns",
]

DEFAULT_TARGET = "127.0.0.1:50051"

# HTTP/2 pings tell a dead connection from a quiet one between the server's keep-alives.
_CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
    # Reconnect quickly after a server restart (gRPC's default first wait is a second, and
    # its waits grow to two minutes).
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2_000),
]


class Client:
    """A connection to one server. Closing it closes every session's calls."""

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        credentials: Optional[grpc.ChannelCredentials] = None,
        policy: RetryPolicy = RetryPolicy(),
    ) -> None:
        if credentials is None:
            self.channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        else:
            self.channel = grpc.secure_channel(target, credentials, options=_CHANNEL_OPTIONS)
        self.target = target
        self.policy = policy
        self._game = gs_grpc.GameServiceStub(self.channel)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.channel.close()

    def register(self, display_name: str, is_bot: bool = True, description: str = "") -> "Session":
        """A new player; keep ``session.player_id`` and ``session.token`` to come back as it.
        ``description``: what it is, shown on the leaderboard (a bot's strategy and
        version). Registration is not retried on UNAVAILABLE (a lost answer would leave an
        orphan)."""
        response = _rpc.call(
            "Register",
            lambda: self._game.Register(
                gs.RegisterRequest(
                    display_name=display_name, is_bot=is_bot, description=description
                )
            ),
            self.policy,
            safe=False,
        )
        return Session(self, response.player_id, response.api_token)

    def session(self, player_id: str, token: str) -> "Session":
        """A session for a player registered before."""
        return Session(self, player_id, token)


class Session:
    """One player's calls. Thread-safe as its channel is: several games may be played from
    several threads of one session."""

    def __init__(self, client: Client, player_id: str, token: str) -> None:
        self.client = client
        self.player_id = player_id
        self.token = token
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._policy = client.policy
        self.stats = CallStats()
        self._game = gs_grpc.GameServiceStub(client.channel)
        self._ladder = ls_grpc.LadderServiceStub(client.channel)

    def _call(self, name: str, method, request, *, safe: bool):
        def attempt():
            response, call = method.with_call(request, metadata=self._metadata)
            budget = Budget.from_metadata(call.initial_metadata())
            if budget is not None:
                self.stats.budget = budget
            return response

        return _rpc.call(name, attempt, self._policy, safe=safe, stats=self.stats)

    @property
    def budget(self) -> Optional[Budget]:
        """What this player has left of its call quota, as the last answer said."""
        return self.stats.budget

    # Tables.

    def create_game(
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
        """Creates a table (seated by nobody: ``join`` it); returns its id. ``seed`` is for
        UNLISTED games only (the server refuses it otherwise) and marks the game seeded.
        ``house_bots`` fills that many of the table's last seats with bots the server plays
        (one strategy per seat, e.g. ``model_pb2.BOT_STRATEGY_HEURISTIC``), so that one
        session can play at once."""
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
        return self._call("CreateGame", self._game.CreateGame, request, safe=False).game_id

    def join(self, game_id: str, seat: Optional[int] = None) -> gs.JoinGameResponse:
        request = gs.JoinGameRequest(game_id=game_id)
        if seat is not None:
            request.seat = seat
        return self._call("JoinGame", self._game.JoinGame, request, safe=False)

    def leave(self, game_id: str) -> None:
        self._call("LeaveGame", self._game.LeaveGame, gs.LeaveGameRequest(game_id=game_id), safe=False)

    def list_games(
        self,
        statuses: Iterable["model_pb2.GameStatus"] = (),
        *,
        mine: bool = False,
        page_size: int = 0,
    ) -> Iterator[model_pb2.GameSummary]:
        """Every game matching, page after page (newest first)."""
        token = ""
        while True:
            request = gs.ListGamesRequest(
                statuses=list(statuses), mine=mine, page_size=page_size, page_token=token
            )
            page = self._call("ListGames", self._game.ListGames, request, safe=True)
            yield from page.games
            token = page.next_page_token
            if not token:
                return

    def view(self, game_id: str) -> model_pb2.GameView:
        return self._call("GetView", self._game.GetView, gs.GetViewRequest(game_id=game_id), safe=True).view

    def odds(self, game_id: str) -> gs.GetOddsResponse:
        """What each face-down card can be, with its probability, as this player can deduce
        it from its own view (the server's deduction; offline, ``engine.face_down_odds``)."""
        return self._call("GetOdds", self._game.GetOdds, gs.GetOddsRequest(game_id=game_id), safe=True)

    def catalogue(self, game_id: str) -> list[model_pb2.CityCards]:
        request = gs.GetCatalogueRequest(game_id=game_id)
        return list(self._call("GetCatalogue", self._game.GetCatalogue, request, safe=True).cities)

    def history(self, game_id: str) -> gs.GetHistoryResponse:
        """Every event the caller may see; all of them, and the seed, once the game is over
        (``theboss.engine.replay_history`` replays it)."""
        request = gs.GetHistoryRequest(game_id=game_id)
        return self._call("GetHistory", self._game.GetHistory, request, safe=True)

    def feed(
        self,
        game_id: str,
        *,
        after_seq: Optional[int] = None,
        update_views: "gs.UpdateViews" = gs.UPDATE_VIEWS_ACTION_COMPLETE,
        silence: float = 45.0,
        reconnect_for: float = 60.0,
    ) -> GameFeed:
        """Follows a game: a snapshot first (or, with ``after_seq``, every update after it),
        then every update, resumed after any drop. See ``GameFeed``."""
        return GameFeed(self, game_id, after_seq, update_views, silence, reconnect_for)

    def submit(
        self,
        game_id: str,
        expected_seq: int,
        action: model_pb2.TurnAction,
        *,
        idempotency_key: Optional[str] = None,
        update_views: "gs.UpdateViews" = gs.UPDATE_VIEWS_ACTION_COMPLETE,
    ) -> gs.SubmitActionResponse:
        """Plays a turn chosen from the view with ``seq == expected_seq``. Retried with the
        same idempotency key (a fresh UUID unless given) while the server is unavailable, so
        the turn is played at most once. A stale ``expected_seq`` raises ``Aborted``; a
        broken rule ``FailedPrecondition`` with the rule as ``reason``."""
        request = gs.SubmitActionRequest(
            game_id=game_id,
            expected_seq=expected_seq,
            idempotency_key=idempotency_key or str(uuid.uuid4()),
            action=action,
            update_views=update_views,
        )
        return self._call("SubmitAction", self._game.SubmitAction, request, safe=True)

    def play(
        self,
        game_id: str,
        choose: Callable[[model_pb2.GameView], model_pb2.TurnAction],
        *,
        on_item: Optional[Callable[[FeedItem], None]] = None,
    ) -> model_pb2.GameView:
        """Plays a seated game to its end: follows it, and each time a view says it is this
        seat's turn, sends ``choose(view)``. Returns the final view (its ``outcome`` says who
        won)."""
        feed = self.feed(game_id)
        acted_at = -1
        for item in feed:
            if on_item is not None:
                on_item(item)
            view = feed.view
            complete = isinstance(item, model_pb2.GameView) or item.action_complete
            if view is None or not complete or view.seq == acted_at:
                continue
            if not view.HasField("to_move") or view.to_move != view.viewer_seat:
                continue
            if not view.HasField("legal"):
                continue
            try:
                self.submit(game_id, view.seq, choose(view))
            except Aborted:
                continue  # the game moved on (a timeout played for us): the feed says how
            acted_at = view.seq
        if feed.view is None:
            return self.view(game_id)
        return feed.view

    def update_profile(self, description: str) -> str:
        """Sets what others read of this player; returns it as the server keeps it."""
        request = gs.UpdateProfileRequest(description=description)
        return self._call("UpdateProfile", self._game.UpdateProfile, request, safe=True).description

    def export_games(
        self,
        *,
        finished_after: Optional[float] = None,
        finished_before: Optional[float] = None,
        page_size: int = 0,
    ) -> Iterator[str]:
        """This player's finished games as game records (JSON strings, one line each, in
        the format of ``docs/game-record.schema.json``), newest first, every page; the
        times are Unix seconds."""
        token = ""
        while True:
            request = gs.ExportGamesRequest(page_size=page_size, page_token=token)
            if finished_after is not None:
                request.finished_after.FromNanoseconds(int(finished_after * 1e9))
            if finished_before is not None:
                request.finished_before.FromNanoseconds(int(finished_before * 1e9))

            def page(request: gs.ExportGamesRequest = request) -> tuple[list[str], str]:
                records, next_token = [], ""
                for message in self._game.ExportGames(request, metadata=self._metadata):
                    if message.WhichOneof("message") == "record":
                        records.append(message.record)
                    else:
                        next_token = message.next_page_token
                return records, next_token

            records, token = _rpc.call("ExportGames", page, self._policy, safe=True, stats=self.stats)
            yield from records
            if not token:
                return

    # The ladder.

    def enqueue(
        self, players: int = 0, *, duplicate: bool = False, parallel: int = 0
    ) -> Iterator[ls.EnqueueResponse]:
        """The raw ``Enqueue`` stream: ``queued`` (again when the count changes),
        keep-alives, then ``matched``; or, for a player already seated in enough unfinished
        ladder games, those games (``already_seated``) and the end. Closing the iterator
        withdraws the request."""
        request = ls.EnqueueRequest(players=players, duplicate=duplicate, parallel=parallel)
        # Opening is retried like a call when throttled; the stream itself is not.
        stream = self._ladder.Enqueue(request, metadata=self._metadata)
        try:
            for message in stream:
                yield message
        except grpc.RpcError as error:
            raise _rpc.to_error("Enqueue", error) from None
        finally:
            stream.cancel()

    def find_match(
        self, players: int = 0, *, duplicate: bool = False, parallel: int = 0
    ) -> list[ls.LadderMatch]:
        """Waits in the ladder's queue and returns the games to play: one new match, or the
        unfinished ladder games the player already sits in. Throttled requests are retried
        as ``RetryInfo`` says."""

        def attempt() -> list[ls.LadderMatch]:
            matches = []
            stream = self._ladder.Enqueue(
                ls.EnqueueRequest(players=players, duplicate=duplicate, parallel=parallel),
                metadata=self._metadata,
            )
            for message in stream:
                if message.WhichOneof("message") == "matched":
                    matches.append(message.matched)
                    if not message.matched.already_seated:
                        break
            stream.cancel()
            return matches

        return _rpc.call("Enqueue", attempt, self._policy, safe=True, stats=self.stats)

    def cancel(self) -> bool:
        """Leaves the ladder's queue; whether the player was waiting."""
        return self._call("Cancel", self._ladder.Cancel, ls.CancelRequest(), safe=True).was_queued

    def leaderboard(
        self,
        players: int = 0,
        *,
        kind: "model_pb2.PlayerKind" = model_pb2.PLAYER_KIND_UNSPECIFIED,
        page_size: int = 0,
        page_token: str = "",
    ) -> ls.LeaderboardResponse:
        """Established players by rating: of ``players``-player games (0: overall), of bots
        or people only (``kind``), one page."""
        request = ls.LeaderboardRequest(
            players=players, kind=kind, page_size=page_size, page_token=page_token
        )
        return self._call("Leaderboard", self._ladder.Leaderboard, request, safe=True)

    def player(self, player_id: Optional[str] = None) -> ls.GetPlayerResponse:
        """A player's ratings and rating history (by default, this session's player)."""
        request = ls.GetPlayerRequest(player_id=player_id or self.player_id)
        return self._call("GetPlayer", self._ladder.GetPlayer, request, safe=True)

    # Challenges and tournaments.

    def challenge(
        self,
        opponents: list[str],
        *,
        players: int = 0,
        duplicate: bool = False,
        rated: bool = False,
        expires_in_secs: int = 0,
    ) -> ls.Challenge:
        """Challenges players (by id) to one game, or one duplicate set (``duplicate``), of
        ``players`` (0: the caller and its opponents). A casual challenge names every seat; a
        rated one's other seats come from the ladder's queue."""
        request = ls.ChallengeRequest(
            opponents=opponents,
            players=players,
            duplicate=duplicate,
            rated=rated,
            expires_in_secs=expires_in_secs,
        )
        return self._call("Challenge", self._ladder.Challenge, request, safe=False).challenge

    def answer_challenge(self, challenge_id: str, accept: bool) -> ls.Challenge:
        """Accepts or declines a challenge (the challenger declining withdraws it)."""
        request = ls.AnswerChallengeRequest(challenge_id=challenge_id, accept=accept)
        return self._call(
            "AnswerChallenge", self._ladder.AnswerChallenge, request, safe=True
        ).challenge

    def set_challenge_policy(self, policy: "ls.ChallengePolicy") -> "ls.ChallengePolicy":
        """Who may challenge this player: ``CHALLENGE_POLICY_OPEN``, ``_BOTS_ONLY`` or
        ``_CLOSED``; returns the policy in force."""
        request = ls.SetChallengePolicyRequest(policy=policy)
        return self._call(
            "SetChallengePolicy", self._ladder.SetChallengePolicy, request, safe=True
        ).policy

    def offers(self) -> Iterator[ls.OffersResponse]:
        """The raw ``Offers`` stream: each challenge made to or by this player when it
        changes, a ``matched`` for every game a challenge or a tournament seats it in, and
        keep-alives. Closing the iterator closes the stream."""
        stream = self._ladder.Offers(ls.OffersRequest(), metadata=self._metadata)
        try:
            for message in stream:
                yield message
        except grpc.RpcError as error:
            raise _rpc.to_error("Offers", error) from None
        finally:
            stream.cancel()

    def create_tournament(
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
        """A tournament of duplicate sets, open for entries until its creator starts it."""
        request = ls.CreateTournamentRequest(
            name=name,
            format=format,
            players=players,
            sets_per_pair=sets_per_pair,
            hero_id=hero_id,
            max_entrants=max_entrants,
            rated=rated,
            enter=enter,
        )
        return self._call(
            "CreateTournament", self._ladder.CreateTournament, request, safe=False
        ).tournament

    def enter_tournament(self, tournament_id: str, *, leave: bool = False) -> ls.Tournament:
        request = ls.EnterTournamentRequest(tournament_id=tournament_id, leave=leave)
        return self._call(
            "EnterTournament", self._ladder.EnterTournament, request, safe=True
        ).tournament

    def start_tournament(self, tournament_id: str) -> ls.Tournament:
        request = ls.StartTournamentRequest(tournament_id=tournament_id)
        return self._call(
            "StartTournament", self._ladder.StartTournament, request, safe=False
        ).tournament

    def tournament(self, tournament_id: str) -> ls.GetTournamentResponse:
        """A tournament with its standings, crosstable and games being played."""
        request = ls.GetTournamentRequest(tournament_id=tournament_id)
        return self._call("GetTournament", self._ladder.GetTournament, request, safe=True)

    def tournaments(
        self, status: "ls.TournamentStatus" = ls.TOURNAMENT_STATUS_UNSPECIFIED, page_size: int = 0
    ) -> list[ls.Tournament]:
        """Tournaments, newest first (of one status, or all)."""
        request = ls.ListTournamentsRequest(status=status, page_size=page_size)
        return list(
            self._call("ListTournaments", self._ladder.ListTournaments, request, safe=True).tournaments
        )
