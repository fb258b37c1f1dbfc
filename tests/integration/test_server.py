"""The service over HTTP: health, readiness before and after a publish, passage search."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.server import create_app
from app.settings import Settings
from ingest.pipeline import run_ingest


def test_ready_only_once_an_index_is_published(settings: Settings, embedder) -> None:  # type: ignore[no-untyped-def]
    settings = settings.model_copy(update={"index_poll_seconds": 0.0})
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        not_ready = client.get("/readyz")
        assert not_ready.status_code == 503
        assert "python -m ingest" in not_ready.json()["detail"]

        version = run_ingest(settings, embedder).version_id
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["index_version"] == version
        assert ready.json()["engine"].startswith("vllm:")

        found = client.get("/api/search", params={"q": "Do you offer a student discount?", "k": 3})
        assert found.status_code == 200
        hits = found.json()["hits"]
        assert len(hits) == 3 and hits[0]["score"] >= hits[-1]["score"]
        assert all(h["citation"] for h in hits)

        assert client.get("/api/search", params={"q": "   "}).status_code == 422
        assert client.get("/api/search", params={"q": "x", "k": 500}).status_code == 422
