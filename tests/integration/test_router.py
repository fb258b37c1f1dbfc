"""The real vllm-router (the `fleet` extra) in front of two OpenAI-completions test doubles, driven
by the app's router engine: the doubles isolate the router's choices from vLLM itself (the bench
`python -m bench.router` runs it in front of real `vllm serve` processes)."""

from __future__ import annotations

import itertools
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from anyio.from_thread import BlockingPortal

from app.engine.base import GenerationRequest
from app.engine.remote import SESSION_HEADER, router_engine, routing_key

ROUTER_BIN = shutil.which("vllm-router", path=str(Path(sys.executable).parent)) or shutil.which(
    "vllm-router"
)
pytestmark = pytest.mark.skipif(
    ROUTER_BIN is None,
    reason="vllm-router is not installed (the `fleet` extra; scripts/setup.sh installs it)",
)


MODELS = b'{"object": "list", "data": [{"id": "m"}]}'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CompletionsDouble:
    """An OpenAI-compatible server that streams its own name as the answer and records the
    routing key of every completion it was sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.keys: list[str | None] = []
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path in ("/health", "/v1/models"):
                    self._send(
                        200, b'{"object": "list", "data": [{"id": "m"}]}', "application/json"
                    )
                else:
                    self._send(404, b"{}", "application/json")

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if self.path != "/v1/completions":
                    self._send(404, b"{}", "application/json")
                    return
                double.keys.append(self.headers.get(SESSION_HEADER))
                usage = {"prompt_tokens": len(body["prompt"].split()), "completion_tokens": 1}
                events = [{"choices": [{"index": 0, "text": double.name}]}, {"usage": usage}]
                text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                self._send(200, text.encode(), "text/event-stream")

            def _send(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def doubles() -> Iterator[list[CompletionsDouble]]:
    servers = [CompletionsDouble("A"), CompletionsDouble("B")]
    yield servers
    for double in servers:
        double.server.shutdown()
        double.server.server_close()


def start_router(
    policy: str, doubles: list[CompletionsDouble], log_dir: Path
) -> tuple[subprocess.Popen[bytes], str]:
    assert ROUTER_BIN is not None
    port = free_port()
    command = [
        ROUTER_BIN, "--host", "127.0.0.1", "--port", str(port), "--policy", policy,
        "--worker-urls", *(d.url for d in doubles),
        "--prometheus-port", str(free_port()), "--log-level", "warning",
    ]  # fmt: skip
    log = (log_dir / f"router-{policy}.log").open("wb")
    router = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if router.poll() is not None:
            raise AssertionError(f"vllm-router exited ({router.returncode}); see {log.name}")
        try:
            if httpx.get(f"{url}/readiness", timeout=2).status_code == 200:
                return router, url
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            router.kill()
            raise AssertionError(f"vllm-router was not ready in 30 s; see {log.name}")
        time.sleep(0.2)


@pytest.fixture
def router(
    request: pytest.FixtureRequest, doubles: list[CompletionsDouble], tmp_path: Path
) -> Iterator[str]:
    for double in doubles:
        double.keys.clear()
    process, url = start_router(request.param, doubles, tmp_path)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def answered_by(portal: BlockingPortal, url: str, turns: list[tuple[str, str]]) -> list[str]:
    """Send each (session, prompt) in order through the app's router engine; which double
    answered each."""

    async def run() -> list[str]:
        answers = []
        async with router_engine(url, model="m", probe_every_s=3600) as engine:
            assert await engine.healthy()
            for number, (session, prompt) in enumerate(turns):
                request = GenerationRequest(f"r{number}", prompt, session_id=session)
                answers.append("".join([c.text async for c in engine.stream(request)]))
        return answers

    return portal.call(run)


@pytest.mark.parametrize("router", ["consistent_hash"], indirect=True)
def test_session_hash_keeps_each_conversation_on_one_server(
    portal: BlockingPortal, router: str, doubles: list[CompletionsDouble]
) -> None:
    sessions = [f"session-{n}" for n in range(8)]
    turns = [(s, f"turn {t} of a conversation") for t in range(3) for s in sessions]
    answers = answered_by(portal, router, turns)
    by_session: dict[str, set[str]] = {}
    for (session, _), server in zip(turns, answers, strict=True):
        by_session.setdefault(session, set()).add(server)
    assert all(len(servers) == 1 for servers in by_session.values()), by_session
    assert set().union(*by_session.values()) == {"A", "B"}  # the sessions are spread
    # what decided it: the routing key the app sent, never the session id itself
    seen = {key for double in doubles for key in double.keys}
    assert seen == {routing_key(s) for s in sessions}


@pytest.mark.parametrize("router", ["round_robin"], indirect=True)
def test_round_robin_spreads_one_conversation_over_both_servers(
    portal: BlockingPortal, router: str
) -> None:
    answers = answered_by(portal, router, [("session-0", f"turn {t}") for t in range(6)])
    assert sorted(answers) == ["A", "A", "A", "B", "B", "B"]
    assert all(a != b for a, b in itertools.pairwise(answers)), answers
