"""Corrections of a result by the organiser or a referee, with who, when, why, before and after
(``correccion``), and whether a tournament's referees may make them (``torneo.arbitros_corrigen``).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("torneo", sa.Column("arbitros_corrigen", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "correccion",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("enfrentamiento_id", sa.Integer(), sa.ForeignKey("enfrentamiento.id"), nullable=False),
        sa.Column("cuenta_id", sa.Integer(), sa.ForeignKey("cuenta.id"), nullable=False),
        sa.Column("usuario", sa.String(64), nullable=False),
        sa.Column("cuando", sa.DateTime(), nullable=False),
        sa.Column("motivo", sa.Text(), nullable=False),
        sa.Column("antes", sa.JSON(), nullable=False),
        sa.Column("despues", sa.JSON(), nullable=False),
    )
    op.create_index("ix_correccion_torneo_id", "correccion", ["torneo_id"])
    op.create_index("ix_correccion_enfrentamiento_id", "correccion", ["enfrentamiento_id"])


def downgrade() -> None:
    op.drop_index("ix_correccion_enfrentamiento_id", "correccion")
    op.drop_index("ix_correccion_torneo_id", "correccion")
    op.drop_table("correccion")
    with op.batch_alter_table("torneo") as b:
        b.drop_column("arbitros_corrigen")
