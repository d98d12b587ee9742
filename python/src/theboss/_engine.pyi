"""Type stubs of the ``theboss._engine`` extension module (Rust, PyO3); see ``theboss.engine``.

Every function reads its arguments itself: a value out of range raises
``theboss.errors.InvalidArgument`` (or a subclass) naming the argument in ``field``, one of
the wrong type ``theboss.errors.WrongType``; never a Python built-in such as
``OverflowError`` or ``IndexError``.
"""

from typing import Any, Optional

from theboss._types import CityOdds, LoggedEvent
from theboss.v1 import model_pb2

ACTION_COUNT: int
"""The size of the fixed action space: 27 cards × 225 placements (none, or a location with
0..=6 Experts and 0..=3 Occasionals). ``id = card × 225 + placement``."""
RULES_VERSION: int
"""The newest rules version, the one a game gets unless another is asked for."""
RULE_NAMES: list[str]
"""Every rule the engine enforces, by the name ``RuleViolation.reason`` (and the server's
``ErrorInfo.reason``) gives it."""
NOTATION: str
"""The turn notation's grammar: ``place <location> [<n>e] [<n>o]; play <city> <face>``."""
TURNS_PER_ROUND: int
"""Turns in a round: every seat plays one card per turn."""
MAX_ROUNDS: int
"""The most rounds a game can last (the police deck's rounds and a decisive one)."""
EXPERTS_PER_PLAYER: int
"""Experts each player owns at the start (6)."""
OCCASIONALS_PER_PLAYER: int
"""Occasionals each player owns at the start (3)."""

class Game:
    """One game of The Boss, played by the server's own engine.

    A broken rule raises ``theboss.errors.RuleViolation`` (its ``reason`` names the rule as
    the server names it) and leaves the game unchanged."""

    def __init__(
        self,
        players: int,
        seed: int,
        cities: Optional[list[int]] = None,
        rules_version: Optional[int] = None,
    ) -> None:
        """Deals a new game: 2 to 4 players, a seed (0 ≤ seed < 2**64), the cities as
        ``theboss.v1.City`` numbers (None: the rulebook's default set) and a rules version
        (None: the newest). Raises ``InvalidConfig`` for a game the rules do not have."""
    @property
    def players(self) -> int:
        """How many players (2 to 4)."""
    @property
    def seed(self) -> int:
        """The seed every shuffle comes from (for a determinized game, the drawn one)."""
    @property
    def cities(self) -> list[int]:
        """The cities in play, as ``theboss.v1.City`` numbers."""
    @property
    def rules_version(self) -> int:
        """The rules version the game is played under."""
    @property
    def round(self) -> int:
        """The round being played, from 1."""
    @property
    def turn(self) -> int:
        """The turn within the round, 1 to 5."""
    @property
    def start_player(self) -> int:
        """The seat that started this round."""
    @property
    def to_move(self) -> Optional[int]:
        """The seat to play; None once the game is over."""
    @property
    def is_over(self) -> bool:
        """Whether the game is over."""
    @property
    def status(self) -> model_pb2.GameStatus:
        """``GAME_STATUS_RUNNING`` while played, ``GAME_STATUS_FINISHED`` once over."""
    def money(self) -> list[int]:
        """Money (M$) by seat."""
    def outcome(self) -> Optional[model_pb2.Outcome]:
        """Winners and standings, once the game is over."""
    def hand(self, seat: int) -> list[model_pb2.Card]:
        """A seat's hand (offline, every hand may be read)."""
    def view(self, seat: Optional[int] = None) -> model_pb2.GameView:
        """What a seat (None: a spectator) may know: the ``GameView`` the server streams,
        but for the table's own fields (``game_id``, ``settings``, ``seq``,
        ``seed_commitment``, ``seeded``, each seat's ``player``, ``timeouts_in_a_row`` and
        ``forfeited``, the legal turns' ``deadline``), left empty offline. ``status`` is
        ``GAME_STATUS_RUNNING``, then ``GAME_STATUS_FINISHED``."""
    def legal_turns(self) -> list[model_pb2.TurnAction]:
        """Every legal turn of the seat to move; empty once the game is over."""
    def legal_count(self) -> int:
        """How many legal turns the seat to move has, without listing them."""
    def legal_action_ids(self) -> list[int]:
        """The legal turns of the seat to move as action ids, ascending."""
    def apply(
        self, turn: model_pb2.TurnAction | bytes, seat: Optional[int] = None
    ) -> list[LoggedEvent]:
        """Plays a turn for ``seat`` (by default the seat to move); returns its events."""
    def apply_index(self, index: int) -> None:
        """Plays the ``index``-th legal turn (``0 <= index < legal_count()``) of the seat to
        move."""
    def apply_action_id(self, id: int) -> None:
        """Plays the turn of an action id for the seat to move."""
    def event_count(self) -> int:
        """How many events the game has logged since the deal."""
    def events(self, start: Optional[int] = None) -> list[LoggedEvent]:
        """The events logged since the deal (from index ``start``), each with the seat it is
        private to (None: public). A determinized game's log starts empty."""
    def copy(self) -> Game:
        """An independent copy."""
    def __copy__(self) -> Game:
        """An independent copy, for ``copy.copy``."""
    def __deepcopy__(self, memo: Any) -> Game:
        """An independent copy, for ``copy.deepcopy``."""

