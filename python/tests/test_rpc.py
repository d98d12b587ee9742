"""The client's retry policy, call by call, with scripted failures (no server)."""

from __future__ import annotations

from typing import Optional

import grpc
import pytest
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from theboss.client import _rpc
from theboss.client._rpc import CallStats, RetryPolicy
from theboss.errors import FailedPrecondition, ResourceExhausted, Unavailable


class Scripted(grpc.RpcError, grpc.Call):
    """A failed call as grpcio raises it, with rich details in its trailers."""

    def __init__(self, code: grpc.StatusCode, message: str, *details) -> None:
        self._code, self._message = code, message
        status = status_pb2.Status(code=code.value[0], message=message)
        for detail in details:
            packed = any_pb2.Any()
            packed.Pack(detail)
            status.details.append(packed)
        self._trailers = (("grpc-status-details-bin", status.SerializeToString()),)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def trailing_metadata(self):
        return self._trailers

    def initial_metadata(self):
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> Optional[float]:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback) -> bool:
        return False


def throttled(seconds: float) -> Scripted:
    return Scripted(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "too many calls",
        error_details_pb2.ErrorInfo(reason="RATE_LIMITED", domain="theboss.v1"),
        error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(nanos=int(seconds * 1e9))),
    )


def script(*outcomes):
    """An attempt that fails with each scripted error in turn, then answers "ok"."""
    remaining = list(outcomes)

    def attempt():
        if remaining:
            raise remaining.pop(0)
        return "ok"

    return attempt


def test_a_throttled_call_waits_as_retry_info_says_and_succeeds() -> None:
    slept: list[float] = []
    stats = CallStats()
    result = _rpc.call("X", script(throttled(0.25), throttled(0.5)), RetryPolicy(), safe=False, stats=stats, sleep=slept.append)
    assert result == "ok" and stats.throttled == 2
    assert 0.25 <= slept[0] < 0.3 and 0.5 <= slept[1] < 0.6


def test_throttling_gives_up_after_the_policys_retries() -> None:
    policy = RetryPolicy(throttled_retries=2)
    with pytest.raises(ResourceExhausted) as e:
        _rpc.call("X", script(*[throttled(0.1)] * 3), policy, safe=True, sleep=lambda s: None)
    assert e.value.reason == "RATE_LIMITED" and e.value.retry_after == pytest.approx(0.1)


def test_a_limit_without_retry_info_is_raised_at_once() -> None:
    limit = Scripted(
        grpc.StatusCode.RESOURCE_EXHAUSTED, "too many open games",
        error_details_pb2.ErrorInfo(reason="TOO_MANY_OPEN_GAMES"),
    )
    with pytest.raises(ResourceExhausted) as e:
        _rpc.call("CreateGame", script(limit), RetryPolicy(), safe=True, sleep=pytest.fail)
    assert e.value.reason == "TOO_MANY_OPEN_GAMES" and e.value.retry_after is None


def test_unavailable_is_retried_only_when_the_call_is_safe() -> None:
    down = Scripted(grpc.StatusCode.UNAVAILABLE, "connection refused")
    stats = CallStats()
    assert _rpc.call("GetView", script(down, down), RetryPolicy(), safe=True, stats=stats, sleep=lambda s: None) == "ok"
    assert stats.unavailable == 2
    with pytest.raises(Unavailable):
        _rpc.call("CreateGame", script(down), RetryPolicy(), safe=False, sleep=pytest.fail)


def test_unavailable_gives_up_after_the_policys_time() -> None:
    down = Scripted(grpc.StatusCode.UNAVAILABLE, "connection refused")
    with pytest.raises(Unavailable):
        _rpc.call("GetView", script(*[down] * 1000), RetryPolicy(unavailable_for=0.0), safe=True, sleep=lambda s: None)


def test_a_refusal_carries_its_reason_and_is_not_retried() -> None:
    refused = Scripted(
        grpc.StatusCode.FAILED_PRECONDITION, "you need at least 2 gangsters",
        error_details_pb2.ErrorInfo(reason="STRICT_LEAD", domain="theboss.v1"),
    )
    with pytest.raises(FailedPrecondition) as e:
        _rpc.call("SubmitAction", script(refused), RetryPolicy(), safe=True, sleep=pytest.fail)
    assert e.value.reason == "STRICT_LEAD" and e.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "SubmitAction: FAILED_PRECONDITION [STRICT_LEAD]" in str(e.value)


def test_status_details_that_do_not_parse_still_give_the_error() -> None:
    broken = Scripted(grpc.StatusCode.INTERNAL, "boom")
    broken._trailers = (("grpc-status-details-bin", b"\xff\x00garbage"),)
    error = _rpc.to_error("X", broken)
    assert error.code == grpc.StatusCode.INTERNAL and error.reason is None
    assert code_pb2.INTERNAL == grpc.StatusCode.INTERNAL.value[0]
