"""Calling the service: errors as ``theboss.errors`` exceptions with their ``google.rpc``
details, and the retries every call and stream shares, sync (``call``) and asyncio
(``acall``) alike: the decisions are ``Retrying``'s, only the waiting differs.

Retry policy, the same as the Rust client's:

- RESOURCE_EXHAUSTED with a ``RetryInfo`` (reason ``RATE_LIMITED``): the call did nothing;
  wait as long as the server says (plus a little jitter, growing with each retry) and call
  again, up to ``RetryPolicy.throttled_retries`` times. Without ``RetryInfo`` it is a limit
  (too many streams, open games): raised at once, since waiting changes nothing.
- UNAVAILABLE (a server restarting, a store failing over): retried with exponential
  back-off and jitter for calls that are safe to repeat (reads, ``SubmitAction`` with its
  idempotency key, ``Register``, streams reopened where they stopped), for up to
  ``RetryPolicy.unavailable_for`` seconds; then ``Unavailable`` (``StreamLost`` for a
  stream) says for how long the service could not be reached. Other calls wait for a
  connection for as long (their request is sent only once the server is reachable), but
  are not repeated once sent: a lost answer would leave the call's effect unknown.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Iterable, Optional, TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2

from theboss.errors import RpcError, StreamLost, Unavailable, rpc_error_class

T = TypeVar("T")

ERROR_DOMAIN = "theboss.v1"

_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True)
class RetryPolicy:
    """How hard a session tries before it raises."""

    throttled_retries: int = 20
    """Throttled calls (RESOURCE_EXHAUSTED with RetryInfo) retried this many times."""
    unavailable_for: float = 30.0
    """Seconds for which a call safe to repeat is retried on UNAVAILABLE, and a stream
    reopened, before ``Unavailable`` (or ``StreamLost``) is raised; and how long a call that
    is not safe to repeat waits for the server to be reachable."""
    first_backoff: float = 0.05
    """The first wait after an UNAVAILABLE, in seconds; each next one doubles, jittered."""
    max_backoff: float = 2.0
    """The longest wait between two attempts, in seconds."""


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
    """Calls retried, and streams reopened, after UNAVAILABLE or a dropped stream."""
    budget: Optional[Budget] = field(default=None)
    """The quota budget the last answer reported (None before any, or with quotas off)."""


def _metadata(error: Any, getter: str) -> tuple[Any, ...]:
    method = getattr(error, getter, None)
    if method is None:
        return ()
    try:
        metadata = method()
    except Exception:  # a call that never got an answer has no metadata
        return ()
    return tuple(metadata or ())


def to_error(call: str, error: grpc.RpcError) -> RpcError:
    """A gRPC error (of grpcio or grpc.aio) as the kit's exception, with ``reason``,
    ``retry_after`` and ``field`` read from the status details (``grpc-status-details-bin``);
    details that do not parse are ignored, never hiding the error itself."""
    code_of = getattr(error, "code", None)
    details_of = getattr(error, "details", None)
    code = code_of() if code_of is not None else grpc.StatusCode.UNKNOWN
    message = details_of() if details_of is not None else str(error)
    reason = field_name = None
    retry_after: Optional[float] = None
    trailers = _metadata(error, "trailing_metadata")
    for key, value in trailers:
        if key != _DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except Exception:
            continue
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
                    field_name = bad.field_violations[0].field
    error_class = rpc_error_class(code, reason)
    failure = error_class(call, code, message or "", reason, retry_after, field_name)
    failure.budget = Budget.from_metadata(trailers)
    return failure


def backoff(attempt: int, policy: RetryPolicy) -> float:
    """Seconds to wait before retry ``attempt`` (1-based): exponential, capped, and
    jittered (between half and all of it), so that clients cut off together do not all come
    back at once."""
    base = min(policy.first_backoff * 2 ** (attempt - 1), policy.max_backoff)
    return base * (0.5 + random.random() / 2)


class Retrying:
    """The retry decisions of one call, or of one stream's reopenings: after each failure,
    ``wait_after`` says how long to wait before trying again, or raises what the caller
    gets. Pure (the caller sleeps), so the sync and asyncio clients share it."""

    def __init__(
        self,
        name: str,
        policy: RetryPolicy,
        *,
        safe: bool,
        stats: Optional[CallStats] = None,
        stream: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.policy = policy
        self.safe = safe
        self.stats = stats
        self.stream = stream
        self.clock = clock
        self.throttled = 0
        self.unavailable = 0
        self.since: Optional[float] = None

    def succeeded(self) -> None:
        """An attempt got through: a later failure starts a new count."""
        self.unavailable = 0
        self.since = None

    def wait_after(self, error: RpcError) -> float:
        """Seconds to wait before the next attempt after ``error``; raises if there is none."""
        if self.stats is not None and error.budget is not None:
            self.stats.budget = error.budget
        if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.retry_after is not None:
            if self.throttled >= self.policy.throttled_retries:
                raise error
            self.throttled += 1
            wait = error.retry_after + backoff(self.throttled, self.policy) / 4
            if self.stats is not None:
                self.stats.throttled += 1
                self.stats.throttled_seconds += wait
            return wait
        if error.code == grpc.StatusCode.UNAVAILABLE and self.safe:
            return self.lost(error)
        raise error

    def lost(self, error: Optional[RpcError] = None, what: str = "") -> float:
        """The service could not be reached (``error``), or a stream dropped or went silent
        (``what`` says how): the wait before trying again, or the final ``Unavailable``
        (``StreamLost`` for a stream) once that has lasted ``unavailable_for`` seconds."""
        now = self.clock()
        if self.since is None:
            self.since = now
        if now - self.since >= self.policy.unavailable_for:
            last = error.message if error is not None else what
            kind = StreamLost if self.stream else Unavailable
            raise kind(
                self.name,
                grpc.StatusCode.UNAVAILABLE,
                f"the service could not be reached for {now - self.since:.0f} s "
                f"({self.unavailable} retries; RetryPolicy.unavailable_for is "
                f"{self.policy.unavailable_for:g} s); last: {last}",
                error.reason if error is not None else None,
            ) from error
        self.unavailable += 1
        if self.stats is not None:
            self.stats.unavailable += 1
        return backoff(self.unavailable, self.policy)


def call(
    name: str,
    attempt: Callable[[], T],
    policy: RetryPolicy,
    *,
    safe: bool,
    stats: Optional[CallStats] = None,
    sleep: Callable[[float], Any] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Runs ``attempt`` under the retry policy; ``safe``: it may be repeated on UNAVAILABLE."""
    retrying = Retrying(name, policy, safe=safe, stats=stats, clock=clock)
    while True:
        try:
            return attempt()
        except grpc.RpcError as raw:
            error = to_error(name, raw)
        sleep(retrying.wait_after(error))


async def acall(
    name: str,
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    safe: bool,
    stats: Optional[CallStats] = None,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """``call`` for asyncio: awaits ``attempt()`` under the retry policy."""
    retrying = Retrying(name, policy, safe=safe, stats=stats, clock=clock)
    while True:
        try:
            return await attempt()
        except grpc.RpcError as raw:
            error = to_error(name, raw)
        await asyncio.sleep(retrying.wait_after(error))