def determinize(view: model_pb2.GameView | bytes, seed: int) -> Game:
    """A whole game consistent with a view, its hidden part drawn with ``seed``. Raises
    ``InconsistentView`` for a view no game could have produced."""

def face_down_odds(view: model_pb2.GameView | bytes) -> list[CityOdds]:
    """What each face-down card can be, for the viewer of ``view``, left to right."""

def deck() -> list[model_pb2.Card]:
    """Every card, in the order action ids number them."""

def rules_versions() -> list[int]:
    """The rules versions this engine plays, oldest first."""

def city_sets(players: int) -> list[list[int]]:
    """The city sets a game of ``players`` may use: the default first."""

def view_turns(view: model_pb2.GameView | bytes) -> list[model_pb2.TurnAction]:
    """Every legal turn a view offers (its ``legal``, expanded); empty when it is not the
    viewer's turn. Online, this is how a bot lists its choices."""

def action_id(turn: model_pb2.TurnAction | bytes) -> int:
    """The action id of a turn (see ``ACTION_COUNT``)."""

def action_of_id(id: int) -> model_pb2.TurnAction:
    """The turn of an action id."""

def turn_text(turn: model_pb2.TurnAction | bytes) -> str:
    """A turn in the notation: ``place boston 2e 1o; play detroit 3``."""

def parse_turn(text: str, view: Optional[model_pb2.GameView | bytes] = None) -> model_pb2.TurnAction:
    """A turn from the notation (names may be abbreviated when unambiguous); with a view,
    checked against its legal set. Raises ``InvalidNotation`` with the reason."""

def location_name(location: int) -> str:
    """A location's name (``New York``, ``Chicago``) from its ``Location``/``City`` number."""

def card_text(card: model_pb2.Card | bytes) -> str:
    """A card as the notation writes it (``Detroit 3``, ``Kansas City revolver``)."""

def seed_commitment(seed: int, salt: str) -> str:
    """SHA-256 of ``"theboss-seed-v1:" + salt + ":" + seed``, as ``GameView.seed_commitment``."""

def record_turns(record: str) -> dict[str, Any]:
    """A game record's settings and turns, read by the workspace's record reader."""

def replay_record(record: str) -> tuple[Game, str]:
    """A game record replayed by the engine, checked to end as recorded, and what its seed
    says of the deal (``"verified"``, ``"unavailable"``, ``"mismatch"``)."""

def bench_random_games(players: int, games: int, seed: int) -> float:
    """Seconds the Rust engine takes to play ``games`` uniformly random games."""
