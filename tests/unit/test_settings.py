from __future__ import annotations

from pathlib import Path

import pytest

from app.settings import Settings
from tests.conftest import REPO


def test_defaults_run_on_a_laptop() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.embed_device == "auto" and settings.index_kind == "auto"
    assert settings.index_dir == Path("var") / "index"


def test_environment_overrides_with_one_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOPDESK_CHUNK_TOKENS", "300")
    monkeypatch.setenv("SHOPDESK_INDEX_KIND", "hnsw")
    settings = Settings()
    assert settings.chunk_tokens == 300 and settings.index_kind == "hnsw"


def test_inconsistent_chunking_is_refused_with_the_variable_named() -> None:
    with pytest.raises(ValueError, match="SHOPDESK_CHUNK_OVERLAP_TOKENS"):
        Settings(chunk_tokens=100, chunk_overlap_tokens=60)


def test_readme_and_env_example_list_every_setting() -> None:
    import subprocess
    import sys

    check = subprocess.run(
        [sys.executable, "-m", "devtools.settings_table", "--check"], cwd=REPO, capture_output=True
    )
    assert check.returncode == 0, check.stdout.decode()
    example = (REPO / ".env.example").read_text()
    for name in Settings.model_fields:
        assert f"SHOPDESK_{name.upper()}=" in example, name
