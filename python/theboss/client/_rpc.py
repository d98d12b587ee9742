"""Calling the service: the bearer token, errors as ``theboss.errors`` exceptions with their
``google.rpc`` details, and the retries every call shares.

Retry policy, the same as the Rust client's:

- RESOURCE_EXHAUSTED with a ``RetryInfo`` (reason ``RATE_LIMITED``): the call did nothing;
  wait as long as the server says (plus a little jitter, growing with each retry) and call
  again, up to ``RetryPolicy.throttled_retries`` times. Without ``RetryInfo`` it is a limit
  (too many streams, open games): raised at once, since waiting changes nothing.
- UNAVAILABLE: retried with exponential back-off for calls that are safe to repeat (reads,
  and ``SubmitAction`` with its idempotency key), for up to ``RetryPolicy.unavailable_for``
  seconds, long enough to ride out a server restart. Other calls raise ``Unavailable``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from theboss.errors import RpcError, rpc_error_class

T = TypeVar("T")

ERROR_DOMAIN = "theboss.v1"


@dataclass(frozen=True)
class RetryPolicy:
    """How hard a session tries before it raises."""

    throttled_retries: int = 20
    """Throttled calls (RESOURCE_EXHAUSTED with RetryInfo) retried this many times."""
    unavailable_for: float = 60.0
    """Seconds over which a safe call is retried on UNAVAILABLE."""
    first_backoff: float = 0.05
    max_backoff: float = 2.0


@dataclass(frozen=True)
class Budget:
    """What the caller has left of its quota, as the server's ``ratelimit-*`` metadata says
    on every answer (game_service.proto, "Rate-limit metadata")."""

    limit: int
    """Calls it may make at once when its bucket is full (the burst)."""
    remaining: int
    """Calls it may make at once now."""
    reset: int
    """Seconds until its bucket is full again."""
    policy: str
    """``<burst>;w=<seconds to refill>;name="<quota>"``."""

    @classmethod
    def from_metadata(cls, metadata: Optional[Iterable[Any]]) -> Optional["Budget"]:
        """The budget in a call's metadata (``(key, value)`` pairs), if it has one."""
        values = {key: value for key, value in metadata or ()}
        try:
            return cls(
                limit=int(values["ratelimit-limit"]),
                remaining=int(values["ratelimit-remaining"]),
                reset=int(values["ratelimit-reset"]),
                policy=str(values["ratelimit-policy"]),
            )
        except (KeyError, ValueError):
            return None


@dataclass
class CallStats:
    """What a session's retries did, for pacing and monitoring."""

    throttled: int = 0
    """Calls refused as over the quota (RESOURCE_EXHAUSTED with RetryInfo), then retried."""
    throttled_seconds: float = 0.0
    """Seconds spent waiting as RetryInfo asked."""
    unavailable: int = 0
    """Calls retried after UNAVAILABLE."""
    budget: Optional[Budget] = None
    """The quota budget the last answer reported (None before any, or with quotas off)."""


def to_error(call: str, error: grpc.RpcError) -> RpcError:
    """A gRPC error as the kit's exception, with ``reason``, ``retry_after`` and ``field``
    read from the status details (``grpc-status-details-bin``)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    message = error.details() if hasattr(error, "details") else str(error)
    reason = retry_after = field = None
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except Exception:  # a malformed details trailer must not hide the error itself
        status = None
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_after = retry.retry_delay.ToTimedelta().total_seconds()
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                if bad.field_violations:
                    field = bad.field_violations[0].field
    error_class = rpc_error_class(code)
    failure = error_class(call, code, message or "", reason, retry_after, field)
    if hasattr(error, "trailing_metadata"):
        failure.budget = Budget.from_metadata(error.trailing_metadata())
    return failure


def backoff(attempt: int, policy: RetryPolicy) -> float:
    """Seconds to wait before retry ``attempt`` (1-based): exponential, capped, jittered."""
    base = min(policy.first_backoff * 2 ** (attempt - 1), policy.max_backoff)
    return base * (0.5 + random.random() / 2)


def call(
    name: str,
    attempt: Callable[[], T],
    policy: RetryPolicy,
    *,
    safe: bool,
    stats: Optional[CallStats] = None,
    sleep: Callable[[float], Any] = time.sleep,
) -> T:
    """Runs ``attempt`` under the retry policy; ``safe``: it may be repeated on UNAVAILABLE."""
    throttled = 0
    unavailable = 0
    deadline: Optional[float] = None
    while True:
        try:
            return attempt()
        except grpc.RpcError as raw:
            error = to_error(name, raw)
        if stats is not None and error.budget is not None:
            stats.budget = error.budget
        if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.retry_after is not None:
            if throttled >= policy.throttled_retries:
                raise error
            throttled += 1
            wait = error.retry_after + backoff(throttled, policy) / 4
            if stats is not None:
                stats.throttled += 1
                stats.throttled_seconds += wait
            sleep(wait)
            continue
        if error.code == grpc.StatusCode.UNAVAILABLE and safe:
            now = time.monotonic()
            deadline = deadline if deadline is not None else now + policy.unavailable_for
            if now >= deadline:
                raise error
            unavailable += 1
            if stats is not None:
                stats.unavailable += 1
            sleep(backoff(unavailable, policy))
            continue
        raise error
