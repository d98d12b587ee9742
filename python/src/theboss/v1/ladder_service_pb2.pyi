from google.protobuf import timestamp_pb2 as _timestamp_pb2
from theboss.v1 import game_service_pb2 as _game_service_pb2
from theboss.v1 import model_pb2 as _model_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChallengeStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_STATUS_UNSPECIFIED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_PENDING: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_SEATING: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_STARTED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_DECLINED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_EXPIRED: _ClassVar[ChallengeStatus]
    CHALLENGE_STATUS_WITHDRAWN: _ClassVar[ChallengeStatus]

class ChallengeAnswer(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_ANSWER_UNSPECIFIED: _ClassVar[ChallengeAnswer]
    CHALLENGE_ANSWER_PENDING: _ClassVar[ChallengeAnswer]
    CHALLENGE_ANSWER_ACCEPTED: _ClassVar[ChallengeAnswer]
    CHALLENGE_ANSWER_DECLINED: _ClassVar[ChallengeAnswer]

class ChallengePolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_POLICY_UNSPECIFIED: _ClassVar[ChallengePolicy]
    CHALLENGE_POLICY_OPEN: _ClassVar[ChallengePolicy]
    CHALLENGE_POLICY_BOTS_ONLY: _ClassVar[ChallengePolicy]
    CHALLENGE_POLICY_CLOSED: _ClassVar[ChallengePolicy]

class TournamentFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_FORMAT_UNSPECIFIED: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_ROUND_ROBIN: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_GAUNTLET: _ClassVar[TournamentFormat]

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_OPEN: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
CHALLENGE_STATUS_UNSPECIFIED: ChallengeStatus
CHALLENGE_STATUS_PENDING: ChallengeStatus
CHALLENGE_STATUS_SEATING: ChallengeStatus
CHALLENGE_STATUS_STARTED: ChallengeStatus
CHALLENGE_STATUS_DECLINED: ChallengeStatus
CHALLENGE_STATUS_EXPIRED: ChallengeStatus
CHALLENGE_STATUS_WITHDRAWN: ChallengeStatus
CHALLENGE_ANSWER_UNSPECIFIED: ChallengeAnswer
CHALLENGE_ANSWER_PENDING: ChallengeAnswer
CHALLENGE_ANSWER_ACCEPTED: ChallengeAnswer
CHALLENGE_ANSWER_DECLINED: ChallengeAnswer
CHALLENGE_POLICY_UNSPECIFIED: ChallengePolicy
CHALLENGE_POLICY_OPEN: ChallengePolicy
CHALLENGE_POLICY_BOTS_ONLY: ChallengePolicy
CHALLENGE_POLICY_CLOSED: ChallengePolicy
TOURNAMENT_FORMAT_UNSPECIFIED: TournamentFormat
TOURNAMENT_FORMAT_ROUND_ROBIN: TournamentFormat
TOURNAMENT_FORMAT_GAUNTLET: TournamentFormat
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_OPEN: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus

class EnqueueRequest(_message.Message):
    __slots__ = ("players", "duplicate", "parallel")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_FIELD_NUMBER: _ClassVar[int]
    players: int
    duplicate: bool
    parallel: int
    def __init__(self, players: _Optional[int] = ..., duplicate: bool = ..., parallel: _Optional[int] = ...) -> None: ...

class EnqueueResponse(_message.Message):
    __slots__ = ("queued", "matched", "keep_alive")
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    MATCHED_FIELD_NUMBER: _ClassVar[int]
    KEEP_ALIVE_FIELD_NUMBER: _ClassVar[int]
    queued: Queued
    matched: LadderMatch
    keep_alive: _game_service_pb2.KeepAlive
    def __init__(self, queued: _Optional[_Union[Queued, _Mapping]] = ..., matched: _Optional[_Union[LadderMatch, _Mapping]] = ..., keep_alive: _Optional[_Union[_game_service_pb2.KeepAlive, _Mapping]] = ...) -> None: ...

class Queued(_message.Message):
    __slots__ = ("waiting",)
    WAITING_FIELD_NUMBER: _ClassVar[int]
    waiting: int
    def __init__(self, waiting: _Optional[int] = ...) -> None: ...

class LadderMatch(_message.Message):
    __slots__ = ("game_id", "seat", "players", "already_seated", "series_id", "series_game", "series_games")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ALREADY_SEATED_FIELD_NUMBER: _ClassVar[int]
    SERIES_ID_FIELD_NUMBER: _ClassVar[int]
    SERIES_GAME_FIELD_NUMBER: _ClassVar[int]
    SERIES_GAMES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    players: int
    already_seated: bool
    series_id: str
    series_game: int
    series_games: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., already_seated: bool = ..., series_id: _Optional[str] = ..., series_game: _Optional[int] = ..., series_games: _Optional[int] = ...) -> None: ...

class CancelRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CancelResponse(_message.Message):
    __slots__ = ("was_queued",)
    WAS_QUEUED_FIELD_NUMBER: _ClassVar[int]
    was_queued: bool
    def __init__(self, was_queued: bool = ...) -> None: ...

class LeaderboardRequest(_message.Message):
    __slots__ = ("players", "page_size", "page_token", "kind")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    players: int
    page_size: int
    page_token: str
    kind: _model_pb2.PlayerKind
    def __init__(self, players: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., kind: _Optional[_Union[_model_pb2.PlayerKind, str]] = ...) -> None: ...

class LeaderboardResponse(_message.Message):
    __slots__ = ("entries", "next_page_token")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LeaderboardEntry]
    next_page_token: str
    def __init__(self, entries: _Optional[_Iterable[_Union[LeaderboardEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class LeaderboardEntry(_message.Message):
    __slots__ = ("rank", "player_id", "display_name", "is_bot", "rating", "description")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_BOT_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    display_name: str
    is_bot: bool
    rating: Rating
    description: str
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: bool = ..., rating: _Optional[_Union[Rating, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("players", "mu", "sigma", "score", "games", "provisional", "opponents", "counted_games")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    COUNTED_GAMES_FIELD_NUMBER: _ClassVar[int]
    players: int
    mu: float
    sigma: float
    score: float
    games: int
    provisional: bool
    opponents: int
    counted_games: int
    def __init__(self, players: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., score: _Optional[float] = ..., games: _Optional[int] = ..., provisional: bool = ..., opponents: _Optional[int] = ..., counted_games: _Optional[int] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player_id", "display_name", "is_bot", "ratings", "history", "description")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_BOT_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    is_bot: bool
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    history: _containers.RepeatedCompositeFieldContainer[RatingChange]
    description: str
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: bool = ..., ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ..., description: _Optional[str] = ...) -> None: ...

class RatingChange(_message.Message):
    __slots__ = ("game_id", "players", "mu_before", "sigma_before", "mu", "sigma", "at")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MU_BEFORE_FIELD_NUMBER: _ClassVar[int]
    SIGMA_BEFORE_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    players: int
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    at: _timestamp_pb2.Timestamp
    def __init__(self, game_id: _Optional[str] = ..., players: _Optional[int] = ..., mu_before: _Optional[float] = ..., sigma_before: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChallengeRequest(_message.Message):
    __slots__ = ("opponents", "players", "duplicate", "rated", "expires_in_secs")
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_SECS_FIELD_NUMBER: _ClassVar[int]
    opponents: _containers.RepeatedScalarFieldContainer[str]
    players: int
    duplicate: bool
    rated: bool
    expires_in_secs: int
    def __init__(self, opponents: _Optional[_Iterable[str]] = ..., players: _Optional[int] = ..., duplicate: bool = ..., rated: bool = ..., expires_in_secs: _Optional[int] = ...) -> None: ...

class ChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class Challenge(_message.Message):
    __slots__ = ("challenge_id", "challenger_id", "challenger_name", "opponents", "players", "duplicate", "rated", "status", "created_at", "expires_at", "game_ids", "challenger_is_bot")
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_NAME_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    GAME_IDS_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_IS_BOT_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    challenger_id: str
    challenger_name: str
    opponents: _containers.RepeatedCompositeFieldContainer[ChallengedPlayer]
    players: int
    duplicate: bool
    rated: bool
    status: ChallengeStatus
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    game_ids: _containers.RepeatedScalarFieldContainer[str]
    challenger_is_bot: bool
    def __init__(self, challenge_id: _Optional[str] = ..., challenger_id: _Optional[str] = ..., challenger_name: _Optional[str] = ..., opponents: _Optional[_Iterable[_Union[ChallengedPlayer, _Mapping]]] = ..., players: _Optional[int] = ..., duplicate: bool = ..., rated: bool = ..., status: _Optional[_Union[ChallengeStatus, str]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., game_ids: _Optional[_Iterable[str]] = ..., challenger_is_bot: bool = ...) -> None: ...

class ChallengedPlayer(_message.Message):
    __slots__ = ("player_id", "display_name", "is_bot", "answer")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_BOT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    is_bot: bool
    answer: ChallengeAnswer
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: bool = ..., answer: _Optional[_Union[ChallengeAnswer, str]] = ...) -> None: ...

class AnswerChallengeRequest(_message.Message):
    __slots__ = ("challenge_id", "accept")
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    accept: bool
    def __init__(self, challenge_id: _Optional[str] = ..., accept: bool = ...) -> None: ...

class AnswerChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class SetChallengePolicyRequest(_message.Message):
    __slots__ = ("policy",)
    POLICY_FIELD_NUMBER: _ClassVar[int]
    policy: ChallengePolicy
    def __init__(self, policy: _Optional[_Union[ChallengePolicy, str]] = ...) -> None: ...

class SetChallengePolicyResponse(_message.Message):
    __slots__ = ("policy",)
    POLICY_FIELD_NUMBER: _ClassVar[int]
    policy: ChallengePolicy
    def __init__(self, policy: _Optional[_Union[ChallengePolicy, str]] = ...) -> None: ...

class OffersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OffersResponse(_message.Message):
    __slots__ = ("challenge", "matched", "keep_alive")
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_FIELD_NUMBER: _ClassVar[int]
    KEEP_ALIVE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    matched: LadderMatch
    keep_alive: _game_service_pb2.KeepAlive
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ..., matched: _Optional[_Union[LadderMatch, _Mapping]] = ..., keep_alive: _Optional[_Union[_game_service_pb2.KeepAlive, _Mapping]] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("name", "format", "players", "sets_per_pair", "hero_id", "max_entrants", "rated", "enter")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SETS_PER_PAIR_FIELD_NUMBER: _ClassVar[int]
    HERO_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    ENTER_FIELD_NUMBER: _ClassVar[int]
    name: str
    format: TournamentFormat
    players: int
    sets_per_pair: int
    hero_id: str
    max_entrants: int
    rated: bool
    enter: bool
    def __init__(self, name: _Optional[str] = ..., format: _Optional[_Union[TournamentFormat, str]] = ..., players: _Optional[int] = ..., sets_per_pair: _Optional[int] = ..., hero_id: _Optional[str] = ..., max_entrants: _Optional[int] = ..., rated: bool = ..., enter: bool = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class EnterTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "leave")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    LEAVE_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    leave: bool
    def __init__(self, tournament_id: _Optional[str] = ..., leave: bool = ...) -> None: ...

class EnterTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class StartTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("tournament_id",)
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    def __init__(self, tournament_id: _Optional[str] = ...) -> None: ...

class GetTournamentResponse(_message.Message):
    __slots__ = ("tournament", "standings", "crosstable", "games")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    CROSSTABLE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    standings: _containers.RepeatedCompositeFieldContainer[TournamentStanding]
    crosstable: _containers.RepeatedCompositeFieldContainer[CrosstableCell]
    games: _containers.RepeatedCompositeFieldContainer[TournamentGame]
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ..., standings: _Optional[_Iterable[_Union[TournamentStanding, _Mapping]]] = ..., crosstable: _Optional[_Iterable[_Union[CrosstableCell, _Mapping]]] = ..., games: _Optional[_Iterable[_Union[TournamentGame, _Mapping]]] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("status", "page_size")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    status: TournamentStatus
    page_size: int
    def __init__(self, status: _Optional[_Union[TournamentStatus, str]] = ..., page_size: _Optional[int] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[Tournament]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[Tournament, _Mapping]]] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("tournament_id", "name", "creator_id", "format", "players", "sets_per_pair", "hero_id", "max_entrants", "rated", "status", "entrants", "created_at", "started_at", "finished_at", "sets_finished", "sets_running")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATOR_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SETS_PER_PAIR_FIELD_NUMBER: _ClassVar[int]
    HERO_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    SETS_FINISHED_FIELD_NUMBER: _ClassVar[int]
    SETS_RUNNING_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    creator_id: str
    format: TournamentFormat
    players: int
    sets_per_pair: int
    hero_id: str
    max_entrants: int
    rated: bool
    status: TournamentStatus
    entrants: _containers.RepeatedCompositeFieldContainer[TournamentEntrant]
    created_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    sets_finished: int
    sets_running: int
    def __init__(self, tournament_id: _Optional[str] = ..., name: _Optional[str] = ..., creator_id: _Optional[str] = ..., format: _Optional[_Union[TournamentFormat, str]] = ..., players: _Optional[int] = ..., sets_per_pair: _Optional[int] = ..., hero_id: _Optional[str] = ..., max_entrants: _Optional[int] = ..., rated: bool = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., entrants: _Optional[_Iterable[_Union[TournamentEntrant, _Mapping]]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., sets_finished: _Optional[int] = ..., sets_running: _Optional[int] = ...) -> None: ...

class TournamentEntrant(_message.Message):
    __slots__ = ("player_id", "display_name", "is_bot", "description")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_BOT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    is_bot: bool
    description: str
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: bool = ..., description: _Optional[str] = ...) -> None: ...

class TournamentStanding(_message.Message):
    __slots__ = ("rank", "player_id", "display_name", "sets", "points", "mean_money_diff")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SETS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    MEAN_MONEY_DIFF_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    display_name: str
    sets: int
    points: float
    mean_money_diff: float
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., sets: _Optional[int] = ..., points: _Optional[float] = ..., mean_money_diff: _Optional[float] = ...) -> None: ...

class CrosstableCell(_message.Message):
    __slots__ = ("player_id", "opponent_id", "sets", "points", "mean_money_diff", "interval")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_ID_FIELD_NUMBER: _ClassVar[int]
    SETS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    MEAN_MONEY_DIFF_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    opponent_id: str
    sets: int
    points: float
    mean_money_diff: float
    interval: Interval
    def __init__(self, player_id: _Optional[str] = ..., opponent_id: _Optional[str] = ..., sets: _Optional[int] = ..., points: _Optional[float] = ..., mean_money_diff: _Optional[float] = ..., interval: _Optional[_Union[Interval, _Mapping]] = ...) -> None: ...

class Interval(_message.Message):
    __slots__ = ("low", "high")
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    low: float
    high: float
    def __init__(self, low: _Optional[float] = ..., high: _Optional[float] = ...) -> None: ...

class TournamentGame(_message.Message):
    __slots__ = ("game_id", "player_ids", "series_id", "series_game")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    SERIES_ID_FIELD_NUMBER: _ClassVar[int]
    SERIES_GAME_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    series_id: str
    series_game: int
    def __init__(self, game_id: _Optional[str] = ..., player_ids: _Optional[_Iterable[str]] = ..., series_id: _Optional[str] = ..., series_game: _Optional[int] = ...) -> None: ...
