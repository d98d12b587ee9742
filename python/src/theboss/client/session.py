"""A connection to the service (``Client``) and one player's calls over it (``Session``): one
typed method per RPC of ``GameService`` and ``LadderService``, and ``play``, which plays a
seated game to its end.

A ``Session`` carries the player's token on every call, retries what is safe to retry
(``theboss.client._rpc``: throttling as ``RetryInfo`` says; UNAVAILABLE with back-off for
reads, turns, which carry an idempotency key, and registrations), and raises
``theboss.errors.RpcError`` subclasses carrying the gRPC code and the ``ErrorInfo`` reason
for the rest.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

import grpc

from theboss.client import _requests as requests
from theboss.client import _rpc
from theboss.client._rpc import Budget, CallStats, RetryPolicy
from theboss.client.feed import FeedItem, GameFeed
from theboss.client.play import GameResult, play_feed
from theboss.credentials import Credentials, default_path
from theboss.errors import RpcError, Unavailable
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import game_service_pb2_grpc as gs_grpc
from theboss.v1 import ladder_service_pb2 as ls
from theboss.v1 import ladder_service_pb2_grpc as ls_grpc
from theboss.v1 import model_pb2

__all__ = ["CHANNEL_OPTIONS", "DEFAULT_TARGET", "Client", "Session", "channel_target"]

DEFAULT_TARGET = "127.0.0.1:50051"

CHANNEL_OPTIONS = [
    # HTTP/2 pings tell a dead connection from a quiet one between the server's keep-alives.
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.max_receive_message_length", 16 * 1024 * 1024),
    # Reconnect quickly after a server restart (gRPC's default first wait is a second, and
    # its waits grow to two minutes). Not "grpc.min_reconnect_backoff_ms": despite its name,
    # gRPC's core takes it as the least time a connection attempt is given to complete, and
    # its default (20 s) is what lets a busy server, or a busy client, finish the handshake.
    # A refused connection is retried as quickly as ever; one that hangs (a host gone
    # behind a balancer) is given up after those 20 s.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2_000),
]
"""The options of every channel the kit opens."""


def channel_target(target: str) -> tuple[str, bool]:
    """A server given as ``host:port`` or as a URL (``http://host:port``, ``https://host``)
    as gRPC's target and whether it needs TLS."""
    if target.startswith("https://"):
        rest = target[len("https://"):].rstrip("/")
        return (rest if ":" in rest else f"{rest}:443"), True
    if target.startswith("http://"):
        return target[len("http://"):].rstrip("/"), False
    return target, False


def deadline_as_unavailable(error: RpcError, waited: float) -> RpcError:
    """A call not safe to repeat waits for the server to be reachable for a bounded time:
    its deadline passing says the service could not be reached (or did not answer)."""
    if error.code != grpc.StatusCode.DEADLINE_EXCEEDED:
        return error
    failure = Unavailable(
        error.call,
        grpc.StatusCode.UNAVAILABLE,
        f"the service could not be reached, or did not answer, within {waited:g} s "
        "(RetryPolicy.unavailable_for); the call was not repeated, as it is not safe to",
    )
    failure.__cause__ = error
    return failure


class Client:
    """A connection to one server (``host:port``, or a URL: ``https://`` for TLS). Closing it
    closes every session's calls. Use it as a context manager."""

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
            self.channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        else:
            self.channel = grpc.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
        self.target = target
        """The server, as given."""
        self.policy = policy
        """The retry policy of every session of this client."""
        self._game = gs_grpc.GameServiceStub(self.channel)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection (and every stream of its sessions)."""
        self.channel.close()

    def register(self, display_name: str, is_bot: bool = True, description: str = "") -> "Session":
        """A new player; keep ``session.player_id`` and ``session.token`` to come back as it
        (``login`` does that for you). ``description``: what it is, shown on the leaderboard
        (a bot's strategy and version). Retried while the service is unavailable: an answer
        lost on the way may leave an unused player behind, never a bot without one."""
        request = requests.register(display_name, is_bot, description)

        def attempt() -> gs.RegisterResponse:
            # Waits for the server to be reachable, so that a bot started with (or just
            # before) its server registers instead of failing at once.
            return self._game.Register(
                request, wait_for_ready=True, timeout=self.policy.unavailable_for
            )

        try:
            response = _rpc.call("Register", attempt, self.policy, safe=True)
        except RpcError as error:
            raise deadline_as_unavailable(error, self.policy.unavailable_for) from None
        return Session(self, response.player_id, response.api_token)

    def session(self, player_id: str, token: str) -> "Session":
        """A session for a player registered before."""
        return Session(self, player_id, token)

    def login(
        self,
        display_name: str,
        *,
        is_bot: bool = True,
        description: str = "",
        token_file: "Optional[os.PathLike[str] | str]" = None,
    ) -> "Session":
        """The player whose token is saved for this server in ``token_file``, or a new one
        registered and saved there, so that a bot keeps one identity (and its rating) from
        run to run. The file is the one the Rust clients share (``theboss.credentials``): by
        default ``bot-credentials.json`` (``boss-bot``'s) for a bot, ``cli-credentials.json``
        (the CLI's) for a person, in the user's configuration directory."""
        path = default_path(is_bot) if token_file is None else token_file
        saved = Credentials.load(path, self.target)
        if saved is not None:
            return self.session(saved.player_id, saved.api_token)
        session = self.register(display_name, is_bot=is_bot, description=description)
        Credentials(session.player_id, session.token, display_name).save(path, self.target)
        return session


class Session:
    """One player's calls. Thread-safe as its channel is: several games may be played from
    several threads of one session."""

    def __init__(self, client: Client, player_id: str, token: str) -> None:
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

    def _call(self, name: str, method: Any, request: Any, *, safe: bool) -> Any:
        def attempt() -> Any:
            if safe:
                response, call = method.with_call(request, metadata=self._metadata)
            else:
                # Sent once the server is reachable (within the policy's time), never twice.
                response, call = method.with_call(
                    request,
                    metadata=self._metadata,
                    wait_for_ready=True,
                    timeout=self._policy.unavailable_for,
                )
            budget = Budget.from_metadata(call.initial_metadata())
            if budget is not None:
                self.stats.budget = budget
            return response

        try:
            return _rpc.call(name, attempt, self._policy, safe=safe, stats=self.stats)
        except RpcError as error:
            raise deadline_as_unavailable(error, self._policy.unavailable_for) from None

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
        request = requests.create_game(
            players, cities, turn_time_limit_seconds, visibility, rules_version, seed, house_bots
        )
        response: gs.CreateGameResponse = self._call(
            "CreateGame", self._game.CreateGame, request, safe=False
        )
        return response.game_id

    def join(self, game_id: str, seat: Optional[int] = None) -> gs.JoinGameResponse:
        """Takes a seat (``seat``, or the first free one) in an open game; the answer says
        which, and whether this join filled the table and started the game."""
        request = requests.join(game_id, seat)
        response: gs.JoinGameResponse = self._call("JoinGame", self._game.JoinGame, request, safe=False)
        return response

    def leave(self, game_id: str) -> None:
        """Gives the seat back before the game starts; in a running game, resigns it (the
        seat is forfeited and the server plays it to the end)."""
        self._call("LeaveGame", self._game.LeaveGame, requests.leave(game_id), safe=False)

    def list_games(
        self,
        statuses: Iterable["model_pb2.GameStatus"] = (),
        *,
        mine: bool = False,
        page_size: int = 0,
    ) -> Iterator[model_pb2.GameSummary]:
        """Every game matching, page after page (newest first): public games and the
        player's own; ``mine``: only those it sits in."""
        statuses = list(statuses)
        token = ""
        while True:
            request = requests.list_games(statuses, mine, page_size, token)
            page: gs.ListGamesResponse = self._call("ListGames", self._game.ListGames, request, safe=True)
            yield from page.games
            token = page.next_page_token
            if not token:
                return

    def view(self, game_id: str) -> model_pb2.GameView:
        """The player's current view of a game (a spectator's if it is not seated)."""
        response: gs.GetViewResponse = self._call("GetView", self._game.GetView, requests.view(game_id), safe=True)
        return response.view

    def odds(self, game_id: str) -> gs.GetOddsResponse:
        """What each face-down card can be, with its probability, as this player can deduce
        it from its own view (the server's deduction; offline, ``engine.face_down_odds``)."""
        response: gs.GetOddsResponse = self._call("GetOdds", self._game.GetOdds, requests.odds(game_id), safe=True)
        return response

    def catalogue(self, game_id: str) -> list[model_pb2.CityCards]:
        """Every card of the game's city set, by city: what a face-down card can be."""
        response: gs.GetCatalogueResponse = self._call(
            "GetCatalogue", self._game.GetCatalogue, requests.catalogue(game_id), safe=True
        )
        return list(response.cities)

    def history(self, game_id: str) -> gs.GetHistoryResponse:
        """Every event the caller may see; all of them, and the seed, once the game is over
        (``theboss.engine.replay_history`` replays it)."""
        response: gs.GetHistoryResponse = self._call(
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
    ) -> GameFeed:
        """Follows a game: a snapshot first (or, with ``after_seq``, every update after it),
        then every update in order, resumed after any drop. See ``GameFeed``."""
        return GameFeed(
            lambda request: self._game.WatchGame(request, metadata=self._metadata),
            game_id,
            after_seq,
            update_views,
            silence,
            self._policy,
            self.stats,
        )

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
        broken rule ``RuleRefused`` (a ``RuleViolation``) with the rule as ``reason``."""
        request = requests.submit(game_id, expected_seq, action, idempotency_key, update_views)
        response: gs.SubmitActionResponse = self._call(
            "SubmitAction", self._game.SubmitAction, request, safe=True
        )
        return response

    def play(
        self,
        game_id: str,
        choose: Callable[[model_pb2.GameView], model_pb2.TurnAction],
        *,
        on_item: Optional[Callable[[FeedItem], None]] = None,
    ) -> GameResult:
        """Plays a seated game to its end: follows it, and each time the newest view says it
        is this seat's turn, sends ``choose(view)``. A view already made stale by updates
        waiting behind it is skipped, not acted on. Returns a ``GameResult``: the final view
        (its ``outcome`` says who won) and what happened on the way, turns the clock played
        for the seat (``timeouts``) and a forfeit (``forfeited``: ``choose`` is no longer
        asked once the seat forfeited), each also logged as a warning on the
        ``theboss.client`` logger."""
        return play_feed(
            self.feed(game_id),
            choose,
            lambda seq, turn: self.submit(game_id, seq, turn),
            lambda: self.view(game_id),
            on_item=on_item,
        )

    def update_profile(self, description: str) -> str:
        """Sets what others read of this player; returns it as the server keeps it."""
        response: gs.UpdateProfileResponse = self._call(
            "UpdateProfile", self._game.UpdateProfile, requests.update_profile(description), safe=True
        )
        return response.description

    def export_games(
        self,
        *,
        finished_after: Optional[float] = None,
        finished_before: Optional[float] = None,
        page_size: int = 0,
    ) -> Iterator[str]:
        """This player's finished games as game records (JSON strings, one line each, in
        the format of ``docs/game-record.schema.json``; ``theboss.record`` reads them),
        newest first, every page; the times are Unix seconds."""
        token = ""
        while True:
            request = requests.export_games(finished_after, finished_before, page_size, token)

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
        withdraws the request. Not reopened when it drops: ``find_match`` is."""
        stream = self._ladder.Enqueue(
            requests.enqueue(players, duplicate, parallel), metadata=self._metadata
        )
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
        unfinished ladder games the player already sits in (empty if the server dropped the
        request, e.g. as it restarted: ask again). Throttled requests are retried as
        ``RetryInfo`` says, and a request cut off while the service is unavailable is made
        again (the server hands back the games the player sits in first)."""
        request = requests.enqueue(players, duplicate, parallel)

        def attempt() -> list[ls.LadderMatch]:
            matches = []
            stream = self._ladder.Enqueue(request, metadata=self._metadata)
            try:
                for message in stream:
                    if message.WhichOneof("message") == "matched":
                        matches.append(message.matched)
                        if not message.matched.already_seated:
                            break
            except grpc.RpcError:
                if not matches:
                    raise
                # Cut off after a match: the match stands.
            finally:
                stream.cancel()
            return matches

        return _rpc.call("Enqueue", attempt, self._policy, safe=True, stats=self.stats)

    def cancel(self) -> bool:
        """Leaves the ladder's queue; whether the player was waiting."""
        response: ls.CancelResponse = self._call("Cancel", self._ladder.Cancel, ls.CancelRequest(), safe=True)
        return response.was_queued

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
        request = requests.leaderboard(players, kind, page_size, page_token)
        response: ls.LeaderboardResponse = self._call("Leaderboard", self._ladder.Leaderboard, request, safe=True)
        return response

    def player(self, player_id: Optional[str] = None) -> ls.GetPlayerResponse:
        """A player's ratings and rating history (by default, this session's player)."""
        request = requests.player(player_id or self.player_id)
        response: ls.GetPlayerResponse = self._call("GetPlayer", self._ladder.GetPlayer, request, safe=True)
        return response

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
        request = requests.challenge(opponents, players, duplicate, rated, expires_in_secs)
        response: ls.ChallengeResponse = self._call("Challenge", self._ladder.Challenge, request, safe=False)
        return response.challenge

    def answer_challenge(self, challenge_id: str, accept: bool) -> ls.Challenge:
        """Accepts or declines a challenge (the challenger declining withdraws it)."""
        request = requests.answer_challenge(challenge_id, accept)
        response: ls.AnswerChallengeResponse = self._call(
            "AnswerChallenge", self._ladder.AnswerChallenge, request, safe=True
        )
        return response.challenge

    def set_challenge_policy(self, policy: "ls.ChallengePolicy") -> "ls.ChallengePolicy":
        """Who may challenge this player: ``CHALLENGE_POLICY_OPEN``, ``_BOTS_ONLY`` or
        ``_CLOSED``; returns the policy in force."""
        request = requests.set_challenge_policy(policy)
        response: ls.SetChallengePolicyResponse = self._call(
            "SetChallengePolicy", self._ladder.SetChallengePolicy, request, safe=True
        )
        return response.policy

    def offers(self) -> Iterator[ls.OffersResponse]:
        """The raw ``Offers`` stream: each challenge made to or by this player when it
        changes, a ``matched`` for every game a challenge or a tournament seats it in, and
        keep-alives. Closing the iterator closes the stream. Not reopened when it drops:
        ``theboss.client.play_offers`` is."""
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
        request = requests.create_tournament(
            name, format, players, sets_per_pair, hero_id, max_entrants, rated, enter
        )
        response: ls.CreateTournamentResponse = self._call(
            "CreateTournament", self._ladder.CreateTournament, request, safe=False
        )
        return response.tournament

    def enter_tournament(self, tournament_id: str, *, leave: bool = False) -> ls.Tournament:
        """Enters an open tournament (``leave``: withdraws from it); returns it as it stands."""
        request = requests.enter_tournament(tournament_id, leave)
        response: ls.EnterTournamentResponse = self._call(
            "EnterTournament", self._ladder.EnterTournament, request, safe=True
        )
        return response.tournament

    def start_tournament(self, tournament_id: str) -> ls.Tournament:
        """Starts a tournament this player created: its games are made and seated."""
        request = requests.start_tournament(tournament_id)
        response: ls.StartTournamentResponse = self._call(
            "StartTournament", self._ladder.StartTournament, request, safe=False
        )
        return response.tournament

    def tournament(self, tournament_id: str) -> ls.GetTournamentResponse:
        """A tournament with its standings, crosstable and games being played."""
        request = requests.tournament(tournament_id)
        response: ls.GetTournamentResponse = self._call(
            "GetTournament", self._ladder.GetTournament, request, safe=True
        )
        return response

    def tournaments(
        self, status: "ls.TournamentStatus" = ls.TOURNAMENT_STATUS_UNSPECIFIED, page_size: int = 0
    ) -> list[ls.Tournament]:
        """Tournaments, newest first (of one status, or all)."""
        request = requests.tournaments(status, page_size)
        response: ls.ListTournamentsResponse = self._call(
            "ListTournaments", self._ladder.ListTournaments, request, safe=True
        )
        return list(response.tournaments)
