"""The transcript tables, portable across SQLite and PostgreSQL; Alembic migrations create them.

``Conversation`` carries denormalised aggregates (turn count, lowest rating, lowest
groundedness, escalation, any unanswered turn) so that the staff filters need no joins.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend: ``timestamptz`` on PostgreSQL, naive UTC
    on SQLite (which keeps no zone), always read back with ``tzinfo=UTC``."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("transcript times must be timezone-aware")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


# Named constraints, so that migrations can refer to them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of the transcript tables."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Conversation(Base):
    """One shopper session, with the aggregates the staff filters read."""

    __tablename__ = "conversation"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    last_message_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    turns: Mapped[int] = mapped_column(Integer, default=0)
    escalated: Mapped[bool] = mapped_column(Boolean, default=False)
    escalated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    lowest_rating: Mapped[int | None] = mapped_column(Integer)
    min_groundedness: Mapped[float | None] = mapped_column(Float)
    any_unanswered: Mapped[bool] = mapped_column(Boolean, default=False)

    messages: Mapped[list[Message]] = relationship(
        back_populates="conversation", order_by="Message.turn_index"
    )
    escalations: Mapped[list[Escalation]] = relationship(order_by="Escalation.created_at")
    notes: Mapped[list[StaffNote]] = relationship(order_by="StaffNote.created_at")


class Message(Base):
    """One turn: the masked question and answer (and its parts), how it was produced and what it
    cost. A column named as a field of ``FinishedTurn`` stores that field (``rows.py``)."""

    __tablename__ = "message"
    __table_args__ = (UniqueConstraint("conversation_id", "turn_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversation.id", ondelete="CASCADE"))
    turn_index: Mapped[int] = mapped_column(Integer)
    question: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text)
    answered: Mapped[bool] = mapped_column(Boolean)
    groundedness: Mapped[float] = mapped_column(Float)
    engine: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(200))
    index_version: Mapped[str] = mapped_column(String(64))
    timings: Mapped[dict[str, float]] = mapped_column(JSON)
    prompt_tokens: Mapped[int] = mapped_column(Integer)
    cached_tokens: Mapped[int] = mapped_column(Integer)
    generated_tokens: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    failure: Mapped[str | None] = mapped_column(String(40))  # engine_timeout, engine_unavailable
    # The answer's parts (app/transcripts/parts.py); all NULL for a turn stored without them.
    model_text: Mapped[str | None] = mapped_column(Text)  # what later prompts may see
    answer_policy: Mapped[str | None] = mapped_column(String(40))  # generative, verified, ...
    answer_parts: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    declined: Mapped[str | None] = mapped_column(String(40))  # floor, no_match, partial, ...
    check_ms: Mapped[float | None] = mapped_column(Float)  # the answer checks' cost; NULL: none

    conversation: Mapped[Conversation] = relationship(back_populates="messages")
    passages: Mapped[list[RetrievedPassage]] = relationship(order_by="RetrievedPassage.rank")
    feedback: Mapped[Feedback | None] = relationship()


class RetrievedPassage(Base):
    """A passage retrieved for a message, in rank order, with its score."""

    __tablename__ = "retrieved_passage"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(
        ForeignKey("message.id", ondelete="CASCADE"), index=True
    )
    rank: Mapped[int] = mapped_column(Integer)
    passage_id: Mapped[str] = mapped_column(String(200))
    title: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(Text)
    citation: Mapped[str] = mapped_column(Text)
    score: Mapped[float] = mapped_column(Float)
    cited: Mapped[bool] = mapped_column(Boolean)


class Feedback(Base):
    """The shopper's thumbs up (+1) or down (-1) on one answer; a later rating replaces it."""

    __tablename__ = "feedback"
    __table_args__ = (CheckConstraint("rating IN (-1, 1)", name="rating"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(
        ForeignKey("message.id", ondelete="CASCADE"), unique=True
    )
    rating: Mapped[int] = mapped_column(Integer)
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Escalation(Base):
    """A request to hand the conversation to a person, with the (masked) reason."""

    __tablename__ = "escalation"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(
        ForeignKey("conversation.id", ondelete="CASCADE"), index=True
    )
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class QuestionVector(Base):
    """A message's question embedded by one embedder model (float16, L2-normalised): the
    knowledge-gaps page's cache, so that regrouping embeds only questions asked since."""

    __tablename__ = "question_vector"

    message_id: Mapped[int] = mapped_column(
        ForeignKey("message.id", ondelete="CASCADE"), primary_key=True
    )
    model_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class StaffNote(Base):
    """A support agent's note on a conversation, optionally labelled for later triage."""

    __tablename__ = "staff_note"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(
        ForeignKey("conversation.id", ondelete="CASCADE"), index=True
    )
    author: Mapped[str] = mapped_column(String(120))
    text: Mapped[str] = mapped_column(Text)
    label: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
