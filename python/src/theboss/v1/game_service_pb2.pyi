from google.protobuf import timestamp_pb2 as _timestamp_pb2
from theboss.v1 import model_pb2 as _model_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class UpdateViews(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UPDATE_VIEWS_UNSPECIFIED: _ClassVar[UpdateViews]
    UPDATE_VIEWS_EVERY: _ClassVar[UpdateViews]
    UPDATE_VIEWS_ACTION_COMPLETE: _ClassVar[UpdateViews]
UPDATE_VIEWS_UNSPECIFIED: UpdateViews
UPDATE_VIEWS_EVERY: UpdateViews
UPDATE_VIEWS_ACTION_COMPLETE: UpdateViews

class RegisterRequest(_message.Message):
    __slots__ = ("display_name", "is_bot", "description")
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_BOT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    is_bot: bool
    description: str
    def __init__(self, display_name: _Optional[str] = ..., is_bot: bool = ..., description: _Optional[str] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("player_id", "api_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    API_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    api_token: str
    def __init__(self, player_id: _Optional[str] = ..., api_token: _Optional[str] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("settings", "seed", "house_bots")
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BOTS_FIELD_NUMBER: _ClassVar[int]
    settings: _model_pb2.GameSettings
    seed: int
    house_bots: _containers.RepeatedScalarFieldContainer[_model_pb2.BotStrategy]
    def __init__(self, settings: _Optional[_Union[_model_pb2.GameSettings, _Mapping]] = ..., seed: _Optional[int] = ..., house_bots: _Optional[_Iterable[_Union[_model_pb2.BotStrategy, str]]] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat", "started")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    started: bool
    def __init__(self, seat: _Optional[int] = ..., started: bool = ...) -> None: ...

class LeaveGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class LeaveGameResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("statuses", "mine", "page_size", "page_token")
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    MINE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    statuses: _containers.RepeatedScalarFieldContainer[_model_pb2.GameStatus]
    mine: bool
    page_size: int
    page_token: str
    def __init__(self, statuses: _Optional[_Iterable[_Union[_model_pb2.GameStatus, str]]] = ..., mine: bool = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[_model_pb2.GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[_model_pb2.GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: _model_pb2.GameView
    def __init__(self, view: _Optional[_Union[_model_pb2.GameView, _Mapping]] = ...) -> None: ...

class GetCatalogueRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetCatalogueResponse(_message.Message):
    __slots__ = ("cities",)
    CITIES_FIELD_NUMBER: _ClassVar[int]
    cities: _containers.RepeatedCompositeFieldContainer[_model_pb2.CityCards]
    def __init__(self, cities: _Optional[_Iterable[_Union[_model_pb2.CityCards, _Mapping]]] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "after_seq", "update_views")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    UPDATE_VIEWS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    after_seq: int
    update_views: UpdateViews
    def __init__(self, game_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., update_views: _Optional[_Union[UpdateViews, str]] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("snapshot", "update", "keep_alive")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    KEEP_ALIVE_FIELD_NUMBER: _ClassVar[int]
    snapshot: _model_pb2.GameView
    update: GameUpdate
    keep_alive: KeepAlive
    def __init__(self, snapshot: _Optional[_Union[_model_pb2.GameView, _Mapping]] = ..., update: _Optional[_Union[GameUpdate, _Mapping]] = ..., keep_alive: _Optional[_Union[KeepAlive, _Mapping]] = ...) -> None: ...

class GameUpdate(_message.Message):
    __slots__ = ("seq", "event", "view", "action_complete")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    ACTION_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    seq: int
    event: _model_pb2.GameEvent
    view: _model_pb2.GameView
    action_complete: bool
    def __init__(self, seq: _Optional[int] = ..., event: _Optional[_Union[_model_pb2.GameEvent, _Mapping]] = ..., view: _Optional[_Union[_model_pb2.GameView, _Mapping]] = ..., action_complete: bool = ...) -> None: ...

class KeepAlive(_message.Message):
    __slots__ = ("seq", "server_time")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_FIELD_NUMBER: _ClassVar[int]
    seq: int
    server_time: _timestamp_pb2.Timestamp
    def __init__(self, seq: _Optional[int] = ..., server_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("game_id", "expected_seq", "idempotency_key", "action", "update_views")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    UPDATE_VIEWS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    expected_seq: int
    idempotency_key: str
    action: _model_pb2.TurnAction
    update_views: UpdateViews
    def __init__(self, game_id: _Optional[str] = ..., expected_seq: _Optional[int] = ..., idempotency_key: _Optional[str] = ..., action: _Optional[_Union[_model_pb2.TurnAction, _Mapping]] = ..., update_views: _Optional[_Union[UpdateViews, str]] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("updates", "seq")
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    updates: _containers.RepeatedCompositeFieldContainer[GameUpdate]
    seq: int
    def __init__(self, updates: _Optional[_Iterable[_Union[GameUpdate, _Mapping]]] = ..., seq: _Optional[int] = ...) -> None: ...

class GetHistoryRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetHistoryResponse(_message.Message):
    __slots__ = ("entries", "seed", "seed_salt", "seeded")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEED_SALT_FIELD_NUMBER: _ClassVar[int]
    SEEDED_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[HistoryEntry]
    seed: int
    seed_salt: str
    seeded: bool
    def __init__(self, entries: _Optional[_Iterable[_Union[HistoryEntry, _Mapping]]] = ..., seed: _Optional[int] = ..., seed_salt: _Optional[str] = ..., seeded: bool = ...) -> None: ...

class GetOddsRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetOddsResponse(_message.Message):
    __slots__ = ("seq", "cities")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    seq: int
    cities: _containers.RepeatedCompositeFieldContainer[_model_pb2.CityOdds]
    def __init__(self, seq: _Optional[int] = ..., cities: _Optional[_Iterable[_Union[_model_pb2.CityOdds, _Mapping]]] = ...) -> None: ...

class UpdateProfileRequest(_message.Message):
    __slots__ = ("description",)
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    description: str
    def __init__(self, description: _Optional[str] = ...) -> None: ...

class UpdateProfileResponse(_message.Message):
    __slots__ = ("description",)
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    description: str
    def __init__(self, description: _Optional[str] = ...) -> None: ...

class ExportGamesRequest(_message.Message):
    __slots__ = ("finished_after", "finished_before", "page_size", "page_token")
    FINISHED_AFTER_FIELD_NUMBER: _ClassVar[int]
    FINISHED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    finished_after: _timestamp_pb2.Timestamp
    finished_before: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, finished_after: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., finished_before: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ExportGamesResponse(_message.Message):
    __slots__ = ("record", "next_page_token")
    RECORD_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    record: str
    next_page_token: str
    def __init__(self, record: _Optional[str] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("seq", "event", "at")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    seq: int
    event: _model_pb2.GameEvent
    at: _timestamp_pb2.Timestamp
    def __init__(self, seq: _Optional[int] = ..., event: _Optional[_Union[_model_pb2.GameEvent, _Mapping]] = ..., at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
