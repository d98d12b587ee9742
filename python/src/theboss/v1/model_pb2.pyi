from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class City(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CITY_UNSPECIFIED: _ClassVar[City]
    CITY_NEW_YORK: _ClassVar[City]
    CITY_BOSTON: _ClassVar[City]
    CITY_DETROIT: _ClassVar[City]
    CITY_KANSAS_CITY: _ClassVar[City]
    CITY_CINCINNATI: _ClassVar[City]
    CITY_MEMPHIS: _ClassVar[City]
    CITY_PHILADELPHIA: _ClassVar[City]

class Location(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LOCATION_UNSPECIFIED: _ClassVar[Location]
    LOCATION_NEW_YORK: _ClassVar[Location]
    LOCATION_BOSTON: _ClassVar[Location]
    LOCATION_DETROIT: _ClassVar[Location]
    LOCATION_KANSAS_CITY: _ClassVar[Location]
    LOCATION_CINCINNATI: _ClassVar[Location]
    LOCATION_MEMPHIS: _ClassVar[Location]
    LOCATION_PHILADELPHIA: _ClassVar[Location]
    LOCATION_CHICAGO: _ClassVar[Location]

class Sanction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SANCTION_UNSPECIFIED: _ClassVar[Sanction]
    SANCTION_REVOLVER: _ClassVar[Sanction]
    SANCTION_PRISON: _ClassVar[Sanction]
    SANCTION_HOSPITAL: _ClassVar[Sanction]
    SANCTION_BANISHED: _ClassVar[Sanction]

class PoliceCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POLICE_CARD_UNSPECIFIED: _ClassVar[PoliceCard]
    POLICE_CARD_SILVER: _ClassVar[PoliceCard]
    POLICE_CARD_GOLD: _ClassVar[PoliceCard]
    POLICE_CARD_DOUBLE: _ClassVar[PoliceCard]

class PlayerKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAYER_KIND_UNSPECIFIED: _ClassVar[PlayerKind]
    PLAYER_KIND_BOT: _ClassVar[PlayerKind]
    PLAYER_KIND_PERSON: _ClassVar[PlayerKind]

class BotStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_STRATEGY_UNSPECIFIED: _ClassVar[BotStrategy]
    BOT_STRATEGY_RANDOM: _ClassVar[BotStrategy]
    BOT_STRATEGY_HEURISTIC: _ClassVar[BotStrategy]
    BOT_STRATEGY_ISMCTS: _ClassVar[BotStrategy]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_OPEN: _ClassVar[GameStatus]
    GAME_STATUS_RUNNING: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]
    GAME_STATUS_ABORTED: _ClassVar[GameStatus]

class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VISIBILITY_UNSPECIFIED: _ClassVar[Visibility]
    VISIBILITY_PUBLIC: _ClassVar[Visibility]
    VISIBILITY_UNLISTED: _ClassVar[Visibility]
CITY_UNSPECIFIED: City
CITY_NEW_YORK: City
CITY_BOSTON: City
CITY_DETROIT: City
CITY_KANSAS_CITY: City
CITY_CINCINNATI: City
CITY_MEMPHIS: City
CITY_PHILADELPHIA: City
LOCATION_UNSPECIFIED: Location
LOCATION_NEW_YORK: Location
LOCATION_BOSTON: Location
LOCATION_DETROIT: Location
LOCATION_KANSAS_CITY: Location
LOCATION_CINCINNATI: Location
LOCATION_MEMPHIS: Location
LOCATION_PHILADELPHIA: Location
LOCATION_CHICAGO: Location
SANCTION_UNSPECIFIED: Sanction
SANCTION_REVOLVER: Sanction
SANCTION_PRISON: Sanction
SANCTION_HOSPITAL: Sanction
SANCTION_BANISHED: Sanction
POLICE_CARD_UNSPECIFIED: PoliceCard
POLICE_CARD_SILVER: PoliceCard
POLICE_CARD_GOLD: PoliceCard
POLICE_CARD_DOUBLE: PoliceCard
PLAYER_KIND_UNSPECIFIED: PlayerKind
PLAYER_KIND_BOT: PlayerKind
PLAYER_KIND_PERSON: PlayerKind
BOT_STRATEGY_UNSPECIFIED: BotStrategy
BOT_STRATEGY_RANDOM: BotStrategy
BOT_STRATEGY_HEURISTIC: BotStrategy
BOT_STRATEGY_ISMCTS: BotStrategy
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_OPEN: GameStatus
GAME_STATUS_RUNNING: GameStatus
GAME_STATUS_FINISHED: GameStatus
GAME_STATUS_ABORTED: GameStatus
VISIBILITY_UNSPECIFIED: Visibility
VISIBILITY_PUBLIC: Visibility
VISIBILITY_UNLISTED: Visibility

class Card(_message.Message):
    __slots__ = ("city", "money", "sanction")
    CITY_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    SANCTION_FIELD_NUMBER: _ClassVar[int]
    city: City
    money: int
    sanction: Sanction
    def __init__(self, city: _Optional[_Union[City, str]] = ..., money: _Optional[int] = ..., sanction: _Optional[_Union[Sanction, str]] = ...) -> None: ...

class CityCards(_message.Message):
    __slots__ = ("city", "cards")
    CITY_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    city: City
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, city: _Optional[_Union[City, str]] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Placement(_message.Message):
    __slots__ = ("location", "experts", "occasionals")
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    EXPERTS_FIELD_NUMBER: _ClassVar[int]
    OCCASIONALS_FIELD_NUMBER: _ClassVar[int]
    location: Location
    experts: int
    occasionals: int
    def __init__(self, location: _Optional[_Union[Location, str]] = ..., experts: _Optional[int] = ..., occasionals: _Optional[int] = ...) -> None: ...

class TurnAction(_message.Message):
    __slots__ = ("placement", "card")
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    placement: Placement
    card: Card
    def __init__(self, placement: _Optional[_Union[Placement, _Mapping]] = ..., card: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class Gangsters(_message.Message):
    __slots__ = ("experts", "occasionals")
    EXPERTS_FIELD_NUMBER: _ClassVar[int]
    OCCASIONALS_FIELD_NUMBER: _ClassVar[int]
    experts: int
    occasionals: int
    def __init__(self, experts: _Optional[int] = ..., occasionals: _Optional[int] = ...) -> None: ...

class Supply(_message.Message):
    __slots__ = ("experts_free", "experts_placed", "experts_in_hospital", "experts_in_prison", "experts_killed", "occasionals", "occasionals_placed", "occasionals_used")
    EXPERTS_FREE_FIELD_NUMBER: _ClassVar[int]
    EXPERTS_PLACED_FIELD_NUMBER: _ClassVar[int]
    EXPERTS_IN_HOSPITAL_FIELD_NUMBER: _ClassVar[int]
    EXPERTS_IN_PRISON_FIELD_NUMBER: _ClassVar[int]
    EXPERTS_KILLED_FIELD_NUMBER: _ClassVar[int]
    OCCASIONALS_FIELD_NUMBER: _ClassVar[int]
    OCCASIONALS_PLACED_FIELD_NUMBER: _ClassVar[int]
    OCCASIONALS_USED_FIELD_NUMBER: _ClassVar[int]
    experts_free: int
    experts_placed: int
    experts_in_hospital: int
    experts_in_prison: _containers.RepeatedScalarFieldContainer[int]
    experts_killed: int
    occasionals: int
    occasionals_placed: int
    occasionals_used: int
    def __init__(self, experts_free: _Optional[int] = ..., experts_placed: _Optional[int] = ..., experts_in_hospital: _Optional[int] = ..., experts_in_prison: _Optional[_Iterable[int]] = ..., experts_killed: _Optional[int] = ..., occasionals: _Optional[int] = ..., occasionals_placed: _Optional[int] = ..., occasionals_used: _Optional[int] = ...) -> None: ...

class CityCount(_message.Message):
    __slots__ = ("city", "count")
    CITY_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    city: City
    count: int
    def __init__(self, city: _Optional[_Union[City, str]] = ..., count: _Optional[int] = ...) -> None: ...

class CityOdds(_message.Message):
    __slots__ = ("city", "cards", "expected_money")
    CITY_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_MONEY_FIELD_NUMBER: _ClassVar[int]
    city: City
    cards: _containers.RepeatedCompositeFieldContainer[CardOdds]
    expected_money: float
    def __init__(self, city: _Optional[_Union[City, str]] = ..., cards: _Optional[_Iterable[_Union[CardOdds, _Mapping]]] = ..., expected_money: _Optional[float] = ...) -> None: ...

class CardOdds(_message.Message):
    __slots__ = ("card", "probability")
    CARD_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    card: Card
    probability: float
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ..., probability: _Optional[float] = ...) -> None: ...

class SeatPlayer(_message.Message):
    __slots__ = ("seat", "player_id", "display_name", "is_bot", "house_bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_BOT_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    display_name: str
    is_bot: bool
    house_bot: BotStrategy
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: bool = ..., house_bot: _Optional[_Union[BotStrategy, str]] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "player", "money", "money_last_round", "supply", "banished", "hand_backs", "hand_size", "timeouts_in_a_row", "forfeited")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    MONEY_LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    BANISHED_FIELD_NUMBER: _ClassVar[int]
    HAND_BACKS_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_IN_A_ROW_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: SeatPlayer
    money: int
    money_last_round: int
    supply: Supply
    banished: _containers.RepeatedScalarFieldContainer[City]
    hand_backs: _containers.RepeatedCompositeFieldContainer[CityCount]
    hand_size: int
    timeouts_in_a_row: int
    forfeited: bool
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[_Union[SeatPlayer, _Mapping]] = ..., money: _Optional[int] = ..., money_last_round: _Optional[int] = ..., supply: _Optional[_Union[Supply, _Mapping]] = ..., banished: _Optional[_Iterable[_Union[City, str]]] = ..., hand_backs: _Optional[_Iterable[_Union[CityCount, _Mapping]]] = ..., hand_size: _Optional[int] = ..., timeouts_in_a_row: _Optional[int] = ..., forfeited: bool = ...) -> None: ...

