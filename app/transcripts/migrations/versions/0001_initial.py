"""The transcript tables: conversations, messages, passages, feedback, escalations, notes.

Revision ID: 0001
Revises:
Create Date: 2026-01-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "conversation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("started_at", _when(), nullable=False),
        sa.Column("last_message_at", _when(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("escalated", sa.Boolean(), nullable=False),
        sa.Column("escalated_at", _when(), nullable=True),
        sa.Column("lowest_rating", sa.Integer(), nullable=True),
        sa.Column("min_groundedness", sa.Float(), nullable=True),
        sa.Column("any_unanswered", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_conversation"),
    )
    op.create_index("ix_conversation_session_id", "conversation", ["session_id"], unique=True)
    op.create_index("ix_conversation_started_at", "conversation", ["started_at"])
    op.create_index("ix_conversation_last_message_at", "conversation", ["last_message_at"])

    op.create_table(
        "message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("turn_index", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("answered", sa.Boolean(), nullable=False),
        sa.Column("groundedness", sa.Float(), nullable=False),
        sa.Column("engine", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("index_version", sa.String(length=64), nullable=False),
        sa.Column("timings", sa.JSON(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_tokens", sa.Integer(), nullable=False),
        sa.Column("generated_tokens", sa.Integer(), nullable=False),
        sa.Column("created_at", _when(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversation.id"],
            name="fk_message_conversation_id_conversation",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_message"),
        sa.UniqueConstraint(
            "conversation_id", "turn_index", name="uq_message_conversation_id_turn_index"
        ),
    )

    op.create_table(
        "retrieved_passage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("passage_id", sa.String(length=200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("citation", sa.Text(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("cited", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["message.id"],
            name="fk_retrieved_passage_message_id_message",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_retrieved_passage"),
    )
    op.create_index("ix_retrieved_passage_message_id", "retrieved_passage", ["message_id"])

    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("created_at", _when(), nullable=False),
        sa.CheckConstraint("rating IN (-1, 1)", name="ck_feedback_rating"),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["message.id"],
            name="fk_feedback_message_id_message",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_feedback"),
        sa.UniqueConstraint("message_id", name="uq_feedback_message_id"),
    )

    op.create_table(
        "escalation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", _when(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversation.id"],
            name="fk_escalation_conversation_id_conversation",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_escalation"),
    )
    op.create_index("ix_escalation_conversation_id", "escalation", ["conversation_id"])

    op.create_table(
        "staff_note",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("conversation_id", sa.Integer(), nullable=False),
        sa.Column("author", sa.String(length=120), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("label", sa.String(length=40), nullable=True),
        sa.Column("created_at", _when(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversation.id"],
            name="fk_staff_note_conversation_id_conversation",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_staff_note"),
    )
    op.create_index("ix_staff_note_conversation_id", "staff_note", ["conversation_id"])


def downgrade() -> None:
    op.drop_index("ix_staff_note_conversation_id", table_name="staff_note")
    op.drop_table("staff_note")
    op.drop_index("ix_escalation_conversation_id", table_name="escalation")
    op.drop_table("escalation")
    op.drop_table("feedback")
    op.drop_index("ix_retrieved_passage_message_id", table_name="retrieved_passage")
    op.drop_table("retrieved_passage")
    op.drop_table("message")
    op.drop_index("ix_conversation_last_message_at", table_name="conversation")
    op.drop_index("ix_conversation_started_at", table_name="conversation")
    op.drop_index("ix_conversation_session_id", table_name="conversation")
    op.drop_table("conversation")
