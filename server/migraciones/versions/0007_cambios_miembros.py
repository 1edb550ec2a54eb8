"""The log of a tournament's member changes (``cambio_miembro``: who was added, changed or
removed, in which role, by whom and when); a database of revision 6 starts it empty.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cambio_miembro",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("usuario", sa.String(64), nullable=False),
        sa.Column("rol", sa.String(16), nullable=False),
        sa.Column("accion", sa.String(8), nullable=False),
        sa.Column("por", sa.String(64), nullable=False),
        sa.Column("cuando", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_cambio_miembro_torneo_id", "cambio_miembro", ["torneo_id"])


def downgrade() -> None:
    op.drop_index("ix_cambio_miembro_torneo_id", "cambio_miembro")
    op.drop_table("cambio_miembro")