class LocationView(_message.Message):
    __slots__ = ("location", "gangsters", "leader", "played", "face_down")
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    GANGSTERS_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    location: Location
    gangsters: _containers.RepeatedCompositeFieldContainer[Gangsters]
    leader: int
    played: _containers.RepeatedCompositeFieldContainer[Card]
    face_down: bool
    def __init__(self, location: _Optional[_Union[Location, str]] = ..., gangsters: _Optional[_Iterable[_Union[Gangsters, _Mapping]]] = ..., leader: _Optional[int] = ..., played: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., face_down: bool = ...) -> None: ...

class PlacementOption(_message.Message):
    __slots__ = ("location", "min_gangsters", "max_experts", "max_occasionals", "expert_present")
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    MIN_GANGSTERS_FIELD_NUMBER: _ClassVar[int]
    MAX_EXPERTS_FIELD_NUMBER: _ClassVar[int]
    MAX_OCCASIONALS_FIELD_NUMBER: _ClassVar[int]
    EXPERT_PRESENT_FIELD_NUMBER: _ClassVar[int]
    location: Location
    min_gangsters: int
    max_experts: int
    max_occasionals: int
    expert_present: bool
    def __init__(self, location: _Optional[_Union[Location, str]] = ..., min_gangsters: _Optional[int] = ..., max_experts: _Optional[int] = ..., max_occasionals: _Optional[int] = ..., expert_present: bool = ...) -> None: ...

