"""Per-client token buckets, failure lock-outs and the address they are keyed by."""

from __future__ import annotations

from starlette.requests import Request

from app.traffic.guards import client_address, retry_after
from app.traffic.ratelimit import FailureLockout, TokenBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=7.5, burst=3, clock=clock)  # one token every 8 s
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == 8.0
    assert buckets.take("b") == 0.0  # another client has its own bucket
    clock.now += 2
    assert buckets.take("a") == 6.0  # a refused try spends nothing
    clock.now += 6
    assert buckets.take("a") == 0.0
    clock.now += 3600
    assert [buckets.take("a") for _ in range(4)][-1] > 0  # refills to the burst, no further


def test_a_zero_rate_is_no_limit() -> None:
    buckets = TokenBuckets(per_minute=0, burst=1)
    assert not buckets.enabled
    assert all(buckets.take("a") == 0.0 for _ in range(1000))


def test_buckets_forget_the_least_recent_client_beyond_their_capacity() -> None:
    clock = Clock()
    buckets = TokenBuckets(per_minute=1, burst=1, max_keys=100, clock=clock)
    for n in range(1000):
        buckets.take(f"10.0.{n // 256}.{n % 256}")
    assert len(buckets._buckets) == 100
    assert buckets.take("10.0.3.231") > 0  # among the last hundred: still remembered
    assert buckets.take("10.0.0.0") == 0.0  # long forgotten: a fresh bucket


def test_a_lockout_starts_at_the_nth_failure_and_lifts_with_the_window() -> None:
    clock = Clock()
    lockout = FailureLockout(max_failures=3, window_s=900, clock=clock)
    for _ in range(2):
        lockout.fail("user:staff", "client:1.2.3.4")
        clock.now += 100
    assert lockout.retry_after("user:staff") == 0.0
    lockout.fail("user:staff", "client:1.2.3.4")
    assert lockout.retry_after("user:staff") == 700.0  # the first failure was 200 s ago
    assert lockout.retry_after("client:1.2.3.4", "user:staff") == 700.0
    assert lockout.retry_after("client:5.6.7.8") == 0.0
    clock.now += 700
    assert lockout.retry_after("user:staff") == 0.0


def test_old_failures_do_not_count_and_success_clears() -> None:
    clock = Clock()
    lockout = FailureLockout(max_failures=2, window_s=60, clock=clock)
    lockout.fail("k")
    clock.now += 61
    lockout.fail("k")
    assert lockout.retry_after("k") == 0.0
    lockout.fail("k")
    assert lockout.retry_after("k") > 0
    lockout.clear("k")
    assert lockout.retry_after("k") == 0.0


def test_a_lockout_remembers_a_bounded_number_of_clients() -> None:
    lockout = FailureLockout(max_failures=1, window_s=60, max_keys=10)
    for n in range(500):
        lockout.fail(f"client:{n}")
    assert len(lockout._failures) == 10


def _request(peer: str, forwarded: list[str]) -> Request:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    return Request({"type": "http", "client": (peer, 5000), "headers": headers})


def test_the_client_is_the_peer_unless_proxies_are_trusted() -> None:
    spoofed = _request("203.0.113.9", ["1.1.1.1"])
    assert client_address(spoofed, proxy_hops=0) == "203.0.113.9"
    behind_one = _request("10.0.0.2", ["1.1.1.1, 198.51.100.7"])  # the client forged 1.1.1.1
    assert client_address(behind_one, proxy_hops=1) == "198.51.100.7"
    behind_two = _request("10.0.0.2", ["198.51.100.7", "10.0.0.1"])
    assert client_address(behind_two, proxy_hops=2) == "198.51.100.7"
    assert client_address(_request("10.0.0.2", []), proxy_hops=1) == "10.0.0.2"
    huge = _request("10.0.0.2", ["x" * 5000])
    assert len(client_address(huge, proxy_hops=1)) == 64


def test_retry_after_is_whole_seconds_and_never_zero() -> None:
    assert retry_after(0.2) == {"Retry-After": "1"}
    assert retry_after(10.0) == {"Retry-After": "10"}
    assert retry_after(10.01) == {"Retry-After": "11"}
