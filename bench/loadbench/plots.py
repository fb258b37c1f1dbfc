"""PNG plots of the comparison: latency and throughput against concurrency, prefill by turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .report import NAMES

COLORS = {"shopdesk": "C0", "naive": "C1", "llamacpp": "C2"}  # the same in every plot


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def _levels(system: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(system["levels"].values(), key=lambda level: level["concurrency"])


def latency_plot(results: dict[str, Any], path: Path) -> Path:
    """p50 (dashed) and p95 (solid) per system; an open triangle marks a lower bound."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 4.5))
    bounded_label = "includes turns cut at the stop (lower bound)"
    for name, system in results["systems"].items():
        levels = _levels(system)
        x = [level["concurrency"] for level in levels]
        for pct, style in (("p50", "--"), ("p95", "-")):
            y = [level["latency_s"][pct] for level in levels]
            label = f"{NAMES.get(name, name)} {pct}"
            axes.plot(x, y, style, marker="o", color=COLORS.get(name), label=label)
            cut = [
                (c, v)
                for c, v, level in zip(x, y, levels, strict=True)
                if level["latency_lower_bound"] and v is not None
            ]
            if cut:
                xs, ys = zip(*cut, strict=True)
                axes.plot(xs, ys, "^", markersize=11, fillstyle="none", color="black",
                          label=bounded_label)  # fmt: skip
                bounded_label = "_nolegend_"
    axes.set(xscale="log", yscale="log", xlabel="concurrent shoppers", ylabel="turn latency (s)",
             title="Turn latency vs concurrency")  # fmt: skip
    _plain_log_axis(axes.yaxis)
    _level_ticks(axes, results)
    return _save(figure, axes, path)


def throughput_plot(results: dict[str, Any], path: Path) -> Path:
    """Answered turns per second and generated tokens per second, side by side (turns/s moves
    with the lengths of the few answers a slow system finishes; tokens/s much less)."""
    plt = _pyplot()
    figure, (turns, tokens) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, system in results["systems"].items():
        levels = _levels(system)
        x = [level["concurrency"] for level in levels]
        style = {"marker": "o", "color": COLORS.get(name), "label": NAMES.get(name, name)}
        turns.plot(x, [level["turns_per_s"] for level in levels], **style)
        tokens.plot(x, [level["tokens_per_s"] for level in levels], **style)
    turns.set(ylabel="answered turns per second", title="Turns per second vs concurrency")
    tokens.set(ylabel="generated tokens per second", title="Tokens per second vs concurrency")
    for panel in (turns, tokens):
        panel.set(xscale="log", xlabel="concurrent shoppers")
        panel.set_ylim(bottom=0)
        _level_ticks(panel, results)
    return _save(figure, (turns, tokens), path)


def prefill_plot(results: dict[str, Any], path: Path) -> Path:
    """Prefilled tokens (where the server reports them) and prefill seconds by turn number."""
    from matplotlib.ticker import MaxNLocator

    plt = _pyplot()
    figure, (tokens, seconds) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, rows in results["prefill_by_turn"].items():
        style = {"marker": "o", "color": COLORS.get(name), "label": NAMES.get(name, name)}
        counted = [row for row in rows if row["prefilled_tokens"] is not None]
        if counted:
            turns = [row["turn"] for row in counted]
            tokens.plot(turns, [row["prefilled_tokens"] for row in counted], **style)
        seconds.plot([row["turn"] for row in rows], [row["prefill_s"] for row in rows], **style)
    tokens.set(xlabel="turn in the conversation", ylabel="prompt tokens prefilled",
               title="Prefilled tokens per turn (not from a cache)")  # fmt: skip
    seconds.set(xlabel="turn in the conversation", ylabel="prefill time (s)",
                title="Prefill time per turn (server's own timing)")  # fmt: skip
    for axes in (tokens, seconds):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_ylim(bottom=0)
    return _save(figure, (tokens, seconds), path)


def _plain_log_axis(axis: Any) -> None:
    """Ticks at 1, 2, 5 × 10ⁿ written as plain numbers, however narrow the range."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def _level_ticks(axes: Any, results: dict[str, Any]) -> None:
    """The concurrency levels, and only they, label the (logarithmic) x axis."""
    from matplotlib.ticker import NullFormatter

    levels = list(results["plan"]["levels"])
    axes.set_xticks(levels, labels=[str(level) for level in levels])
    axes.xaxis.set_minor_formatter(NullFormatter())


def _save(figure: Any, axes: Any, path: Path) -> Path:
    for panel in axes if isinstance(axes, tuple) else (axes,):
        panel.grid(True, which="both", alpha=0.3)
        panel.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    _pyplot().close(figure)
    return path


def all_plots(results: dict[str, Any], folder: Path) -> list[Path]:
    return [
        latency_plot(results, folder / "e2e-latency.png"),
        throughput_plot(results, folder / "e2e-throughput.png"),
        prefill_plot(results, folder / "e2e-prefill-by-turn.png"),
    ]
