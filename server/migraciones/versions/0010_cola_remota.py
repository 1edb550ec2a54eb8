"""A remote tournament server's table played from the phone pages keeps its queue in the
database (``mesa_remota``, ``mano_remota``), not in a folder of one host: several hosts behind
one proxy send it, one at a time (a lease).

Revision ID: 0010
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mesa_remota",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("clave", sa.String(64), nullable=False, unique=True),
        sa.Column("servidor", sa.String(200), nullable=False),
        sa.Column("codigo", sa.String(16), nullable=False),
        sa.Column("token", sa.String(128), nullable=False),
        sa.Column("torneo", sa.Text(), nullable=False),
        sa.Column("partida", sa.JSON(), nullable=False),
        sa.Column("envio_hasta", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "mano_remota",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("mesa_id", sa.Integer(), sa.ForeignKey("mesa_remota.id"), nullable=False),
        sa.Column("numero", sa.Integer(), nullable=False),
        sa.Column("id_mano", sa.String(80), nullable=False),
        sa.Column("cuerpo", sa.JSON(), nullable=False),
        sa.Column("estado", sa.String(16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("estado_http", sa.Integer(), nullable=True),
        sa.Column("respuesta", sa.JSON(), nullable=True),
        sa.Column("tanteo_mesa", sa.JSON(), nullable=True),
        sa.UniqueConstraint("mesa_id", "numero"),
        sa.UniqueConstraint("mesa_id", "id_mano"),
    )
    op.create_index("ix_mano_remota_mesa_id", "mano_remota", ["mesa_id"])


def downgrade() -> None:
    op.drop_index("ix_mano_remota_mesa_id", "mano_remota")
    op.drop_table("mano_remota")
    op.drop_table("mesa_remota")
