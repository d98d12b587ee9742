import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from theboss.v1 import game_service_pb2 as _game_service_pb2
from theboss.v1 import model_pb2 as _model_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EnqueueRequest(_message.Message):
    __slots__ = ("players", "duplicate", "parallel")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_FIELD_NUMBER: _ClassVar[int]
    players: int
    duplicate: bool
    parallel: int
    def __init__(self, players: _Optional[int] = ..., duplicate: _Optional[bool] = ..., parallel: _Optional[int] = ...) -> None: ...

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
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., already_seated: _Optional[bool] = ..., series_id: _Optional[str] = ..., series_game: _Optional[int] = ..., series_games: _Optional[int] = ...) -> None: ...

class CancelRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CancelResponse(_message.Message):
    __slots__ = ("was_queued",)
    WAS_QUEUED_FIELD_NUMBER: _ClassVar[int]
    was_queued: bool
    def __init__(self, was_queued: _Optional[bool] = ...) -> None: ...

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
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: _Optional[bool] = ..., rating: _Optional[_Union[Rating, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("players", "mu", "sigma", "score", "games", "provisional")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    players: int
    mu: float
    sigma: float
    score: float
    games: int
    provisional: bool
    def __init__(self, players: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., score: _Optional[float] = ..., games: _Optional[int] = ..., provisional: _Optional[bool] = ...) -> None: ...

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
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: _Optional[bool] = ..., ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[RatingChange, _Mapping]]] = ..., description: _Optional[str] = ...) -> None: ...

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
    def __init__(self, game_id: _Optional[str] = ..., players: _Optional[int] = ..., mu_before: _Optional[float] = ..., sigma_before: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
