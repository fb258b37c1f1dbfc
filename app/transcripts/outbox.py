"""A local, durable queue of the transcript writes the database could not take yet.

When the transcript database is unreachable, a finished turn (or a shopper's request for a
person) is appended here: a SQLite file beside the app, committed with ``synchronous=FULL`` so
the entry is on disk before the shopper sees the end of the answer. A flusher writes the
entries to the database later and removes each one only once the database holds it; those
writes are idempotent, so a crash between the two stores nothing twice.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from app.chat.turn import FinishedTurn, PassageRecord
from app.transcripts.parts import parts_from_json

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('turn', 'escalation')),
    session_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    queued_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS pending_session ON pending (session_id);
"""


@dataclass(frozen=True)
class Escalation:
    """A shopper's request for a person, with the moment it was made (its identity on replay)."""

    session_id: str
    reason: str
    at: datetime


@dataclass(frozen=True)
class PendingWrite:
    """One queued write, oldest first; ``attempts`` counts the failed tries to store it."""

    id: int
    record: FinishedTurn | Escalation
    attempts: int


class TranscriptOutbox:
    """The queue file; safe to share between the threads of one process and between processes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # fsync every commit
        self._db.executescript(_SCHEMA)

    def put(self, record: FinishedTurn | Escalation) -> int:
        """Append a write; it is on disk when this returns."""
        kind = "turn" if isinstance(record, FinishedTurn) else "escalation"
        payload = (
            turn_to_json(record) if isinstance(record, FinishedTurn) else _escalation_json(record)
        )
        with self._lock, self._db:
            cursor = self._db.execute(
                "INSERT INTO pending (kind, session_id, payload, queued_at) VALUES (?, ?, ?, ?)",
                (kind, record.session_id, payload, time.time()),
            )
        return int(cursor.lastrowid or 0)

    def pending(self, limit: int = 100) -> list[PendingWrite]:
        """The next writes to try: oldest first, those the database refused before last."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kind, payload, attempts FROM pending ORDER BY attempts, id LIMIT ?",
                (limit,),
            ).fetchall()
        return [PendingWrite(row[0], _decode(row[1], row[2]), row[3]) for row in rows]

    def remove(self, entry_id: int) -> None:
        """Forget a write the database now holds."""
        with self._lock, self._db:
            self._db.execute("DELETE FROM pending WHERE id = ?", (entry_id,))

    def note_failure(self, entry_id: int, error: str) -> None:
        """Keep a write the database refused for a reason other than being down, saying why."""
        with self._lock, self._db:
            self._db.execute(
                "UPDATE pending SET attempts = attempts + 1, last_error = ? WHERE id = ?",
                (error[:2000], entry_id),
            )

    def depth(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM pending").fetchone()[0])

    def turns_of(self, session_id: str) -> list[FinishedTurn]:
        """The queued turns of one session, in the order they were queued."""
        with self._lock:
            rows = self._db.execute(
                "SELECT payload FROM pending WHERE kind = 'turn' AND session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        return [turn_from_json(row[0]) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def turn_to_json(turn: FinishedTurn) -> str:
    """The turn as one JSON object, its parts nested (as ``dataclasses.asdict`` gives them)."""
    data = asdict(turn)
    data["created_at"] = turn.created_at.isoformat()
    return json.dumps(data, ensure_ascii=False)


def turn_from_json(text: str) -> FinishedTurn:
    """The turn back; a field it was queued without (by an older release) takes its default."""
    data: dict[str, Any] = json.loads(text)
    data["created_at"] = datetime.fromisoformat(data["created_at"])
    data["passages"] = tuple(PassageRecord(**p) for p in data["passages"])
    parts = data.pop("parts", None)
    if parts is not None:
        data["parts"] = parts_from_json(
            parts, model_text=parts["model_text"], policy=parts["policy"]
        )
    return FinishedTurn(**data)


def _escalation_json(escalation: Escalation) -> str:
    return json.dumps(
        {
            "session_id": escalation.session_id,
            "reason": escalation.reason,
            "at": escalation.at.isoformat(),
        },
        ensure_ascii=False,
    )


def _decode(kind: str, payload: str) -> FinishedTurn | Escalation:
    if kind == "turn":
        return turn_from_json(payload)
    data = json.loads(payload)
    return Escalation(data["session_id"], data["reason"], datetime.fromisoformat(data["at"]))
