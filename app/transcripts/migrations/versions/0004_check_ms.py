"""What the answer checks of a turn cost, in milliseconds (NULL for turns stored before it was
kept, and for turns no check ran on).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-13 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.add_column(sa.Column("check_ms", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.drop_column("check_ms")
