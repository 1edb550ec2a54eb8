"""The rate limits and the logins' per-account waits in the database (``contador``), so that
several processes or hosts over one database share them.

Revision ID: 0011
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "contador",
        sa.Column("clase", sa.String(64), nullable=False),
        sa.Column("clave", sa.String(128), nullable=False),
        sa.Column("detalle", sa.String(64), nullable=False),
        sa.Column("marca", sa.Float(), nullable=False),
        sa.Column("cuenta", sa.Integer(), nullable=False),
        sa.Column("caduca", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("clase", "clave", "detalle"),
    )
    op.create_index("ix_contador_caduca", "contador", ["caduca"])


def downgrade() -> None:
    op.drop_index("ix_contador_caduca", "contador")
    op.drop_table("contador")