class LegalTurns(_message.Message):
    __slots__ = ("cards", "placements", "deadline")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    placements: _containers.RepeatedCompositeFieldContainer[PlacementOption]
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., placements: _Optional[_Iterable[_Union[PlacementOption, _Mapping]]] = ..., deadline: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PoliceView(_message.Message):
    __slots__ = ("revealed", "silver", "gold", "remaining")
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    SILVER_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    revealed: _containers.RepeatedScalarFieldContainer[PoliceCard]
    silver: int
    gold: int
    remaining: int
    def __init__(self, revealed: _Optional[_Iterable[_Union[PoliceCard, str]]] = ..., silver: _Optional[int] = ..., gold: _Optional[int] = ..., remaining: _Optional[int] = ...) -> None: ...

class GameSettings(_message.Message):
    __slots__ = ("players", "cities", "turn_time_limit_seconds", "visibility", "rules_version")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    TURN_TIME_LIMIT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    players: int
    cities: _containers.RepeatedScalarFieldContainer[City]
    turn_time_limit_seconds: int
    visibility: Visibility
    rules_version: int
    def __init__(self, players: _Optional[int] = ..., cities: _Optional[_Iterable[_Union[City, str]]] = ..., turn_time_limit_seconds: _Optional[int] = ..., visibility: _Optional[_Union[Visibility, str]] = ..., rules_version: _Optional[int] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "settings", "status", "seats", "created_at", "winners", "ladder", "seeded", "series_id", "series_table", "series_tables")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    LADDER_FIELD_NUMBER: _ClassVar[int]
    SEEDED_FIELD_NUMBER: _ClassVar[int]
    SERIES_ID_FIELD_NUMBER: _ClassVar[int]
    SERIES_TABLE_FIELD_NUMBER: _ClassVar[int]
    SERIES_TABLES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    settings: GameSettings
    status: GameStatus
    seats: _containers.RepeatedCompositeFieldContainer[SeatPlayer]
    created_at: _timestamp_pb2.Timestamp
    winners: _containers.RepeatedScalarFieldContainer[int]
    ladder: bool
    seeded: bool
    series_id: str
    series_table: int
    series_tables: int
    def __init__(self, game_id: _Optional[str] = ..., settings: _Optional[_Union[GameSettings, _Mapping]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., seats: _Optional[_Iterable[_Union[SeatPlayer, _Mapping]]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., winners: _Optional[_Iterable[int]] = ..., ladder: bool = ..., seeded: bool = ..., series_id: _Optional[str] = ..., series_table: _Optional[int] = ..., series_tables: _Optional[int] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("game_id", "status", "viewer_seat", "settings", "seq", "cities", "round", "turn", "start_player", "to_move", "turn_order", "acted_this_turn", "last_turn", "last_round", "contenders", "locations", "chicago_value", "seats", "hand", "legal", "police", "last_resolution", "outcome", "rules_version", "seed_commitment", "seeded")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    START_PLAYER_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    TURN_ORDER_FIELD_NUMBER: _ClassVar[int]
    ACTED_THIS_TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    CONTENDERS_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    CHICAGO_VALUE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    POLICE_FIELD_NUMBER: _ClassVar[int]
    LAST_RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEEDED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    status: GameStatus
    viewer_seat: int
    settings: GameSettings
    seq: int
    cities: _containers.RepeatedScalarFieldContainer[City]
    round: int
    turn: int
    start_player: int
    to_move: int
    turn_order: _containers.RepeatedScalarFieldContainer[int]
    acted_this_turn: int
    last_turn: bool
    last_round: bool
    contenders: _containers.RepeatedScalarFieldContainer[int]
    locations: _containers.RepeatedCompositeFieldContainer[LocationView]
    chicago_value: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    legal: LegalTurns
    police: PoliceView
    last_resolution: RoundSummary
    outcome: Outcome
    rules_version: int
    seed_commitment: str
    seeded: bool
    def __init__(self, game_id: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., viewer_seat: _Optional[int] = ..., settings: _Optional[_Union[GameSettings, _Mapping]] = ..., seq: _Optional[int] = ..., cities: _Optional[_Iterable[_Union[City, str]]] = ..., round: _Optional[int] = ..., turn: _Optional[int] = ..., start_player: _Optional[int] = ..., to_move: _Optional[int] = ..., turn_order: _Optional[_Iterable[int]] = ..., acted_this_turn: _Optional[int] = ..., last_turn: bool = ..., last_round: bool = ..., contenders: _Optional[_Iterable[int]] = ..., locations: _Optional[_Iterable[_Union[LocationView, _Mapping]]] = ..., chicago_value: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., legal: _Optional[_Union[LegalTurns, _Mapping]] = ..., police: _Optional[_Union[PoliceView, _Mapping]] = ..., last_resolution: _Optional[_Union[RoundSummary, _Mapping]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., rules_version: _Optional[int] = ..., seed_commitment: _Optional[str] = ..., seeded: bool = ...) -> None: ...

class RoundSummary(_message.Message):
    __slots__ = ("round", "face_down", "awards", "money_won")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FACE_DOWN_FIELD_NUMBER: _ClassVar[int]
    AWARDS_FIELD_NUMBER: _ClassVar[int]
    MONEY_WON_FIELD_NUMBER: _ClassVar[int]
    round: int
    face_down: _containers.RepeatedCompositeFieldContainer[Card]
    awards: _containers.RepeatedCompositeFieldContainer[Award]
    money_won: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., face_down: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., awards: _Optional[_Iterable[_Union[Award, _Mapping]]] = ..., money_won: _Optional[_Iterable[int]] = ...) -> None: ...

class Award(_message.Message):
    __slots__ = ("location", "winner", "card", "money", "chicago_sum", "sanction", "sanction_applied")
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    CHICAGO_SUM_FIELD_NUMBER: _ClassVar[int]
    SANCTION_FIELD_NUMBER: _ClassVar[int]
    SANCTION_APPLIED_FIELD_NUMBER: _ClassVar[int]
    location: Location
    winner: int
    card: Card
    money: int
    chicago_sum: int
    sanction: Sanction
    sanction_applied: bool
    def __init__(self, location: _Optional[_Union[Location, str]] = ..., winner: _Optional[int] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., money: _Optional[int] = ..., chicago_sum: _Optional[int] = ..., sanction: _Optional[_Union[Sanction, str]] = ..., sanction_applied: bool = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("seat", "money", "money_last_round", "gangsters_owned")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MONEY_FIELD_NUMBER: _ClassVar[int]
    MONEY_LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    GANGSTERS_OWNED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    money: int
    money_last_round: int
    gangsters_owned: int
    def __init__(self, seat: _Optional[int] = ..., money: _Optional[int] = ..., money_last_round: _Optional[int] = ..., gangsters_owned: _Optional[int] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("winners", "standings", "rounds", "contenders")
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    CONTENDERS_FIELD_NUMBER: _ClassVar[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    rounds: int
    contenders: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, winners: _Optional[_Iterable[int]] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., rounds: _Optional[int] = ..., contenders: _Optional[_Iterable[int]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("player_joined", "player_left", "game_started", "round_started", "hand_dealt", "police_revealed", "turn_taken", "last_turn_order", "round_resolved", "decisive_round", "game_ended", "game_aborted")
    PLAYER_JOINED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_LEFT_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    HAND_DEALT_FIELD_NUMBER: _ClassVar[int]
    POLICE_REVEALED_FIELD_NUMBER: _ClassVar[int]
    TURN_TAKEN_FIELD_NUMBER: _ClassVar[int]
    LAST_TURN_ORDER_FIELD_NUMBER: _ClassVar[int]
    ROUND_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    DECISIVE_ROUND_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    GAME_ABORTED_FIELD_NUMBER: _ClassVar[int]
    player_joined: PlayerJoined
    player_left: PlayerLeft
    game_started: GameStarted
    round_started: RoundStarted
    hand_dealt: HandDealt
    police_revealed: PoliceRevealed
    turn_taken: TurnTaken
    last_turn_order: LastTurnOrder
    round_resolved: RoundSummary
    decisive_round: DecisiveRound
    game_ended: GameEnded
    game_aborted: GameAborted
    def __init__(self, player_joined: _Optional[_Union[PlayerJoined, _Mapping]] = ..., player_left: _Optional[_Union[PlayerLeft, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., round_started: _Optional[_Union[RoundStarted, _Mapping]] = ..., hand_dealt: _Optional[_Union[HandDealt, _Mapping]] = ..., police_revealed: _Optional[_Union[PoliceRevealed, _Mapping]] = ..., turn_taken: _Optional[_Union[TurnTaken, _Mapping]] = ..., last_turn_order: _Optional[_Union[LastTurnOrder, _Mapping]] = ..., round_resolved: _Optional[_Union[RoundSummary, _Mapping]] = ..., decisive_round: _Optional[_Union[DecisiveRound, _Mapping]] = ..., game_ended: _Optional[_Union[GameEnded, _Mapping]] = ..., game_aborted: _Optional[_Union[GameAborted, _Mapping]] = ...) -> None: ...

class PlayerJoined(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: SeatPlayer
    def __init__(self, player: _Optional[_Union[SeatPlayer, _Mapping]] = ...) -> None: ...

class PlayerLeft(_message.Message):
    __slots__ = ("player", "resigned")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    player: SeatPlayer
    resigned: bool
    def __init__(self, player: _Optional[_Union[SeatPlayer, _Mapping]] = ..., resigned: bool = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ("players", "cities", "rules_version")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    players: int
    cities: _containers.RepeatedScalarFieldContainer[City]
    rules_version: int
    def __init__(self, players: _Optional[int] = ..., cities: _Optional[_Iterable[_Union[City, str]]] = ..., rules_version: _Optional[int] = ...) -> None: ...

class RoundStarted(_message.Message):
    __slots__ = ("round", "start_player", "row", "decisive")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    START_PLAYER_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    DECISIVE_FIELD_NUMBER: _ClassVar[int]
    round: int
    start_player: int
    row: _containers.RepeatedScalarFieldContainer[Location]
    decisive: bool
    def __init__(self, round: _Optional[int] = ..., start_player: _Optional[int] = ..., row: _Optional[_Iterable[_Union[Location, str]]] = ..., decisive: bool = ...) -> None: ...

class HandDealt(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class PoliceRevealed(_message.Message):
    __slots__ = ("card", "silver", "gold", "last_round")
    CARD_FIELD_NUMBER: _ClassVar[int]
    SILVER_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    card: PoliceCard
    silver: int
    gold: int
    last_round: bool
    def __init__(self, card: _Optional[_Union[PoliceCard, str]] = ..., silver: _Optional[int] = ..., gold: _Optional[int] = ..., last_round: bool = ...) -> None: ...

class TurnTaken(_message.Message):
    __slots__ = ("seat", "round", "turn", "action", "by_timeout")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    BY_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    round: int
    turn: int
    action: TurnAction
    by_timeout: bool
    def __init__(self, seat: _Optional[int] = ..., round: _Optional[int] = ..., turn: _Optional[int] = ..., action: _Optional[_Union[TurnAction, _Mapping]] = ..., by_timeout: bool = ...) -> None: ...

class LastTurnOrder(_message.Message):
    __slots__ = ("order",)
    ORDER_FIELD_NUMBER: _ClassVar[int]
    order: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, order: _Optional[_Iterable[int]] = ...) -> None: ...

class DecisiveRound(_message.Message):
    __slots__ = ("contenders",)
    CONTENDERS_FIELD_NUMBER: _ClassVar[int]
    contenders: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, contenders: _Optional[_Iterable[int]] = ...) -> None: ...

class GameEnded(_message.Message):
    __slots__ = ("outcome",)
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    def __init__(self, outcome: _Optional[_Union[Outcome, _Mapping]] = ...) -> None: ...

class GameAborted(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...
