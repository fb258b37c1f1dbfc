"""The benchmark command's own logic: its arguments and how it refreshes the performance page."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.e2e import RESULTS_END, RESULTS_START, parse_args, update_docs
from bench.loadbench.systems import base_env


def test_levels_are_sorted_once_each_and_the_engine_batch_covers_the_largest() -> None:
    args = parse_args(["--levels", "16,1,4,16"])
    assert args.levels == [1, 4, 16] and args.max_num_seqs == 16
    assert args.systems == ["shopdesk", "naive", "llamacpp"]
    assert parse_args(["--max-num-seqs", "8"]).max_num_seqs == 8


@pytest.mark.parametrize("bad", [["--systems", "shopdesk,ollama"], ["--levels", "0,4"]])
def test_bad_arguments_are_refused(bad: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(bad)


def test_every_system_shares_the_index_and_one_address_is_not_throttled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOPDESK_EMBED_DEVICE", "cuda")  # an operator's choice is kept
    monkeypatch.setenv("SHOPDESK_DATA_DIR", "/elsewhere")  # but the run's index is not optional
    env = base_env(tmp_path, max_num_seqs=64, max_waiting=64, patience_s=150)
    assert env["SHOPDESK_DATA_DIR"] == str(tmp_path) and env["SHOPDESK_EMBED_DEVICE"] == "cuda"
    assert env["SHOPDESK_CLIENT_TURNS_PER_MINUTE"] == "0"
    assert env["SHOPDESK_MAX_TURNS_IN_FLIGHT"] == "64" == env["SHOPDESK_VLLM_MAX_NUM_SEQS"]


def test_the_page_gets_the_tables_between_its_markers_and_the_plots_beside_it(
    tmp_path: Path,
) -> None:
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text(f"# Perf\n\nmethod\n\n{RESULTS_START}\nold figures\n{RESULTS_END}\n\nafter\n")
    plot = tmp_path / "out" / "e2e-latency.png"
    plot.parent.mkdir()
    plot.write_bytes(b"png")
    update_docs("# End-to-end\n\nrun line\n\n## Ratios\n\n| a |", [plot], doc=doc)
    text = doc.read_text()
    assert "old figures" not in text and "#### Ratios" in text and "run line" in text
    assert text.startswith("# Perf\n\nmethod") and text.endswith("after\n")
    assert (tmp_path / "e2e-latency.png").read_bytes() == b"png"
    update_docs("# End-to-end\n\nsecond run", [], doc=doc)  # the markers survive a refresh
    assert "second run" in doc.read_text() and "run line" not in doc.read_text()


def test_a_page_without_markers_is_left_alone(tmp_path: Path) -> None:
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text("# Perf\n")
    with pytest.raises(SystemExit, match="markers"):
        update_docs("# x\n\ny", [], doc=doc)
    assert doc.read_text() == "# Perf\n"


def test_runs_repeat_the_whole_comparison_each_into_its_folder_then_the_spread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench import e2e

    seen: list[tuple[Path, bool, str]] = []

    def compare(args: object, command: str) -> int:
        seen.append((args.out_dir, args.update_docs, command))  # type: ignore[attr-defined]
        return 0

    spread: list[list[Path]] = []

    def spread_again(paths: list[Path], out: Path, *, update: bool) -> int:
        spread.append(paths)
        return 0

    monkeypatch.setattr(e2e, "compare", compare)
    monkeypatch.setattr(e2e, "spread_again", spread_again)
    assert e2e.main(["--runs", "2", "--update-docs", "--out-dir", str(tmp_path)]) == 0
    assert [(out, update) for out, update, _ in seen] == [
        (tmp_path / "run-1", False),
        (tmp_path / "run-2", False),
    ]
    assert seen[1][2].endswith("--runs 2 --update-docs --out-dir " + f"{tmp_path} (run 2 of 2)")
    assert spread == [[tmp_path / "run-1" / "results.json", tmp_path / "run-2" / "results.json"]]
