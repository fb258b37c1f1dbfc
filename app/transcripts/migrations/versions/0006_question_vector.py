"""The knowledge-gaps page's embeddings of shopper questions, one per message and embedder
model, so that grouping them again embeds only the questions asked since.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 00:00:01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "question_vector",
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("model_id", sa.String(length=200), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["message.id"],
            name="fk_question_vector_message_id_message",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("message_id", "model_id", name="pk_question_vector"),
    )


def downgrade() -> None:
    op.drop_table("question_vector")
