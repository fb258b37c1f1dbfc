"""The table an operator reads at the end of a run."""

from __future__ import annotations

from ingest.pipeline import IngestReport

_STAGES = ("load", "chunk", "embed", "index", "publish", "total")


def format_report(report: IngestReport) -> str:
    outcome = {
        "published": f"published version {report.version_id}",
        "unchanged": f"unchanged: still serving {report.version_id}",
    }[report.outcome]
    rows = [
        ("outcome", outcome),
        ("files", f"{report.files}"),
        ("documents", f"{report.documents}"),
        ("passages", f"{report.passages}"),
        ("embeddings new / reused", f"{report.embedded_new} / {report.embedded_reused}"),
        ("skipped", f"{len(report.skipped)}"),
    ]
    if report.index_kind:
        rows.append(("index", f"{report.index_kind} (recall@10 {report.index_recall:.3f})"))
    rows += [
        (f"time {stage}", f"{report.timings[stage]:.2f}s")
        for stage in _STAGES
        if stage in report.timings
    ]
    width = max(len(label) for label, _ in rows)
    lines = [f"  {label.ljust(width)}  {value}" for label, value in rows]
    for skipped in report.skipped:
        lines.append(f"  skipped {skipped.path}: {skipped.reason}")
    return "\n".join(["ingest summary", *lines])
