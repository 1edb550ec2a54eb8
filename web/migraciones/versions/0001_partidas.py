"""The partidas played from the phones, their confirmed hands and the hand being entered.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "partidas",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("clave", sa.String(32), nullable=False, unique=True),
        sa.Column("creada", sa.DateTime(), nullable=False),
        sa.Column("reglas", sa.JSON(), nullable=False),
        sa.Column("jugadores", sa.JSON(), nullable=False),
        sa.Column("mano_inicial", sa.Integer(), nullable=False),
        sa.Column("idioma", sa.String(8), nullable=False),
        sa.Column("terminada", sa.Boolean(), nullable=False),
        sa.Column("ganador", sa.Integer(), nullable=True),
        sa.Column("baraja", sa.LargeBinary(), nullable=True),
        sa.Column("torneo", sa.JSON(), nullable=True),
    )
    op.create_table(
        "manos_partida",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("partida_id", sa.Integer(), sa.ForeignKey("partidas.id"), nullable=False, index=True),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("id_mano", sa.String(64), nullable=False),
        sa.Column("registro", sa.JSON(), nullable=False),
        sa.Column("tanteo", sa.JSON(), nullable=False),
        sa.Column("origen", sa.String(16), nullable=False),
        sa.Column("creada", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("partida_id", "n", name="uq_manos_partida_n"),
        sa.UniqueConstraint("partida_id", "id_mano", name="uq_manos_partida_id_mano"),
    )
    op.create_table(
        "borradores",
        sa.Column("partida_id", sa.Integer(), sa.ForeignKey("partidas.id"), nullable=False, primary_key=True),
        sa.Column("datos", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("actualizado", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("borradores")
    op.drop_table("manos_partida")
    op.drop_table("partidas")
