"""The GPU benchmark, packed from the real packaged embedder and run on the CPU at tiny sizes.

The figures of a CPU run mean nothing; what this proves is that the kit fits its 64 MiB, that the
script needs nothing from shopdesk (only what a bare CUDA machine has) and runs end to end from a
copy of its folder, writing the JSON and the table. The GPU figures come from running it on one:
docs/PERFORMANCE.md says how.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

GPU_BENCH = REPO / "bench" / "gpu"
# What a bare CUDA machine has: the standard library, torch (with numpy), the two model libraries.
ALLOWED = set(sys.stdlib_module_names) | {"numpy", "torch", "sentence_transformers", "transformers"}


def test_the_benchmark_imports_only_what_a_bare_cuda_machine_has() -> None:
    tree = ast.parse((GPU_BENCH / "gpu_bench.py").read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert {name.split(".")[0] for name in imported} <= ALLOWED


def test_a_packed_copy_of_the_folder_runs_on_the_cpu_and_writes_its_figures(
    tmp_path: Path,
) -> None:
    bare = tmp_path / "gpu_bench"
    bare.mkdir()
    shutil.copy(GPU_BENCH / "gpu_bench.py", bare)
    packed = subprocess.run(
        [sys.executable, "-m", "bench.gpu.pack", "--into", str(bare / "kit")],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert packed.returncode == 0, packed.stderr[-2000:]
    size = sum(p.stat().st_size for p in bare.rglob("*") if p.is_file())
    assert size < 64 * 2**20
    weights = bare / "kit" / "embedder" / "model.safetensors"
    assert weights.stat().st_size < 50 * 2**20  # fp16: half of the packaged fp32 file

    out = tmp_path / "result" / "gpu-bench.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "HF_HUB_OFFLINE": "1"}
    ran = subprocess.run(
        [sys.executable, "gpu_bench.py", "--quick", "--out", str(out)],
        cwd=bare, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["machine"]["device"] == "cpu"
    assert [r["batch"] for r in result["embedding"]] == result["sizes"]["embed_batches"]
    assert all(r["texts_per_s"] > 0 for r in result["embedding"])
    search = result["exact_search"]
    assert search["recall_vs_float32_cpu"] >= 0.99  # both exact in float32 on a CPU
    assert [r["queries"] for r in search["rows"]] == result["sizes"]["query_batches"]
    generation = result["generation"]
    assert generation["model_shape"] == "SmolLM2-135M-Instruct"
    assert all(r["batched_tokens_per_s"] > 0 and r["speedup"] > 0 for r in generation["rows"])
    for heading in ("embedding batch", "exact search", "generation", "written to"):
        assert heading in ran.stdout


def test_without_a_kit_it_says_how_to_make_one(tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "bench.gpu", "--kit", str(tmp_path / "none")],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 2 and "bench.gpu.pack" in ran.stderr
