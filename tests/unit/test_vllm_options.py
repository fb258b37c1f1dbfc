"""The in-process engine's options that are decided in code: dtype on a CPU, n-gram speculation."""

from __future__ import annotations

from pathlib import Path

from app.engine.vllm_engine import _ngram_speculation, cpu_flags, resolve_dtype

AVX2 = frozenset({"fpu", "sse2", "avx", "avx2", "fma"})


def test_auto_on_a_cpu_without_bfloat16_dot_products_is_float32() -> None:
    assert resolve_dtype("auto", on_cpu=True, flags=AVX2) == "float32"


def test_auto_on_a_cpu_with_avx512_bf16_or_amx_is_bfloat16() -> None:
    assert resolve_dtype("auto", on_cpu=True, flags=AVX2 | {"avx512f", "avx512_bf16"}) == "bfloat16"
    assert resolve_dtype("auto", on_cpu=True, flags=AVX2 | {"amx_bf16", "amx_tile"}) == "bfloat16"


def test_a_dtype_that_was_set_a_gpu_or_an_unknown_cpu_is_left_to_vllm() -> None:
    assert resolve_dtype("bfloat16", on_cpu=True, flags=AVX2) == "bfloat16"
    assert resolve_dtype("auto", on_cpu=False, flags=AVX2) == "auto"
    assert resolve_dtype("auto", on_cpu=True, flags=None) == "auto"


def test_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 avx512_bf16\n")
    assert cpu_flags(cpuinfo) == frozenset({"fpu", "avx2", "avx512_bf16"})
    assert cpu_flags(tmp_path / "missing") is None
    (tmp_path / "bare").write_text("processor\t: 0\n")
    assert cpu_flags(tmp_path / "bare") is None


def test_ngram_speculation_is_off_at_zero_and_proposes_the_tokens_asked_for() -> None:
    assert _ngram_speculation(0) is None
    config = _ngram_speculation(4)
    assert config is not None
    assert config["method"] == "ngram"
    assert config["num_speculative_tokens"] == 4
    assert config["prompt_lookup_min"] <= config["prompt_lookup_max"]
