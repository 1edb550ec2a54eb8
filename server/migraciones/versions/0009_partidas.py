"""The partidas played from the phones, their confirmed hands and the hand being entered join
the one chain.

Until now these tables had an Alembic chain of their own (web/migraciones, version table
``alembic_version_web``, its one revision made them exactly as below). What today's servers
can leave is taken in place: a database of `mus servir` has them already (at that chain's
revision 0001, which server.migraciones checks before any upgrade): they are kept with their
rows and only their version table goes; a database of `mus torneo` alone, or an empty one,
gets them now.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TABLA_WEB = "alembic_version_web"  # server.migraciones.TABLA_WEB, as it was when this was written


def upgrade() -> None:
    existentes = set(sa.inspect(op.get_bind()).get_table_names())
    if "partidas" not in existentes:
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
    if "manos_partida" not in existentes:
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
    if "borradores" not in existentes:
        op.create_table(
            "borradores",
            sa.Column("partida_id", sa.Integer(), sa.ForeignKey("partidas.id"), nullable=False, primary_key=True),
            sa.Column("datos", sa.JSON(), nullable=False),
            sa.Column("version", sa.Integer(), nullable=False),
            sa.Column("actualizado", sa.DateTime(), nullable=False),
        )
    if TABLA_WEB in existentes:
        op.drop_table(TABLA_WEB)


def downgrade() -> None:
    op.drop_table("borradores")
    op.drop_table("manos_partida")
    op.drop_table("partidas")
