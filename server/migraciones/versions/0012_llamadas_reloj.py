"""The day's running: the tables' calls to the referee (``llamada``), each round's
clock (``reloj_ronda``), the log of its changes (``cambio_reloj``) and the hands waiting for the
other pareja's confirmation (``mano_pendiente``).

Revision ID: 0012
Revises: 0009 (re-chained after 0010/0011 when merged)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "llamada",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("mesa_id", sa.Integer(), sa.ForeignKey("mesa.id"), nullable=False),
        sa.Column("enfrentamiento_id", sa.Integer(), sa.ForeignKey("enfrentamiento.id"), nullable=True),
        sa.Column("motivo", sa.String(200), nullable=True),
        sa.Column("cuando", sa.DateTime(), nullable=False),
        sa.Column("atendida", sa.DateTime(), nullable=True),
        sa.Column("atendida_por", sa.String(64), nullable=True),
    )
    op.create_index("ix_llamada_torneo_id", "llamada", ["torneo_id"])
    op.create_table(
        "reloj_ronda",
        sa.Column("ronda_id", sa.Integer(), sa.ForeignKey("ronda.id"), nullable=False, primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("minutos", sa.Integer(), nullable=False),
        sa.Column("regla", sa.String(16), nullable=False),
        sa.Column("fin", sa.DateTime(), nullable=True),
        sa.Column("restante", sa.Integer(), nullable=True),
        sa.Column("cerrada", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_reloj_ronda_torneo_id", "reloj_ronda", ["torneo_id"])
    op.create_table(
        "cambio_reloj",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("ronda_id", sa.Integer(), sa.ForeignKey("ronda.id"), nullable=False),
        sa.Column("accion", sa.String(16), nullable=False),
        sa.Column("minutos", sa.Integer(), nullable=True),
        sa.Column("usuario", sa.String(64), nullable=False),
        sa.Column("motivo", sa.Text(), nullable=False),
        sa.Column("cuando", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_cambio_reloj_torneo_id", "cambio_reloj", ["torneo_id"])
    op.create_table(
        "mano_pendiente",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("enfrentamiento_id", sa.Integer(), sa.ForeignKey("enfrentamiento.id"), nullable=False),
        sa.Column("cliente_id", sa.String(64), nullable=False),
        sa.Column("numero", sa.Integer(), nullable=False),
        sa.Column("cuerpo", sa.JSON(), nullable=False),
        sa.Column("recibida", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("enfrentamiento_id", "cliente_id"),
    )
    op.create_index("ix_mano_pendiente_torneo_id", "mano_pendiente", ["torneo_id"])
    op.create_index("ix_mano_pendiente_enfrentamiento_id", "mano_pendiente", ["enfrentamiento_id"])


def downgrade() -> None:
    op.drop_table("mano_pendiente")
    op.drop_table("cambio_reloj")
    op.drop_table("reloj_ronda")
    op.drop_table("llamada")
