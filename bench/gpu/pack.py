"""Pack what the GPU benchmark needs into its folder: the embedder in fp16, a generator's shape,
and the shop's passages as text to embed. Run here, once, before carrying the folder to a GPU box.

    .venv/bin/python -m bench.gpu.pack [--into bench/gpu/kit]

The kit (about 45 MiB, git-ignored) is all `gpu_bench.py` reads: no shopdesk code, no network.
The generator's weights (270 MB) do not fit the 64 MiB the kit may take, so only its
configuration travels; generation is timed on that architecture with random weights.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KIT = Path(__file__).resolve().parent / "kit"
LIMIT_BYTES = 64 * 2**20  # code and kit together
# The generator's architecture: what decides the cost of generating, whatever the weights.
GENERATOR_FIELDS = (
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "max_position_embeddings",
    "rms_norm_eps",
    "tie_word_embeddings",
    "hidden_act",
    "bos_token_id",
    "eos_token_id",
)


def pack(into: Path) -> int:
    """Write the kit into ``into`` (replacing it); returns the folder's size with the code."""
    from sentence_transformers import SentenceTransformer

    from app.embedding.factory import build_embedder
    from app.modelstore import resolve_embedder, resolve_generator
    from app.settings import Settings
    from ingest.chunking import ChunkingPolicy, chunk_documents
    from ingest.pipeline import IngestReport, load_documents

    settings = Settings(knowledge_dir=REPO / "knowledge", embed_device="cpu")
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    embedder = SentenceTransformer(str(resolve_embedder(settings.embedder_model)), device="cpu")
    embedder.half().save(str(into / "embedder"))

    generator = json.loads(
        (
            Path(resolve_generator(settings.generator_model, settings.model_cache_dir))
            / "config.json"
        ).read_text()
    )
    shape = {k: generator[k] for k in GENERATOR_FIELDS if k in generator}
    rope = generator.get("rope_theta") or generator.get("rope_parameters", {}).get("rope_theta")
    shape["rope_theta"] = rope or 10000.0
    shape["name"] = settings.generator_model.removeprefix("packaged:")
    (into / "generator.json").write_text(json.dumps(shape, indent=2))

    counter = build_embedder(settings)
    documents = load_documents(settings, IngestReport())
    policy = ChunkingPolicy(settings.chunk_tokens, settings.chunk_overlap_tokens)
    passages = chunk_documents(documents, lambda t: counter.count_tokens([t])[0], policy)
    with (into / "passages.jsonl").open("w", encoding="utf-8") as handle:
        for passage in passages:
            handle.write(json.dumps({"text": passage.embed_text}, ensure_ascii=False) + "\n")
    return folder_bytes(into) + code_bytes()


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def code_bytes() -> int:
    return sum(p.stat().st_size for p in Path(__file__).resolve().parent.glob("*.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--into", type=Path, default=KIT)
    args = parser.parse_args()
    size = pack(args.into)
    print(f"packed {args.into}: {size / 2**20:.1f} MiB with the code (limit 64 MiB)")
    if size > LIMIT_BYTES:
        print("gpu_bench: the kit is over 64 MiB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
