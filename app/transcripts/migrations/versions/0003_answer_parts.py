"""An answer's parts: the model's own words, the answer policy, and the rest as JSON (the
shop's quoted lines, the service's note, the sentences the checks dropped, composed or not).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-06 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.add_column(sa.Column("model_text", sa.Text(), nullable=True))
        batch.add_column(sa.Column("answer_policy", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("answer_parts", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.drop_column("answer_parts")
        batch.drop_column("answer_policy")
        batch.drop_column("model_text")
