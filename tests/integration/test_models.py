"""Models come from PyPI packages: the embedder found in place, the generator converted once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.errors import ModelUnavailableError
from app.modelstore import MANIFEST_NAME, RECIPE, ensure_generator, resolve_embedder, verify_folder
from app.settings import Settings


def test_packaged_embedder_is_a_sentence_transformers_folder() -> None:
    folder = resolve_embedder("packaged:all-MiniLM-L6-v2")
    assert (folder / "config.json").exists() and (folder / "modules.json").exists()


def test_default_generator_is_converted_and_verifies(tmp_path: Path) -> None:
    settings = Settings()
    folder = ensure_generator(settings.generator_model, settings.model_cache_dir)
    assert folder is not None
    manifest = verify_folder(folder, checksums=True)
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "llama" and "quantization_config" not in config
    assert "model.safetensors" in manifest["files"]
    assert (folder / "tokenizer.json").exists()
    # a second call finds it and does nothing
    assert ensure_generator(settings.generator_model, settings.model_cache_dir) == folder


def test_damaged_model_folder_is_detected(tmp_path: Path) -> None:
    (tmp_path / "weights.bin").write_bytes(b"12345")
    manifest = {"recipe": RECIPE, "files": {"weights.bin": {"bytes": 10, "sha256": "0" * 64}}}
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(manifest))
    with pytest.raises(ModelUnavailableError, match="truncated"):
        verify_folder(tmp_path)
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({**manifest, "recipe": RECIPE - 1}))
    with pytest.raises(ModelUnavailableError, match="older recipe"):
        verify_folder(tmp_path)
    with pytest.raises(ModelUnavailableError, match="not been converted"):
        verify_folder(tmp_path / "nothing-here")


def test_unknown_or_wrong_models_say_what_to_set(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="known: all-MiniLM-L6-v2"):
        resolve_embedder("packaged:bert-huge")
    with pytest.raises(ModelUnavailableError, match="SHOPDESK_EMBEDDER_MODEL"):
        resolve_embedder(str(tmp_path))
