"""`python -m ingest`: build and publish the index; list versions; roll back.

Exit codes: 0 published or unchanged; 3 the same, but some files were skipped; 4 nothing to
publish; 5 the run failed; 6 another run holds the lock; 2 bad usage or configuration. In every
case but 0 and 3 the served version is the one that was served before.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from pydantic import ValidationError

from app.errors import (
    ConfigurationError,
    CorruptIndexVersionError,
    IngestLockedError,
    NothingToPublishError,
    ShopdeskError,
)
from app.index import versions
from app.settings import Settings

logger = logging.getLogger("ingest")

EXIT_OK, EXIT_USAGE, EXIT_SKIPPED, EXIT_EMPTY, EXIT_FAILED, EXIT_LOCKED = 0, 2, 3, 4, 5, 6


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)
    try:
        overrides = {
            k: v
            for k, v in {"knowledge_dir": args.knowledge, "data_dir": args.data_dir}.items()
            if v is not None
        }
        settings = Settings(**overrides)
    except (ValidationError, ConfigurationError) as exc:
        print(f"ingest: configuration error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "versions":
        return _list_versions(settings)
    if args.command == "rollback":
        return _rollback(settings, args.version)
    return _run(settings, force=args.force, progress=not args.quiet)


def _run(settings: Settings, *, force: bool, progress: bool) -> int:
    from app.embedding.factory import build_embedder
    from ingest.pipeline import run_ingest
    from ingest.summary import format_report

    try:
        report = run_ingest(settings, build_embedder(settings), force=force, progress=progress)
    except NothingToPublishError as exc:
        print(f"ingest: nothing published: {exc}", file=sys.stderr)
        return EXIT_EMPTY
    except IngestLockedError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    except ShopdeskError as exc:
        print(f"ingest: failed, the served version is unchanged: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception:
        logger.exception("ingest failed; the served version is unchanged")
        return EXIT_FAILED
    print(format_report(report))
    return EXIT_SKIPPED if report.skipped else EXIT_OK


def _list_versions(settings: Settings) -> int:
    root = settings.index_dir
    current = versions.current_version_id(root)
    for version_id in versions.list_versions(root):
        try:
            passages = f"{versions.read_manifest(root, version_id).counts.passages} passages"
        except CorruptIndexVersionError as exc:
            passages = str(exc)
        marker = "*" if version_id == current else " "
        print(f"{marker} {version_id}  {passages}")
    return EXIT_OK


def _rollback(settings: Settings, version_id: str | None) -> int:
    root = settings.index_dir
    published = versions.list_versions(root)
    current = versions.current_version_id(root)
    if version_id is None:
        older = [v for v in published if current is None or v < current]
        if not older:
            print("ingest: no older version to roll back to", file=sys.stderr)
            return EXIT_USAGE
        version_id = older[-1]
    if version_id not in published:
        print(
            f"ingest: no version {version_id!r}; see `python -m ingest versions`", file=sys.stderr
        )
        return EXIT_USAGE
    try:
        with versions.ingest_lock(root):
            versions.set_pointer(root, version_id)
    except IngestLockedError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return EXIT_LOCKED
    print(f"now serving {version_id}")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest", description=__doc__.split("\n")[0])
    parser.add_argument(
        "command", nargs="?", default="run", choices=["run", "versions", "rollback"]
    )
    parser.add_argument("version", nargs="?", help="with rollback: the version to serve")
    parser.add_argument("--knowledge", type=Path, help="knowledge folder (SHOPDESK_KNOWLEDGE_DIR)")
    parser.add_argument("--data-dir", type=Path, help="data folder (SHOPDESK_DATA_DIR)")
    parser.add_argument("--force", action="store_true", help="publish even if nothing changed")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("-v", "--verbose", action="store_true")
    return parser
