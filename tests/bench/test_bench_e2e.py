"""The end-to-end benchmark command, run for real at tiny sizes: shopdesk (vLLM), the naive
pipeline and the llama.cpp peer each started, loaded over HTTP, stopped, and the report written.

Slow (vLLM and two more servers start; llama.cpp is compiled once if missing):

    flock /tmp/shopdesk-vllm.lock .venv/bin/python -m pytest tests/bench/test_bench_e2e.py -m slow
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.mark.slow
def test_one_command_compares_the_three_systems(tmp_path: Path) -> None:
    out = tmp_path / "e2e"
    command = [
        sys.executable, "-m", "bench.e2e", "--levels", "1,2", "--seconds", "8",
        "--drain-seconds", "60", "--turns-per-conversation", "2", "--min-turns", "4",
        "--level-cap-seconds", "120", "--out-dir", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"results in {out}" in done.stdout

    results = json.loads((out / "results.json").read_text())
    assert list(results["systems"]) == ["shopdesk", "naive", "llamacpp"]
    for name, system in results["systems"].items():
        for level in system["levels"].values():
            assert level["errors"] == 0, (name, level["error_examples"])
            assert level["turns_answered"] >= 4 and level["peak_rss_gib"] > 0  # --min-turns
            assert level["stages_mean_s"]["prefill"] is not None
    shopdesk = results["systems"]["shopdesk"]["levels"]["2"]
    assert shopdesk["stages_mean_s"]["embed"] is not None and shopdesk["tokens_per_s"] > 0
    assert set(results["ratios"]) == {"naive", "llamacpp"}
    assert set(results["ratios"]["naive"]) == {"1", "2"}
    for name in ("report.md", "e2e-latency.png", "e2e-throughput.png", "e2e-prefill-by-turn.png"):
        assert (out / name).stat().st_size > 0
    assert "## Ratios (shopdesk ÷ baseline)" in (out / "report.md").read_text()
    for rows in results["prefill_by_turn"].values():  # level 1: whole conversations
        assert [row["turn"] for row in rows] == [1, 2]
