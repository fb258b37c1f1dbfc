"""Shared fixtures: real models loaded once per session, data isolated per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
KNOWLEDGE = REPO / "knowledge"
SHARED_EVAL = REPO.parent / "shared" / "eval"


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real packaged all-MiniLM-L6-v2, on CPU, loaded once."""
    from app.embedding.factory import build_embedder
    from app.settings import Settings

    return build_embedder(Settings(embed_device="cpu"))


@pytest.fixture
def settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Settings reading the bundled knowledge base and writing under a fresh temporary folder."""
    from app.settings import Settings

    return Settings(knowledge_dir=KNOWLEDGE, data_dir=tmp_path / "data", embed_device="cpu")


@pytest.fixture
def knowledge_copy(tmp_path: Path) -> Iterator[Path]:
    """A writable copy of the bundled knowledge base."""
    import shutil

    target = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, target)
    yield target
