"""Every exception the kit raises, offline and online, under one base class.

The engine (``theboss.engine``) raises ``RuleViolation``, ``InvalidConfig``,
``InvalidMessage`` and ``InconsistentView``; the client (``theboss.client``) raises
``RpcError`` and its subclasses, one per gRPC status code a caller handles differently.
"""

from __future__ import annotations

from typing import Any, Optional

import grpc


class TheBossError(Exception):
    """Base class of every error of the kit."""


class RuleViolation(TheBossError):
    """A turn broke a rule of the game; nothing changed.

    ``rule`` names it as the server's ``ErrorInfo.reason`` does (``"STRICT_LEAD"``,
    ``"TURN_ORDER"``, ``"CARD_IN_HAND"``, ``"GAME_OVER"``...).
    """

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __reduce__(self):  # picklable, e.g. across multiprocessing
        return (type(self), (self.message, self.rule))


class InvalidConfig(TheBossError, ValueError):
    """A game that cannot be set up: a player count, city set or rules version the rules
    do not have."""


class InvalidMessage(TheBossError, ValueError):
    """A message that describes nothing valid (a card that does not exist, a seat out of
    range, bytes that are not an encoded message)."""


class InconsistentView(TheBossError, ValueError):
    """A view that no game could have produced, so it cannot be determinized."""


class RpcError(TheBossError):
    """A call the service refused or could not answer.

    ``code`` is the gRPC status code, ``reason`` the ``google.rpc.ErrorInfo`` reason when the
    server gave one (``"STRICT_LEAD"``, ``"RATE_LIMITED"``, ``"STALE_SEQ"``...),
    ``retry_after`` the seconds ``google.rpc.RetryInfo`` asked to wait, if any.
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
        super().__init__(f"{call}: {code.name}{detail}: {message}")
        self.call = call
        self.code = code
        self.message = message
        self.reason = reason
        self.retry_after = retry_after
        self.field = field
        self.budget: Optional[Any] = None
        """The ``theboss.client.Budget`` the refusal's metadata reported, if any."""


class InvalidArgument(RpcError):
    """INVALID_ARGUMENT: a malformed request (``field`` names the field when known)."""


class Unauthenticated(RpcError):
    """UNAUTHENTICATED: a missing or unknown token."""


class PermissionDenied(RpcError):
    """PERMISSION_DENIED: not allowed for this player (e.g. ``NOT_SEATED``)."""


class NotFound(RpcError):
    """NOT_FOUND: an unknown game or player."""


class FailedPrecondition(RpcError):
    """FAILED_PRECONDITION: a rule of the game or of the table; ``reason`` names it."""


class Aborted(RpcError):
    """ABORTED: a stale ``expected_seq`` (``STALE_SEQ``): read the view and try again."""


class ResourceExhausted(RpcError):
    """RESOURCE_EXHAUSTED: over a quota (``retry_after`` set) or a limit (not set)."""


class Unavailable(RpcError):
    """UNAVAILABLE: the server or its store could not answer; safe to retry."""


_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ABORTED: Aborted,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
}


def rpc_error_class(code: grpc.StatusCode) -> type[RpcError]:
    """The exception class for a status code (``RpcError`` itself for the others)."""
    return _BY_CODE.get(code, RpcError)
