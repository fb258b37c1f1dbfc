"""GPU benchmark: embedding throughput, exact search and generation with and without batching.

Self-contained for a bare CUDA machine that has torch, sentence-transformers and transformers:
it reads only its kit (made by `pack.py`: the fp16 embedder, the generator's configuration, the
shop's passages), installs nothing and needs no network. Without CUDA it runs on the CPU with
smaller sizes. Prints a table and writes JSON.

    python -m bench.gpu [--out gpu-bench.json] [--quick]   # or, in a copy of this folder:
    python gpu_bench.py [--out gpu-bench.json] [--quick]

1. Embedding: the shop's passages, repeated, embedded at several batch sizes (fp16 on CUDA).
2. Exact search: inner product of query batches against a corpus of normalised vectors, top 10,
   as one matrix product on the device (what a flat index does); agreement with a float32 CPU
   search is reported.
3. Generation: the generator's architecture (random weights, so answers never stop early),
   Hugging Face `generate`: N requests one after another vs the same N in one batch.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

KIT = Path(__file__).resolve().parent / "kit"
SIZES = {  # per device: what fits the 10-minute budget with room to spare
    "cuda": {
        "embed_texts": 50_000,
        "embed_batches": [32, 128, 512, 2048],
        "corpus": 1_000_000,
        "query_batches": [1, 64, 1024],
        "prompt": 512,
        "new_tokens": 128,
        "gen_batches": [8, 32],
    },
    "cpu": {
        "embed_texts": 320,
        "embed_batches": [8, 32, 128],
        "corpus": 50_000,
        "query_batches": [1, 64],
        "prompt": 64,
        "new_tokens": 16,
        "gen_batches": [4],
    },
    "quick": {
        "embed_texts": 64,
        "embed_batches": [8, 32],
        "corpus": 5_000,
        "query_batches": [1, 16],
        "prompt": 16,
        "new_tokens": 4,
        "gen_batches": [2],
    },
}
TOP_K = 10


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed(device: str, work: Callable[[], Any]) -> tuple[float, Any]:
    synchronize(device)
    started = time.perf_counter()
    result = work()
    synchronize(device)
    return time.perf_counter() - started, result


def embedding(kit: Path, device: str, sizes: dict[str, Any]) -> list[dict[str, Any]]:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(kit / "embedder"), device=device)
    model = model.half() if device.startswith("cuda") else model.float()
    lines = (kit / "passages.jsonl").read_text(encoding="utf-8").splitlines()
    passages = [json.loads(line)["text"] for line in lines if line.strip()]
    texts = (passages * (sizes["embed_texts"] // len(passages) + 1))[: sizes["embed_texts"]]
    model.encode(texts[:64], batch_size=32)  # warm up: kernels, allocator
    rows = []
    for batch in sizes["embed_batches"]:
        seconds, _ = timed(
            device,
            partial(
                model.encode,
                texts,
                batch_size=batch,
                normalize_embeddings=True,
                convert_to_tensor=True,
                show_progress_bar=False,
            ),
        )
        rows.append(
            {
                "batch": batch,
                "texts": len(texts),
                "seconds": round(seconds, 3),
                "texts_per_s": round(len(texts) / seconds, 1),
            }
        )
    return rows


def exact_search(device: str, sizes: dict[str, Any], dim: int = 384) -> dict[str, Any]:
    dtype = torch.float16 if device.startswith("cuda") else torch.float32
    generator = torch.Generator().manual_seed(0)
    corpus = torch.nn.functional.normalize(torch.randn(sizes["corpus"], dim, generator=generator))
    queries = torch.nn.functional.normalize(
        torch.randn(max(sizes["query_batches"]), dim, generator=generator)
    )
    on_device = corpus.to(device, dtype)

    def search(batch: torch.Tensor) -> torch.Tensor:
        return torch.topk(batch.to(device, dtype) @ on_device.T, TOP_K, dim=1).indices

    def repeated(batch: int, repeats: int) -> None:
        for _ in range(repeats):
            search(queries[:batch])

    search(queries[:1])  # warm up
    rows = []
    for batch in sizes["query_batches"]:
        repeats = max(1, 256 // batch)
        seconds, _ = timed(device, partial(repeated, batch, repeats))
        rows.append(
            {
                "queries": batch,
                "latency_ms": round(seconds / repeats * 1000, 3),
                "queries_per_s": round(batch * repeats / seconds, 1),
            }
        )
    check = queries[:16]
    exact = np.argsort(-(check.numpy() @ corpus.numpy().T), axis=1)[:, :TOP_K]
    found = search(check).cpu().numpy()
    agreement = float(
        np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(exact, found, strict=True)])
    )
    return {
        "corpus": sizes["corpus"],
        "dimension": dim,
        "dtype": str(dtype).split(".")[-1],
        "top_k": TOP_K,
        "rows": rows,
        "recall_vs_float32_cpu": round(agreement, 4),
    }


def generation(kit: Path, device: str, sizes: dict[str, Any]) -> dict[str, Any]:
    from transformers import LlamaConfig, LlamaForCausalLM

    shape = json.loads((kit / "generator.json").read_text())
    name = shape.pop("name", "generator")
    torch.manual_seed(0)
    dtype = torch.float16 if device.startswith("cuda") else torch.float32
    model: Any = LlamaForCausalLM(LlamaConfig(**shape))  # Any: transformers types `.to` badly
    model = model.to(device, dtype).eval()
    prompt, new = sizes["prompt"], sizes["new_tokens"]

    def generate(batch: int) -> None:
        ids = torch.randint(3, shape["vocab_size"], (batch, prompt), device=device)
        with torch.inference_mode():
            model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=new,
                min_new_tokens=new,
                do_sample=False,
                pad_token_id=0,
            )

    def one_at_a_time(requests: int) -> None:
        for _ in range(requests):
            generate(1)

    generate(1)  # warm up
    rows = []
    for batch in sizes["gen_batches"]:
        alone, _ = timed(device, partial(one_at_a_time, batch))
        together, _ = timed(device, partial(generate, batch))
        tokens = batch * new
        rows.append(
            {
                "requests": batch,
                "one_at_a_time_tokens_per_s": round(tokens / alone, 1),
                "batched_tokens_per_s": round(tokens / together, 1),
                "speedup": round(alone / together, 2),
                "one_at_a_time_s": round(alone, 3),
                "batched_s": round(together, 3),
            }
        )
    return {
        "model_shape": name,
        "weights": "random (timing only)",
        "dtype": str(dtype)[6:],
        "prompt_tokens": prompt,
        "new_tokens": new,
        "rows": rows,
    }


def machine(device: str) -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": device,
    }
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        info.update(
            gpu=props.name,
            gpu_memory_gib=round(props.total_memory / 2**30, 1),
            cuda=torch.version.cuda,
        )
    return info


def report(result: dict[str, Any]) -> None:
    print(f"\n{result['machine']}")
    print(f"\n{'embedding batch':>16}{'texts':>9}{'seconds':>10}{'texts/s':>12}")
    for r in result["embedding"]:
        print(f"{r['batch']:>16}{r['texts']:>9}{r['seconds']:>10.2f}{r['texts_per_s']:>12,.0f}")
    search = result["exact_search"]
    print(
        f"\nexact search, {search['corpus']:,} x {search['dimension']} {search['dtype']}, "
        f"top {search['top_k']} (recall vs float32 CPU {search['recall_vs_float32_cpu']})"
    )
    print(f"{'queries/batch':>16}{'latency ms':>12}{'queries/s':>12}")
    for r in search["rows"]:
        print(f"{r['queries']:>16}{r['latency_ms']:>12.2f}{r['queries_per_s']:>12,.0f}")
    gen = result["generation"]
    print(
        f"\ngeneration, {gen['model_shape']} shape ({gen['weights']}), {gen['dtype']}, "
        f"{gen['prompt_tokens']} prompt + {gen['new_tokens']} new tokens per request"
    )
    print(f"{'requests':>16}{'alone tok/s':>13}{'batched tok/s':>15}{'speed-up':>10}")
    for r in gen["rows"]:
        print(
            f"{r['requests']:>16}{r['one_at_a_time_tokens_per_s']:>13,.1f}"
            f"{r['batched_tokens_per_s']:>15,.1f}{r['speedup']:>9.2f}x"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kit", type=Path, default=KIT)
    parser.add_argument("--out", type=Path, default=Path("gpu-bench.json"))
    parser.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a check, not figures)")
    args = parser.parse_args(argv)
    if not (args.kit / "embedder").is_dir():
        print(
            f"gpu_bench: no kit at {args.kit}; run python -m bench.gpu.pack first", file=sys.stderr
        )
        return 2
    device = "cuda" if args.device == "auto" and torch.cuda.is_available() else args.device
    device = "cpu" if device == "auto" else device
    sizes = SIZES["quick" if args.quick else device]
    started = time.perf_counter()
    result: dict[str, Any] = {"machine": machine(device), "sizes": sizes}
    for section, run in (
        ("embedding", lambda: embedding(args.kit, device, sizes)),
        ("exact_search", lambda: exact_search(device, sizes)),
        ("generation", lambda: generation(args.kit, device, sizes)),
    ):
        print(f"running {section} on {device} ...", flush=True)
        result[section] = run()
    result["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    report(result)
    print(f"\nwritten to {args.out} ({result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
