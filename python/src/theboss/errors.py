"""Every exception the kit raises, offline and online, in one hierarchy.

One mistake has one class and one attribute wherever it is made:

- ``RuleViolation``: a turn the rules refuse. ``reason`` names the rule (``"STRICT_LEAD"``,
  ``"TURN_ORDER"``, ``"CARD_IN_HAND"``..., ``theboss.engine.RULE_NAMES``), whether the
  engine refused it offline or the server online (then it is also a ``FailedPrecondition``:
  ``RuleRefused``).
- ``InvalidArgument`` (a ``ValueError``): a value that cannot be used. ``field`` names the
  argument or request field: a seat out of range (``field == "seat"``, offline and online),
  an index, a game the rules do not have (``InvalidConfig``), a message that describes
  nothing valid (``InvalidMessage``), a text that is not a turn (``InvalidNotation``), a
  record that does not replay (``InvalidRecord``), a view no game could show
  (``InconsistentView``); online, the server's INVALID_ARGUMENT (``BadRequest``).
- ``WrongType`` (a ``TypeError``): an argument of the wrong type.
- ``RpcError``: what the service refused or could not answer, one subclass per gRPC status
  a caller handles differently, with ``code``, ``reason`` (the ``ErrorInfo`` reason),
  ``retry_after`` (``RetryInfo``) and ``field`` (``BadRequest``).

Every class here derives from ``TheBossError``, which carries ``message``, ``reason`` and
``field`` (None when they do not apply). No bad argument surfaces as a Python built-in
exception (``OverflowError``, ``IndexError``...): only as these ``ValueError`` and
``TypeError`` subclasses.
"""

from __future__ import annotations

from typing import Any, Optional

import grpc

from theboss._engine import RULE_NAMES


def _rebuild(cls: type["TheBossError"], args: tuple[Any, ...], state: dict[str, Any]) -> "TheBossError":
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class TheBossError(Exception):
    """Base class of every error of the kit.

    ``message`` is the text for people; ``reason`` a stable name for programs when there is
    one (the rule broken, the server's ``ErrorInfo.reason``); ``field`` the argument or
    request field at fault, when known.
    """

    def __init__(self, message: str, reason: Optional[str] = None, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.field = field

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles the error with its attributes (e.g. across ``multiprocessing``)."""
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


class InvalidArgument(TheBossError, ValueError):
    """A value the kit or the service cannot use; ``field`` names it. Nothing changed."""


class InvalidConfig(InvalidArgument):
    """A game that cannot be set up: a player count, city set, seed or rules version the
    rules do not have."""


class InvalidMessage(InvalidArgument):
    """A message that describes nothing valid (a card that does not exist, bytes that are
    not an encoded message); ``field`` is the path of the field at fault."""


class InvalidNotation(InvalidArgument):
    """A text that is not a turn in the notation (``place boston 2e 1o; play detroit 3``),
    or a turn the view it was checked against does not allow; the message says why."""


class InvalidRecord(InvalidArgument):
    """A game record that is not one, or that does not replay to what it records."""


class InconsistentView(InvalidArgument):
    """A view that no game could have produced, so it cannot be determinized."""


class WrongType(TheBossError, TypeError):
    """An argument of the wrong type (e.g. a ``Card`` where a ``TurnAction`` is expected);
    ``field`` names it."""


class RuleViolation(TheBossError):
    """A turn broke a rule of the game; nothing changed.

    ``reason`` names the rule as the server's ``ErrorInfo.reason`` does (one of
    ``theboss.engine.RULE_NAMES``: ``"STRICT_LEAD"``, ``"TURN_ORDER"``, ``"CARD_IN_HAND"``,
    ``"GAME_OVER"``...). Raised by the engine offline; online the server's refusal is a
    ``RuleRefused``, which is a ``RuleViolation`` too.
    """


class RpcError(TheBossError):
    """A call the service refused or could not answer.

    ``code`` is the gRPC status code, ``call`` the RPC's name, ``reason`` the
    ``google.rpc.ErrorInfo`` reason when the server gave one (``"STRICT_LEAD"``,
    ``"RATE_LIMITED"``, ``"STALE_SEQ"``...), ``retry_after`` the seconds
    ``google.rpc.RetryInfo`` asked to wait, if any, and ``field`` the ``BadRequest`` field.
    """

    def __init__(
        self,
        call: str,
        code: grpc.StatusCode,
        message: str,
        reason: Optional[str] = None,
        retry_after: Optional[float] = None,
        field: Optional[str] = None,
    ) -> None:
        detail = f" [{reason}]" if reason else ""
        super().__init__(f"{call}: {code.name}{detail}: {message}", reason, field)
        self.message = message
        self.call = call
        self.code = code
        self.retry_after = retry_after
        self.budget: Optional[Any] = None
        """The ``theboss.client.Budget`` the refusal's metadata reported, if any."""


class BadRequest(RpcError, InvalidArgument):
    """INVALID_ARGUMENT: a malformed request; ``field`` names the field when known (a seat
    out of range is ``field == "seat"``, as offline)."""


class Unauthenticated(RpcError):
    """UNAUTHENTICATED: a missing or unknown token."""


class PermissionDenied(RpcError):
    """PERMISSION_DENIED: not allowed for this player (e.g. ``NOT_SEATED``)."""


class NotFound(RpcError):
    """NOT_FOUND: an unknown game or player."""


class FailedPrecondition(RpcError):
    """FAILED_PRECONDITION: a rule of the table (``GAME_NOT_OPEN``, ``ALREADY_QUEUED``...)
    or of the game (then a ``RuleRefused``); ``reason`` names it."""


class RuleRefused(FailedPrecondition, RuleViolation):
    """FAILED_PRECONDITION naming a rule of the game: the server's ``RuleViolation``, caught
    by ``except RuleViolation`` as the engine's own refusals are."""


class Aborted(RpcError):
    """ABORTED: a stale ``expected_seq`` (``STALE_SEQ``): read the view and try again."""


class ResourceExhausted(RpcError):
    """RESOURCE_EXHAUSTED: over a quota (``retry_after`` set) or a limit (not set)."""


class Unavailable(RpcError):
    """UNAVAILABLE: the server or its store could not answer. The client retries what is
    safe to retry for ``RetryPolicy.unavailable_for`` seconds before it raises this."""


class StreamLost(Unavailable):
    """A stream (a game's feed, the ladder's queue, the offers) could not be opened again
    within ``RetryPolicy.unavailable_for`` seconds."""


_BY_CODE: dict[grpc.StatusCode, type[RpcError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: BadRequest,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ABORTED: Aborted,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
}


def rpc_error_class(code: grpc.StatusCode, reason: Optional[str] = None) -> type[RpcError]:
    """The exception class for a status code and its ``ErrorInfo`` reason (``RpcError``
    itself for the codes without a class of their own)."""
    # The engine says which reasons are rules of the game.
    if code == grpc.StatusCode.FAILED_PRECONDITION and reason in RULE_NAMES:
        return RuleRefused
    return _BY_CODE.get(code, RpcError)
