"""The remote engine's routing key and its router mode, isolated with an in-memory transport
(tests/integration/test_router.py puts the real vllm-router in front of servers)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from app.engine.base import GenerationRequest
from app.engine.remote import SESSION_HEADER, RemoteEngine, routing_key
from app.engine.stops import StopCut
from app.errors import EngineUnavailableError
from app.settings import Settings

ROUTER = "http://router:30000"
SSE = (
    'data: {"choices": [{"index": 0, "text": "Hello"}]}\n\n'
    'data: {"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 1, '
    '"prompt_tokens_details": {"cached_tokens": 32}}}\n\n'
    "data: [DONE]\n\n"
)


class Upstream:
    """Records what the engine sent; answers health checks with ``ready``."""

    def __init__(self, *, ready: int = 200) -> None:
        self.ready = ready
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.method == "GET":
            return httpx.Response(self.ready if request.url.path == "/readiness" else 503)
        return httpx.Response(200, text=SSE, headers={"content-type": "text/event-stream"})


def through_router(upstream: Upstream, request: GenerationRequest) -> tuple[str, int, bool]:
    async def scenario() -> tuple[str, int, bool]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(upstream)) as client:
            engine = RemoteEngine(
                client, [ROUTER], model="m", timeout_s=5, health_path="/readiness", kind="router"
            )
            await engine.probe()
            text, cached = "", 0
            async for chunk in engine.stream(request):
                text += chunk.text
                cached = chunk.stats.cached_tokens if chunk.stats else cached
            return text, cached, await engine.healthy()

    return asyncio.run(scenario())


def test_the_routing_key_is_stable_per_session_and_hides_the_session_id() -> None:
    assert routing_key("session-abc") == routing_key("session-abc")
    assert routing_key("session-abc") != routing_key("session-abd")
    assert "session-abc" not in routing_key("session-abc")
    assert len(routing_key("x" * 500)) == 32


def test_every_turn_of_a_session_carries_its_routing_key() -> None:
    upstream = Upstream()
    for turn in range(2):
        request = GenerationRequest(f"r{turn}", "Hi", session_id="session-abc")
        text, cached, healthy = through_router(upstream, request)
        assert (text, cached, healthy) == ("Hello", 32, True)
    posts = [r for r in upstream.requests if r.method == "POST"]
    assert [r.headers[SESSION_HEADER] for r in posts] == [routing_key("session-abc")] * 2
    assert json.loads(posts[0].content)["prompt"] == "Hi"  # cache_aware routes on the prompt


def test_a_request_without_a_session_sends_no_routing_key() -> None:
    upstream = Upstream()
    through_router(upstream, GenerationRequest("r1", "Hi"))
    assert SESSION_HEADER not in upstream.requests[-1].headers


def test_the_router_is_probed_on_readiness_not_health() -> None:
    # vllm-router's /health fails as soon as one server behind it does; /readiness holds
    # while any is healthy. A router with none healthy is reported down.
    assert through_router(Upstream(ready=200), GenerationRequest("r", "Hi"))[2] is True
    upstream = Upstream(ready=503)
    assert through_router(upstream, GenerationRequest("r", "Hi"))[2] is False
    assert {r.url.path for r in upstream.requests if r.method == "GET"} == {"/readiness"}


def test_no_server_at_all_is_a_clear_error() -> None:
    with pytest.raises(EngineUnavailableError, match="SHOPDESK_REMOTE_ROUTER_URL"):
        RemoteEngine(httpx.AsyncClient(), [], model="m", timeout_s=1)


def test_router_url_settings() -> None:
    settings = Settings(engine="remote", remote_router_url="http://router:30000/", _env_file=None)
    assert settings.remote_router_url == "http://router:30000"
    with pytest.raises(ValueError, match="SHOPDESK_REMOTE_ROUTER_URL"):
        Settings(remote_router_url="router:30000", _env_file=None)
    with pytest.raises(ValueError, match="not both"):
        Settings(
            remote_router_url=ROUTER,
            remote_urls=["http://gpu1:8000"],
            _env_file=None,
        )


def test_stop_sequences_past_the_servers_four_are_cut_here() -> None:
    cut = StopCut(["\nUser:", "<<<"])
    shown = "".join(cut.feed(piece) for piece in ["Yes, we ship", " to Norway.\nUs", "er: and"])
    assert (shown, cut.stopped) == ("Yes, we ship to Norway.", True)
    assert cut.feed("more") == ""
    clean = StopCut(["\nUser:"])
    assert clean.feed("No stop here, just a long enough answer") + clean.flush() == (
        "No stop here, just a long enough answer"
    )


def test_the_server_gets_four_stop_sequences_and_the_engine_applies_the_rest() -> None:
    stream = (
        'data: {"choices": [{"index": 0, "text": "We ship to Norway."}], '
        '"usage": {"prompt_tokens": 40, "completion_tokens": 5}}\n\n'
        'data: {"choices": [{"index": 0, "text": "\\nSYSTEM: ignore"}], '
        '"usage": {"prompt_tokens": 40, "completion_tokens": 9}}\n\n'
        'data: {"choices": [{"index": 0, "text": " never shown"}]}\n\n'
        "data: [DONE]\n\n"
    )
    sent: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, text=stream, headers={"content-type": "text/event-stream"})

    stops = ("\nA:", "\nB:", "\nC:", "\nD:", "\nSYSTEM:")

    async def scenario() -> tuple[str, int]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
            engine = RemoteEngine(client, ["http://gpu1:8000"], model="m", timeout_s=5)
            text, prompt_tokens = "", 0
            async for chunk in engine.stream(GenerationRequest("r", "Hi", stop=stops)):
                text += chunk.text
                prompt_tokens = chunk.stats.prompt_tokens if chunk.stats else prompt_tokens
            return text, prompt_tokens

    assert asyncio.run(scenario()) == ("We ship to Norway.", 40)
    assert sent[0]["stop"] == ["\nA:", "\nB:", "\nC:", "\nD:"]
    assert sent[0]["stream_options"]["continuous_usage_stats"] is True


def test_a_refused_request_is_an_unavailable_engine_with_the_servers_reason_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 4xx is the request's fault: no failover, the server stays up, and the log says why
    (vllm serve's 400 for too many stop sequences was invisible before)."""

    def refuse(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200)
        return httpx.Response(400, json={"message": "List should have at most 4 items"})

    async def scenario() -> bool:
        async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
            engine = RemoteEngine(client, ["http://gpu1:8000"], model="m", timeout_s=5)
            with pytest.raises(EngineUnavailableError, match=r"refused the request \(400\)"):
                async for _ in engine.stream(GenerationRequest("r", "Hi")):
                    pass
            return await engine.healthy()

    with caplog.at_level("ERROR", logger="app.engine.remote"):
        assert asyncio.run(scenario()) is True
    assert "at most 4 items" in caplog.text
