"""A local, durable queue of the transcript writes the database could not take yet.

When the transcript database is unreachable, a finished turn (a shopper's rating of an answer,
or their request for a person) is appended here: a SQLite file beside the app, committed with
``synchronous=FULL`` so the entry is on disk before the shopper sees the end of the answer. A
flusher writes the entries to the database later, oldest first, and removes each one only once
the database holds it; those writes are idempotent, so a crash between the two stores nothing
twice.
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

_TABLE = """
CREATE TABLE {name} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('turn', 'escalation', 'rating')),
    session_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    queued_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS pending_session ON pending (session_id)"
_COLUMNS = "id, kind, session_id, payload, queued_at, attempts, last_error"


@dataclass(frozen=True)
class Escalation:
    """A shopper's request for a person, with the moment it was made (its identity on replay)."""

    session_id: str
    reason: str
    at: datetime


@dataclass(frozen=True)
class Rating:
    """A shopper's rating (+1 or -1) of one of their answers, given at ``at`` (a later rating of
    the same answer wins). The answer is named by its turn key (``turn_index``, known before the
    database holds the turn) or by its stored ``message_id``; ``turn_created_at`` is the rated
    turn's own time when it was found waiting here, so that it is found again wherever the
    database stores it."""

    session_id: str
    rating: int
    comment: str | None
    at: datetime
    turn_index: int | None = None
    message_id: int | None = None
    turn_created_at: datetime | None = None


Pending = FinishedTurn | Escalation | Rating


@dataclass(frozen=True)
class PendingWrite:
    """One queued write, oldest first; ``attempts`` counts the failed tries to store it."""

    id: int
    record: Pending
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
        self._create_or_upgrade()

    def put(self, record: Pending) -> int:
        """Append a write; it is on disk when this returns."""
        kind, payload = _encode(record)
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

    def _create_or_upgrade(self) -> None:
        """Create the table, or rebuild one an older release made (its CHECK knew no ratings),
        keeping every entry and its id; one process at a time (``BEGIN IMMEDIATE``)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                found = self._db.execute(
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'pending'"
                ).fetchone()
                if found is None:
                    self._db.execute(_TABLE.format(name="pending"))
                elif "'rating'" not in found[0]:
                    self._db.execute(_TABLE.format(name="pending_upgraded"))
                    self._db.execute(
                        f"INSERT INTO pending_upgraded ({_COLUMNS}) SELECT {_COLUMNS} FROM pending"
                    )
                    self._db.execute("DROP TABLE pending")
                    self._db.execute("ALTER TABLE pending_upgraded RENAME TO pending")
                self._db.execute(_INDEX)
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise


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


def rating_to_json(rating: Rating) -> str:
    data = asdict(rating)
    data["at"] = rating.at.isoformat()
    if rating.turn_created_at is not None:
        data["turn_created_at"] = rating.turn_created_at.isoformat()
    return json.dumps(data, ensure_ascii=False)


def rating_from_json(text: str) -> Rating:
    data: dict[str, Any] = json.loads(text)
    data["at"] = datetime.fromisoformat(data["at"])
    if data.get("turn_created_at") is not None:
        data["turn_created_at"] = datetime.fromisoformat(data["turn_created_at"])
    return Rating(**data)


def _escalation_json(escalation: Escalation) -> str:
    return json.dumps(
        {
            "session_id": escalation.session_id,
            "reason": escalation.reason,
            "at": escalation.at.isoformat(),
        },
        ensure_ascii=False,
    )


def _encode(record: Pending) -> tuple[str, str]:
    if isinstance(record, FinishedTurn):
        return "turn", turn_to_json(record)
    if isinstance(record, Rating):
        return "rating", rating_to_json(record)
    return "escalation", _escalation_json(record)


def _decode(kind: str, payload: str) -> Pending:
    if kind == "turn":
        return turn_from_json(payload)
    if kind == "rating":
        return rating_from_json(payload)
    data = json.loads(payload)
    return Escalation(data["session_id"], data["reason"], datetime.fromisoformat(data["at"]))
